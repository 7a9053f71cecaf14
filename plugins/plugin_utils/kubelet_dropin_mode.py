# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubelet_config's drop-in mode (``write_to: dropin``), run by its action plugin: the managed keys go into one
drop-in file of the module's own in the kubelet's ``--config-dir``, the main file is only read, and everything is
judged on the configuration the kubelet runs (the main file with every drop-in merged over it). With
``enable_config_dir`` the kubelet unit gets ``--config-dir`` through a unit drop-in of the module's own
(module_utils/systemd_unit.py). The pure rules are in module_utils/kubelet/dropin.py."""
from __future__ import annotations

import posixpath
import re

from ansible.errors import AnsibleActionFail

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet, preflight, systemd_unit
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import dropin
from ansible_collections.numaops.colocation.plugins.plugin_utils import kubelet_yaml
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import make_diff

SKELETON = 'apiVersion: %s\nkind: %s\n' % (kubelet.API_VERSION, kubelet.KIND)
NEW_FILE_MODE = '0644'
# the first kubelet release with --config-dir on by default (KEP-3983 beta)
CONFIG_DIR_SINCE = 30
_VERSION_RE = re.compile(r'^v?(\d+)\.(\d+)')


def refusal(path, errors):
    return ('%s: refusing to change the kubelet configuration; nothing was changed:\n- %s'
            % (path, '\n- '.join(errors)))


def yaml_free(value):
    """A value as one short text for a message (reservedMemory as node:memory pairs)."""
    if isinstance(value, list):
        return ','.join('%s:%s' % (item.get('numaNode'), (item.get('limits') or {}).get('memory'))
                        if isinstance(item, dict) else str(item) for item in value)
    if value is None:
        return 'null'
    return value


def asked_entries(wanted, asked, dropped, mode):
    """{key: None (the whole key) or [entries]} of what the task sets, for dropin.conflicts()."""
    entries = {}
    for key, value in wanted.items():
        if value is kubelet.REMOVE or not isinstance(value, dict):
            entries[key] = None
        elif key == 'featureGates':
            entries[key] = sorted(value)
        elif key in ('systemReserved', 'kubeReserved') and mode == 'merge':
            option = kubelet.OPTION_FOR_KEY[key]
            entries[key] = sorted(set(asked.get(option) or {}) | set(dropped.get(key, [])))
        else:
            entries[key] = None
    return entries


def committed_state_files(outcome, removals):
    """(removed, reasons): the state files the commit removed, and why each one (kubelet.state_files_to_remove)."""
    removed = list(outcome.get('removed', []))
    reasons = dict((item['path'], item['reason']) for item in removals)
    return removed, reasons


def common_result(outcome, removed, reasons, changed_fields, config, previous, removed_reservations):
    """The result fields both modes return the same way (``restart_required`` is each mode's own)."""
    return dict(
        changed=bool(outcome.get('changed')),
        changed_fields=changed_fields,
        state_files_removed=removed,
        state_files_removed_reasons=dict((item, reasons.get(item, '')) for item in removed),
        config=kubelet.managed_view(config),
        previous=kubelet.managed_view(previous),
        reservations_removed=removed_reservations if changed_fields else [],
    )


def reservation_messages(check_mode, removed_reservations, changed_fields, mode):
    if removed_reservations and changed_fields:
        return ['%s reservations %s (reservations: %s)' % (
            'would remove' if check_mode else 'removed', ', '.join(removed_reservations), mode)]
    return []


def state_file_messages(check_mode, removed, reasons):
    return ['%s %s: %s' % ('would remove' if check_mode else 'removed', item, reasons.get(item, '')) for item in removed]


def derived_messages(derived):
    if not derived:
        return []
    return ['derived from the NUMA topology: %s' % ', '.join(
        '%s=%s' % (name, yaml_free(item['value'])) for name, item in sorted(derived.items()))]


def state_file_diffs(removed, files, reasons):
    diffs = []
    for item in removed:
        diff = make_diff(item, files[item].text if item in files else '', None)
        diff['after_header'] = '%s (removed: %s)' % (item, reasons.get(item, ''))
        diffs.append(diff)
    return diffs


def version_minor(version):
    """The minor of a 1.x kubelet_version, or None (not given, or not a version: validate() names it)."""
    match = _VERSION_RE.match(str(version or '').strip())
    return int(match.group(2)) if match and match.group(1) == '1' else None


def _null_aware_equal(key, name, old, new):
    if old is None or new is None:
        return old is None and new is None
    return kubelet.nested_value_equal(key, name, old, new)


def request_errors(args):
    """Refusals of the drop-in mode's options, before anything is read."""
    errors = []
    path = args['path']
    if args['enable_config_dir'] and args['write_to'] != 'dropin':
        errors.append('enable_config_dir needs write_to: dropin (the kubelet refuses to start when its --config-dir '
                      'does not exist, and the module creates it with its drop-in file)')
    if not args.get('config_dir'):
        errors.append('write_to: dropin needs config_dir, the kubelet\'s drop-in directory (its --config-dir; '
                      'kubeadm and kubespray nodes often use /etc/kubernetes/kubelet.conf.d)')
    elif args['enable_config_dir']:
        errors.extend(systemd_unit.config_dir_errors(args['config_dir']))
    errors.extend(dropin.check_dropin_name(args['drop_in_name']))
    if args['create']:
        errors.append('create: true cannot be combined with write_to: dropin; the main file %s is read and left as '
                      'it is, so it must exist' % path)
    if args['enable_config_dir']:
        minor = version_minor(args['kubelet_version'])
        if not args['kubelet_version']:
            errors.append('enable_config_dir needs kubelet_version: the kubelet has --config-dir from 1.30 on, and '
                          'an older one refuses to start with the flag')
        elif minor is not None and minor < CONFIG_DIR_SINCE:
            errors.append('enable_config_dir: kubelet %s has no drop-in directory; --config-dir exists from kubelet '
                          '1.30 on (an older kubelet refuses to start with it). Upgrade the kubelet, or use '
                          'write_to: main' % args['kubelet_version'])
        unit_name = args['config_dir_unit_drop_in']
        if (not isinstance(unit_name, str) or '/' in unit_name or unit_name.startswith('.')
                or not unit_name.endswith('.conf')):
            errors.append('config_dir_unit_drop_in %r is not a file name ending in .conf (systemd reads only those '
                          'from %s.d)' % (unit_name, systemd_unit.unit_name(args['kubelet_service'])))
        if not args['kubelet_unit_dirs']:
            errors.append('kubelet_unit_dirs is empty: the kubelet unit cannot be found')
    return errors


class DropinRun(object):
    """One run of the drop-in mode for an action plugin (``action``: NodeFilesAction with _list_dropins,
    _load_dropins, plan)."""

    def __init__(self, action, args, task_vars, online_cpus):
        self.action = action
        self.args = args
        self.task_vars = task_vars
        # the node's online CPUs file (kubelet.online_cpus_path), read with the checkpoints they are checked against
        self.online_cpus = online_cpus
        self.path = args['path']
        self.config_dir = args['config_dir']
        self.ours = posixpath.join(self.config_dir, args['drop_in_name'])
        self.warnings = []

    def fail(self, errors, where=None):
        raise AnsibleActionFail(refusal(where or self.ours, errors))

    # ------------------------------------------------------------------------------------------ the kubelet unit
    def unit_plan(self):
        """The unit drop-in that gives the kubelet --config-dir: {path, content (None: nothing to write), state
        (FileState of the drop-in), active (the kubelet runs with this --config-dir now), sources}."""
        args = self.args
        dirs = list(args['kubelet_unit_dirs'])
        service = args['kubelet_service']
        found = self.action._execute_module(
            module_name='ansible.builtin.find', task_vars=self.task_vars,
            module_args=dict(paths=preflight.unit_candidates(dirs, service), recurse=False, file_type='any',
                             hidden=True, follow=False))
        if found.get('failed'):
            self.fail(['the kubelet unit directories %s could not be listed: %s' % (', '.join(dirs), found.get('msg'))])
        listing = [item['path'] for item in found.get('files') or []]
        unit, drop_ins = systemd_unit.unit_sources(listing, dirs, service)
        name = systemd_unit.unit_name(service)
        ours = posixpath.join(dirs[0], name + '.d', args['config_dir_unit_drop_in'])
        paths = sorted(set(([unit] if unit else []) + drop_ins + [ours]))
        files = self.action.read_files(paths, self.task_vars)
        texts = dict((path, state.text) for path, state in files.items() if state.exists)
        service_now = systemd_unit.effective_service(texts, dirs, service)
        env_paths = []
        for entry in service_now['environment_files']:
            env_path = entry[1:] if entry.startswith('-') else entry
            if env_path.startswith('/') and env_path not in env_paths:
                env_paths.append(env_path)
        env_files = self.action.read_files(env_paths, self.task_vars) if env_paths else {}
        env_texts = dict((path, state.text) for path, state in env_files.items() if state.exists)
        plan = systemd_unit.config_dir_dropin(texts, dirs, service, ours, self.config_dir, env_texts)
        if plan['errors']:
            self.fail(plan['errors'], where=unit or name)
        now = systemd_unit.effective_service(texts, dirs, service, env_texts)
        active = (systemd_unit.flag_value(now['argv'], 'config-dir') or '').rstrip('/') == self.config_dir.rstrip('/')
        content = plan['content']
        if content is not None and files[ours].exists and files[ours].text == content:
            content = None
        return {'path': ours, 'content': content, 'state': files[ours], 'active': active,
                'sources': [plan['before']['unit']] + plan['before']['drop_ins']}

    # ------------------------------------------------------------------------------------------ the files
    def read(self, dropin_paths):
        args = self.args
        state_dir = args['state_dir']
        self.cpu_state = posixpath.join(state_dir, kubelet.CPU_STATE_FILE)
        self.memory_state = posixpath.join(state_dir, kubelet.MEMORY_STATE_FILE)
        paths = [self.path, self.cpu_state, self.memory_state] + [p for p in dropin_paths if p != self.ours]
        files = self.action.read_files(paths + [self.ours, self.online_cpus], self.task_vars,
                                       opaque=(self.cpu_state, self.memory_state, self.online_cpus))
        main_file = files[self.path]
        if not main_file.exists:
            self.fail(['%s does not exist; write_to: dropin reads the main file and leaves it as it is. Point path '
                       'at the kubelet configuration file (its --config)' % self.path], where=self.path)
        try:
            main_doc = kubelet_yaml.load(main_file.text, self.path, flow=True)
        except kubelet_yaml.KubeletYamlError as err:
            raise AnsibleActionFail(str(err))
        main = kubelet_yaml.to_plain(main_doc) if main_doc is not None else None
        try:
            kubelet.check_document(main, self.path)
        except kubelet.KubeletConfigError as err:
            self.fail(err.errors, where=self.path)
        others = self.action._load_dropins(files, [p for p in dropin_paths if p != self.ours])
        mine = files[self.ours]
        if mine.exists:
            text = mine.text
            try:
                doc = kubelet_yaml.load(text, self.ours)
            except kubelet_yaml.KubeletYamlError as err:
                raise AnsibleActionFail('%s (the drop-in file this module writes: drop_in_name)' % err)
            current = kubelet_yaml.to_plain(doc) if doc is not None else None
            try:
                dropin.check_dropin(current, self.ours)
            except kubelet.KubeletConfigError as err:
                self.fail(err.errors)
        else:
            text = SKELETON
            doc = kubelet_yaml.load(text, self.ours)
            current = kubelet_yaml.to_plain(doc)
        return files, main, others, text, doc, current


def run(action, result, args, asked, dropped, wanted, auto, task_vars, online_cpus):
    """kubelet_config with ``write_to: dropin`` (and ``enable_config_dir``): returns the task result."""
    errors = request_errors(args)
    if errors:
        raise AnsibleActionFail(refusal(args.get('config_dir') or args['path'], errors))
    job = DropinRun(action, args, task_vars, online_cpus)
    path, ours, config_dir = job.path, job.ours, job.config_dir
    check_mode = action._play_context.check_mode
    minor = version_minor(args['kubelet_version'])
    unit = job.unit_plan() if args['enable_config_dir'] else None
    dropin_paths, skipped, link_warning = action._list_dropins(config_dir, path, task_vars,
                                                               missing_ok=bool(unit and not unit['active']))
    if link_warning:
        job.fail(['config_dir %s is a symbolic link: the kubelet walks --config-dir without following links and '
                  'reads no drop-in from it, so a drop-in written there would have no effect. Point config_dir and '
                  'the kubelet\'s --config-dir at the directory itself' % config_dir])
    files, main, others, text, doc, current = job.read(dropin_paths)
    before, after = dropin.split_at(others, ours)
    base = dropin.effective_config(main, before, minor)
    at_ours = dropin.effective_config(main, before + [(ours, current)], minor)
    entries = asked_entries(wanted, asked, dropped, args['reservations'])
    try:
        planned, _changed, removed_reservations, derived = action.plan(
            at_ours, wanted, dropped, entries, args, auto, task_vars, ours,
            lambda config: dropin.effective_config(main, before + [(ours, dropin.dropin_values(
                current, config, base, entries))] + after, minor))
        new_mine = dropin.dropin_values(current, planned, base, entries)
        new_all = before + [(ours, new_mine)] + after
        new_effective = dropin.effective_config(main, new_all, minor)
        active_now = unit is None or unit['active']
        current_all = (before + ([(ours, current)] if files[ours].exists else []) + after) if active_now else []
        current_effective = dropin.effective_config(main, current_all, minor)
        late = dropin.conflicts(entries, planned, new_effective, after, config_dir,
                                '%s (this module\'s drop-in, which it comes after)' % ours)
        if late:
            raise kubelet.KubeletConfigError(late)
        missed = dropin.unreached(entries, planned, new_effective, path, ours, minor)
        if missed:
            raise kubelet.KubeletConfigError(missed)
        check_version = args['kubelet_version'] if minor is None or minor > CONFIG_DIR_SINCE else None
        if minor == CONFIG_DIR_SINCE:
            job.warnings.append('kubelet %s: the release checks of kubelet_version start at 1.31, so they are skipped '
                                '(the drop-ins are merged by the 1.31 rules, which 1.30 shares)' % args['kubelet_version'])
        try:
            warnings = kubelet.validate(new_effective, check_version)
        except kubelet.KubeletConfigError as err:
            raise kubelet.KubeletConfigError(err.errors + [
                'the configuration judged is %s with the drop-ins %s merged over it, as the kubelet reads them'
                % (path, ', '.join(item[0] for item in new_all))])
    except kubelet.KubeletConfigError as err:
        raise AnsibleActionFail(refusal(ours, err.errors))
    warnings = job.warnings + warnings
    removals, state_warnings = kubelet.state_files_to_remove(
        current_effective, new_effective, files[job.cpu_state].text, files[job.memory_state].text, args['state_dir'],
        kubelet.parse_online_cpus(files[job.online_cpus].text))
    warnings.extend(state_warnings)

    changed_fields = dropin.dropin_changes(current, new_mine)
    new_text = kubelet_yaml.render_exact(text, doc, new_mine, changed_fields, ours, 'drop-in', equal=_null_aware_equal)
    mine_state = files[ours]
    writes = []
    if new_text != (mine_state.text if mine_state.exists else None):
        writes.append(dict(path=ours, content=new_text, expected_checksum=mine_state.checksum, backup=args['backup'],
                           mode=NEW_FILE_MODE, create_parents=not mine_state.exists))
    if unit and unit['content'] is not None:
        writes.append(dict(path=unit['path'], content=unit['content'], expected_checksum=unit['state'].checksum,
                           backup=args['backup'], mode=NEW_FILE_MODE, create_parents=not unit['state'].exists))
    outcome = action.commit(writes, task_vars, remove=[item['path'] for item in removals])
    written = list(outcome.get('written') or [])
    removed, reasons = committed_state_files(outcome, removals)
    unit_written = bool(unit) and unit['path'] in written
    dropped_keys = dropin.removed_from_dropin(current, new_mine, main, new_all, new_effective, path)
    result.update(common_result(outcome, removed, reasons, changed_fields, new_mine, current, removed_reservations))
    result.update(
        restart_required=bool((ours in written and current_effective != new_effective) or removed or unit_written),
        config_dir=config_dir,
        drop_in_file=ours,
        drop_in_files=[item[0] for item in new_all],
        drop_in_files_skipped=skipped,
        drop_in_overrides=dropin.overrides(before + after),
        drop_in_removed=dropped_keys,
        effective_config=kubelet.managed_view(new_effective),
        daemon_reload_required=unit_written,
    )
    if unit:
        result['unit_drop_in'] = unit['path']
    if derived is not None:
        result['derived'] = derived
    backups = outcome.get('backup_files', {})
    if backups.get(ours):
        result['backup_file'] = backups[ours]
    result['msg'] = _message(job, check_mode, changed_fields, mine_state, writes, removed_reservations, removed,
                             reasons, derived, dropped_keys, unit, unit_written, args)
    if warnings:
        result['warnings'] = warnings
    if action._play_context.diff:
        diffs = []
        for item in writes:
            state = mine_state if item['path'] == ours else unit['state']
            diffs.append(make_diff(item['path'], state.text if state.exists else None, item['content']))
        result['diff'] = diffs + state_file_diffs(removed, files, reasons)
    return result


def _message(job, check_mode, changed_fields, mine_state, writes, removed_reservations, removed, reasons, derived,
             dropped_keys, unit, unit_written, args):
    ours = job.ours
    messages = []
    if changed_fields or any(item['path'] == ours for item in writes):
        verb = ('would create' if check_mode else 'created') if not mine_state.exists else (
            'would change' if check_mode else 'changed')
        messages.append('%s (drop-in, %s left as it is): %s%s' % (
            ours, job.path, verb, (' ' + ', '.join(changed_fields)) if changed_fields else ''))
    messages.extend(reservation_messages(check_mode, removed_reservations, changed_fields, args['reservations']))
    for item in dropped_keys:
        messages.append('%s %s=%s from %s: the kubelet %s %s (from %s)' % (
            'would remove' if check_mode else 'removed', item['key'], yaml_free(item['value']), ours,
            'would then run with' if check_mode else 'now runs with',
            'its default' if item['effective'] is None else yaml_free(item['effective']), item['from']))
    messages.extend(state_file_messages(check_mode, removed, reasons))
    messages.extend(derived_messages(derived))
    if unit_written or (unit and unit['content'] is not None):
        messages.append('%s %s: the kubelet is started with --config-dir=%s; run systemctl daemon-reload and restart '
                        'the kubelet' % ('would write' if check_mode else 'wrote', unit['path'], job.config_dir))
    return '; '.join(messages) if messages else '%s: already as requested' % ours
