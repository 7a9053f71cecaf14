# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node side of numaops.colocation.memory_qos, whatever the flavour: reading the pods and the cgroup v2 tree,
finding the kubelet's cgroup driver, systemd units, and writing in the planned order.

The module itself only declares its options and glues these together (``memqos`` plans, a flavour of
``memqos_flavours`` decides the values). Runs on managed nodes (Python 3.8+).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import json
import os

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils import nodefile

V2_FIX = ('memory.high, memory.low and memory.min exist only in the unified cgroup v2 hierarchy. Boot the '
          'node with systemd.unified_cgroup_hierarchy=1 on the kernel command line (the '
          'numaops.colocation.kernel_cmdline module can set it) and reboot; nothing was written.')
VANISHED = (errno.ENOENT, errno.ENODEV, errno.ESRCH)


class NodeError(Exception):
    pass


def load_pods_file(path, yaml=None):
    """The pods of the file at ``path`` (JSON; YAML when the ``yaml`` module, PyYAML, is given)."""
    try:
        with open(path, 'rb') as handle:
            raw = handle.read().decode('utf-8')
    except (IOError, OSError) as exc:
        raise NodeError('pods_file %s cannot be read: %s' % (path, to_native(exc)))
    except UnicodeDecodeError:
        raise NodeError('pods_file %s is not UTF-8 text; give a JSON (or YAML) PodList' % path)
    try:
        data = json.loads(raw)
    except ValueError as json_error:
        if yaml is None:
            raise NodeError('pods_file %s is not valid JSON (%s); YAML files need PyYAML on the node '
                            '(apt install python3-yaml, or pip install pyyaml), or save the pods as JSON '
                            '(kubectl get pods -o json)' % (path, json_error))
        try:
            data = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise NodeError('pods_file %s is neither JSON nor YAML: %s' % (path, to_native(exc)))
    return pods_from_document(data, 'pods_file %s' % path)


def pods_from_document(data, where):
    if isinstance(data, dict):
        if isinstance(data.get('items'), list):
            data = data['items']
        elif isinstance(data.get('resources'), list):
            data = data['resources']
        elif data.get('kind') == 'Pod':
            data = [data]
    if not isinstance(data, list):
        raise NodeError('%s holds no pods; allowed: a PodList (with items), a list of pods, or a '
                        'k8s_info result (with resources)' % where)
    for index, pod in enumerate(data):
        if not isinstance(pod, dict) or not isinstance(pod.get('metadata'), dict):
            raise NodeError('%s: item %d is not a pod object (a mapping with metadata, spec and status)'
                            % (where, index))
    return data


def read_cgroup_file(path):
    """A cgroup interface file of the kernel (memory.min, cgroup.controllers, ...): a few bytes the kernel makes,
    whose size stat does not report. Node files (the kubelet's) go through nodefile.read_text instead."""
    with open(path, 'r') as handle:
        return handle.read()


class CgroupTree:
    """Reads the real (or stand-in) cgroup tree below cgroup_root, only under the kubepods cgroup."""

    def __init__(self, root, driver, kubelet_root):
        self.root = root
        self.driver = driver
        self.kubelet_root = kubelet_root
        self.snapshot = {}
        self.children = {}
        self.abs_top = cg.join_under(root, cg.kubepods_path(driver, kubelet_root), kubelet_root, driver)
        self.real_top = None
        self.real_dirs = {}

    def abspath(self, rel):
        path = cg.join_under(self.root, rel, self.kubelet_root, self.driver)
        # a symbolic link anywhere on the way (never present on a real cgroupfs) must not lead elsewhere;
        # the parents' resolution is cached (one realpath per pod, not per container)
        if self.real_top is None:
            self.real_top = os.path.realpath(self.abs_top)
        parent = os.path.dirname(path)
        if parent not in self.real_dirs:
            self.real_dirs[parent] = os.path.realpath(parent)
        if os.path.islink(path):
            real = os.path.realpath(path)
        else:
            real = os.path.join(self.real_dirs[parent], os.path.basename(path))
        if real != self.real_top and not real.startswith(self.real_top + os.sep):
            raise NodeError('refusing %s: it resolves to %s, outside the kubepods cgroup %s'
                            % (path, real, self.abs_top))
        return path

    def read_cgroup(self, rel, files):
        path = self.abspath(rel)
        if not os.path.isdir(path) or os.path.islink(path):
            return False
        values = {}
        for name in files:
            try:
                text = read_cgroup_file(os.path.join(path, name))
            except (IOError, OSError) as exc:
                if exc.errno in VANISHED:
                    if not os.path.isdir(path):
                        return False
                    continue
                raise NodeError('cannot read %s/%s: %s' % (path, name, to_native(exc)))
            try:
                values[name] = mq.parse_value(text)
            except ValueError as exc:
                raise NodeError('%s/%s: %s' % (path, name, exc))
        self.snapshot[rel] = values
        return True

    def list_children(self, rel):
        path = self.abspath(rel)
        try:
            entries = sorted(e.name for e in os.scandir(path) if e.is_dir(follow_symlinks=False))
        except (IOError, OSError) as exc:
            if exc.errno in VANISHED:
                return []
            raise NodeError('cannot list %s: %s' % (path, to_native(exc)))
        kids = [rel + '/' + name for name in entries]
        self.children[rel] = kids
        return kids


def check_cgroup_v2(root):
    controllers_file = os.path.join(root, 'cgroup.controllers')
    if not os.path.exists(controllers_file):
        if os.path.exists(os.path.join(root, 'unified', 'cgroup.controllers')):
            kind = ('a cgroup v1/v2 hybrid (%s/unified is cgroup v2 without controllers; the memory controller '
                    'is on cgroup v1 at %s/memory)' % (root, root))
        else:
            kind = 'cgroup v1 (%s/cgroup.controllers does not exist)' % root
        raise NodeError('this node runs %s. %s' % (kind, V2_FIX))
    controllers = read_cgroup_file(controllers_file).split()
    if 'memory' not in controllers:
        raise NodeError('the memory controller is not available in the unified cgroup hierarchy at %s '
                        '(cgroup.controllers lists: %s); it is still bound to cgroup v1. %s'
                        % (root, ' '.join(controllers) or 'nothing', V2_FIX))


def _read_optional(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def kubelet_cmdline(proc_root):
    """The command line of the process named kubelet under proc_root (as a list), or None."""
    try:
        entries = os.listdir(proc_root)
    except OSError:
        return None
    for entry in sorted(entries, key=lambda e: (len(e), e)):
        if not entry.isdigit():
            continue
        comm = _read_optional(os.path.join(proc_root, entry, 'comm'))
        if comm is None or comm.strip() != 'kubelet':
            continue
        try:
            with open(os.path.join(proc_root, entry, 'cmdline'), 'rb') as handle:
                raw = handle.read()
        except (IOError, OSError):
            continue
        return [to_native(a, errors='surrogate_or_strict') for a in raw.split(b'\0') if a]
    return None


def detect_driver(params, root, kubelet_root):
    """The kubelet's cgroup driver, found where the Volcano agent looks, in its order.

    Returns (driver, source, warnings). Sources: the option, E(CGROUP_DRIVER), the kubelet files, the
    running kubelet's command line, then (ours, instead of the agent's guess) the kubepods tree.
    """
    requested = params['cgroup_driver']
    if requested != 'auto':
        return requested, 'option', []
    candidates = []
    env = os.environ.get(cg.ENV_DRIVER, '')
    candidates.append(('environment %s' % cg.ENV_DRIVER, env if env in cg.DRIVERS else None))
    files = [params['kubelet_config_path']] + list(params['kubelet_flags_files'] or [])
    for path in files:
        if not path or not os.path.exists(path):
            continue
        try:
            text = nodefile.read_text(path, nodefile.MAX_CONFIG_BYTES, 'kubelet file')
        except nodefile.NodeFileError as exc:
            raise NodeError(to_native(exc))
        if text is None:
            continue
        try:
            candidates.append(('kubelet_config' if path == files[0] else path, cg.driver_from_file(text)))
        except cg.CgroupPathError as exc:
            raise NodeError('%s: %s' % (path, exc))
    args = kubelet_cmdline(params['proc_root'])
    if args:
        try:
            driver, where = cg.driver_from_cmdline(args, _read_optional)
        except cg.CgroupPathError as exc:
            raise NodeError('the kubelet command line: %s' % exc)
        candidates.append(('kubelet command line (%s)' % where if where else 'kubelet command line', driver))
    driver, source, others = cg.choose_driver(candidates)
    warnings = []
    if others:
        warnings.append('the cgroup driver sources disagree: %s says %s, but %s. The Volcano agent uses the first '
                        '(%s); the kubelet lets a command-line flag override its config file. Set cgroup_driver '
                        'if %s is wrong' % (source, driver, ', '.join('%s says %s' % o for o in others),
                                            driver, driver))
    if driver:
        return driver, source, warnings

    def exists(rel):
        return os.path.isdir(os.path.join(root, rel))
    driver = cg.driver_from_tree(exists, kubelet_root)
    if driver:
        return driver, 'tree', warnings
    raise NodeError('cannot tell the kubelet cgroup driver: %s is not set, %s do not set cgroupDriver or '
                    '--cgroup-driver, no kubelet process shows it, and %s has %s. Set cgroup_driver to systemd '
                    'or cgroupfs (and kubelet_cgroup_root if the kubelet uses --cgroup-root)'
                    % (cg.ENV_DRIVER, ', '.join(files), root,
                       'both kubepods.slice and kubepods' if exists(cg.kubepods_path('systemd', kubelet_root))
                       else 'neither kubepods.slice nor kubepods'))


def use_systemd(params, driver, root):
    """Whether the cgroups that are systemd units are written through systemd (option systemd_units); raises
    NodeError for always where it cannot."""
    mode = params['systemd_units']
    if mode == 'never':
        return False
    why = None
    if driver != 'systemd':
        why = 'the cgroup driver is %s' % driver
    elif root != '/sys/fs/cgroup':
        why = 'cgroup_root is %s, not /sys/fs/cgroup' % root
    elif not os.path.isdir('/run/systemd/system'):
        why = 'the node does not run systemd (no /run/systemd/system)'
    if why and mode == 'always':
        raise NodeError('systemd_units=always, but %s; allowed there: auto or never' % why)
    return why is None


# units per systemctl show call: far below the kernel's argument limit even with long unit names
SHOW_CHUNK = 400


def read_held(run_command, cgroups):
    """{cgroup: {file: value}} of the ``cgroups`` that are loaded systemd units: what systemd holds for them
    (systemctl show, a few hundred units per call, through ``run_command``, AnsibleModule's); raises NodeError
    when systemctl fails."""
    units = {}
    for cgroup in cgroups:
        unit = mq.systemd_unit(cgroup)
        if unit:
            units.setdefault(unit, []).append(cgroup)
    names = sorted(units)
    held = {}
    for start in range(0, len(names), SHOW_CHUNK):
        argv = mq.show_argv(names[start:start + SHOW_CHUNK])
        rc, out, err = run_command(argv)
        if rc != 0:
            raise NodeError('%s failed (exit %d): %s. Nothing was written; with systemd_units=never the module '
                            'writes the cgroup files only (systemd may then undo them)'
                            % (' '.join(argv[:4] + ['<%d units>' % (len(argv) - 4)]), rc,
                               (err or out).strip() or 'no output'))
        for unit, values in mq.parse_unit_properties(out).items():
            for cgroup in units.get(unit, []):
                held[cgroup] = values
    return held


def set_unit(run_command, cgroup, values):
    """systemctl set-property --runtime <unit> MemoryMin=... MemoryLow=... MemoryHigh=...; raises NodeError when
    it fails."""
    argv = mq.set_property_argv(mq.systemd_unit(cgroup), values)
    rc, out, err = run_command(argv)
    if rc != 0:
        raise NodeError('%s failed (exit %d): %s' % (' '.join(argv), rc, (err or out).strip() or 'no output'))


def earlier_writes(done):
    """What a failure message says about the writes made before it."""
    return '%d earlier writes were made: %s' % (
        len(done), ', '.join('%s/%s=%s' % (w['cgroup'], w['file'], w['new']) for w in done) or 'none')


def write_value(path, text):
    """Write like `echo value > file` but never create the file (the kernel refuses unknown files)."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC | getattr(os, 'O_NOFOLLOW', 0))
    try:
        os.write(fd, text.encode('ascii'))
    finally:
        os.close(fd)


def memory_fix(tree, parents):
    """What to do about cgroups below ``parents`` (relative paths) that have no memory.* files (message text)."""
    path = os.path.join(tree.root, parents[0]) if parents[0] else tree.root
    try:
        listed = read_cgroup_file(os.path.join(tree.abspath(parents[0]), 'cgroup.subtree_control')).split()
        lists = ', which lists: %s' % (' '.join(listed) or 'nothing')
    except (IOError, OSError, NodeError, cg.CgroupPathError):
        lists = ''
    more = (' (and in that of %d more cgroup%s)' % (len(parents) - 1, 's' if len(parents) > 2 else '')
            if len(parents) > 1 else '')
    return ('memory is not in %s/cgroup.subtree_control%s%s. Enable it there (echo +memory > %s/cgroup.subtree_control; '
            'with the systemd driver, systemd enables it for units with MemoryAccounting=yes, the default with '
            'DefaultMemoryAccounting=yes in /etc/systemd/system.conf, and may undo a manual write) and run again'
            % (path, lists, more, path))


def problem_warnings(tree, problems):
    """One warning per invalid pod or container, and one per cgroup whose children lack the memory controller."""
    warnings = []
    nomem = {}
    for item in problems:
        if item['kind'] == 'invalid':
            if item['container'] is None:
                warnings.append('pod %s skipped: %s' % (item['pod'], item['reason']))
            else:
                warnings.append('pod %s container %s skipped: %s; nothing is written for it'
                                % (item['pod'], item['container'], item['reason']))
        else:
            nomem.setdefault(os.path.dirname(item['cgroup']), []).append(item)
    for parent, items in sorted(nomem.items()):
        names = []
        for item in items:
            if item['container'] is not None:
                names.append('container %s of pod %s (%s)' % (item['container'], item['pod'], item['cgroup']))
            else:
                names.append('%s cgroup %s' % (item['level'], item['cgroup']))
        warnings.append('skipped %s: no memory.high/memory.low/memory.min files, the memory controller is not '
                        'enabled below %s; %s' % ('; '.join(names), parent, memory_fix(tree, [parent])))
    return warnings


def build_diff(root, writes):
    before = ''.join('%s/%s: %s\n' % (w['cgroup'], w['file'], w['old']) for w in writes)
    after = ''.join('%s/%s: %s\n' % (w['cgroup'], w['file'], w['new']) for w in writes)
    return {'before': before, 'after': after,
            'before_header': '%s (before)' % root, 'after_header': '%s (after)' % root}


def mark_vanished(result, vanished, done, warnings, tree):
    """Report cgroups that vanished between planning and writing: a reason in pods/levels and a warning."""
    entries = {}
    for pod in result['pods']:
        for entry in pod['containers']:
            if entry['cgroup']:
                entries[entry['cgroup']] = ('container %s of pod %s/%s' % (entry['name'], pod['namespace'], pod['name']), entry)
    for entry in result['levels']:
        entries[entry['cgroup']] = ('%s cgroup' % entry['level'], entry)
    for cgroup, files in sorted(vanished.items()):
        if os.path.isdir(os.path.join(tree.root, cgroup)):
            text = '%s lost %s before they could be written (the memory controller was disabled meanwhile)'
        else:
            text = '%s vanished before %s could be written (the pod or container is gone)'
        reason = text % (cgroup, ', '.join(files))
        what, entry = entries.get(cgroup, ('cgroup', None))
        if entry is not None:
            entry['skipped'] = reason
            entry['changed'] = any(w['cgroup'] == cgroup for w in done)
        warnings.append('%s skipped: %s' % (what, reason))


def apply_writes(batches, tree, run_command, page_size, writer=write_value, reader=read_cgroup_file):
    """Make the planned writes, batch by batch (:func:`memqos.write_batches`), and read each value back.

    Returns ``(done, vanished, warnings)``: the writes made, ``{cgroup: [files]}`` of the cgroups that vanished
    (or lost their memory controller) before all their files were written, and the warnings about values the
    kernel did not keep or that could not be read back. Any other failure raises NodeError naming the writes made
    before it."""
    done = []
    vanished = {}
    mismatched = []
    unreadable = []
    for batch in batches:
        cgroup = batch[0]['cgroup']
        if cgroup in vanished:
            vanished[cgroup].extend(write['file'] for write in batch)
            continue
        try:
            if batch[0]['via'] == 'systemd':
                # all of the unit's values of this step in one call; then the files too: systemd may apply
                # the property after its answer, and the value read back below must be the one written
                # (systemd then writes the same value)
                if not os.path.isdir(tree.abspath(cgroup)):
                    raise IOError(errno.ENOENT, 'the cgroup is gone', tree.abspath(cgroup))
                try:
                    set_unit(run_command, cgroup, dict((write['file'], write['new']) for write in batch))
                except NodeError:
                    if not os.path.isdir(tree.abspath(cgroup)):
                        raise IOError(errno.ENOENT, 'the unit is gone', tree.abspath(cgroup))
                    raise
        except (IOError, OSError, NodeError) as exc:
            if isinstance(exc, (IOError, OSError)) and exc.errno in VANISHED:
                vanished[cgroup] = [write['file'] for write in batch]
                continue
            raise NodeError('%s. %s' % (to_native(exc), earlier_writes(done)))
        for write in batch:
            if cgroup in vanished:
                vanished[cgroup].append(write['file'])
                continue
            path = os.path.join(tree.abspath(cgroup), write['file'])
            try:
                writer(path, write['new'])
            except (IOError, OSError) as exc:
                if exc.errno in VANISHED:
                    vanished[cgroup] = [write['file']]
                    continue
                raise NodeError('writing %s to %s failed: %s. %s'
                                % (write['new'], path, to_native(exc), earlier_writes(done)))
            done.append(write)
            try:
                stored = mq.to_text(mq.parse_value(reader(path)))
            except (IOError, OSError, ValueError) as exc:
                unreadable.append('%s (%s)' % (path, to_native(exc)))
                continue
            if stored != write['new']:
                mismatched.append('%s holds %s after writing %s' % (path, stored, write['new']))
    warnings = []
    if mismatched:
        warnings.append('the kernel stored other values than written (is page_size %d right?): %s'
                        % (page_size, '; '.join(mismatched[:10])))
    if unreadable:
        warnings.append('%d written value(s) could not be read back, so whether the kernel kept them is unknown: %s'
                        % (len(unreadable), '; '.join(unreadable[:10])))
    return done, vanished, warnings


def read_tree(tree, plans, kubepods, qos_paths, hierarchy):
    """Read into ``tree`` what the plan needs: the levels' protection files and, below each planned pod, its
    containers' files (with ``hierarchy`` every child cgroup's, so the sums count the sandbox too)."""
    if hierarchy:
        for rel in tree.list_children(kubepods):
            tree.read_cgroup(rel, mq.PROTECTION_FILES)
        for rel in qos_paths:
            if rel in tree.snapshot:
                for child in tree.list_children(rel):
                    tree.read_cgroup(child, mq.PROTECTION_FILES)
    for plan in plans:
        if plan['skipped'] or not plan['cgroup']:
            continue
        if plan['cgroup'] not in tree.snapshot and not tree.read_cgroup(plan['cgroup'], mq.PROTECTION_FILES):
            continue
        if hierarchy:
            for child in tree.list_children(plan['cgroup']):
                tree.read_cgroup(child, mq.CONTAINER_FILES)
        else:
            for entry in plan['containers']:
                if entry['cgroup'] and not entry['skipped']:
                    tree.read_cgroup(entry['cgroup'], mq.CONTAINER_FILES)


def held_candidates(tree, plans, kubepods, qos_paths, hierarchy):
    """The cgroups a run may write: the managed containers, and with ``hierarchy`` their pods and the levels."""
    candidates = set()
    for plan in plans:
        if plan['skipped'] or plan['cgroup'] not in tree.snapshot:
            continue
        if hierarchy:
            candidates.add(plan['cgroup'])
        candidates.update(entry['cgroup'] for entry in plan['containers']
                          if entry['cgroup'] and not entry['skipped'] and entry['cgroup'] in tree.snapshot)
    if hierarchy:
        candidates.update(rel for rel in qos_paths + [kubepods] if rel in tree.snapshot)
    return sorted(candidates)


def fail_without_memory_controller(tree, result):
    """Raise NodeError when no running container to manage can be written because the memory controller is not
    enabled below its pod (every one found has that problem); nothing has been written then."""
    nomem = [p for p in result['problems'] if p['kind'] == 'no_memory_controller' and p['container'] is not None]
    if nomem and len(nomem) == result['containers_found']:
        parents = sorted(set(os.path.dirname(p['cgroup']) for p in nomem))
        raise NodeError('no running container to manage can be written (%d found): their cgroups have no '
                        'memory.high/memory.low/memory.min because the memory controller is not enabled below '
                        '%s%s; %s. Nothing was written'
                        % (len(nomem), ', '.join(parents[:5]), ' and %d more' % (len(parents) - 5) if len(parents) > 5 else '',
                           memory_fix(tree, parents)))
