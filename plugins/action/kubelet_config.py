# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.kubelet_config: read, plan and validate on the controller,
write through numaops.colocation.node_files on the node."""
from __future__ import annotations

import posixpath

from ansible.errors import AnsibleActionFail

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet, reservation_merge, reservations
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import dropin
from ansible_collections.numaops.colocation.plugins.plugin_utils import kubelet_dropin_mode, kubelet_yaml, numa_auto
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import NodeFilesAction, make_diff

SKELETON = kubelet_dropin_mode.SKELETON
NEW_FILE_MODE = kubelet_dropin_mode.NEW_FILE_MODE
_refusal = kubelet_dropin_mode.refusal
kubelet_yaml_free = kubelet_dropin_mode.yaml_free
asked_entries = kubelet_dropin_mode.asked_entries


def _minor(version):
    try:
        return kubelet.parse_kubelet_version(version) if version else None
    except ValueError:
        return None  # validate() refuses it, naming the option


class ActionModule(NodeFilesAction):

    def _list_dropins(self, config_dir, path, task_vars, missing_ok=False):
        """The drop-in files below ``config_dir`` the kubelet reads (in its order), the entries it skips, and a
        warning when it reads none because the directory is a link."""
        root = self._execute_module(module_name='ansible.builtin.stat', task_vars=task_vars, module_args=dict(
            path=config_dir, follow=False, get_checksum=False, get_mime=False, get_attributes=False))
        if root.get('failed'):
            raise AnsibleActionFail(_refusal(path, ['config_dir %s could not be looked at on the node: %s' % (
                config_dir, root.get('msg'))]))
        info = root.get('stat') or {}
        if missing_ok and not info.get('exists'):
            return [], [], None
        if info.get('islnk'):
            return [], [], dropin.link_root_warning(config_dir)
        if not info.get('exists') or not info.get('isdir'):
            raise AnsibleActionFail(_refusal(path, [
                'config_dir %s %s; the kubelet started with --config-dir=%s refuses to start when the directory does '
                'not exist. Create the directory, point config_dir at the --config-dir of the kubelet unit, or omit '
                'config_dir when the kubelet has no drop-in directory' % (
                    config_dir, 'is not a directory' if info.get('exists') else 'does not exist', config_dir)]))
        found = self._execute_module(
            module_name='ansible.builtin.find',
            module_args=dict(paths=[config_dir], recurse=True, file_type='any', hidden=True, follow=False),
            task_vars=task_vars)
        if found.get('failed') or found.get('skipped_paths'):
            why = found.get('msg') or '; '.join('%s' % item for item in (found.get('skipped_paths') or {}).values())
            raise AnsibleActionFail(_refusal(path, ['config_dir %s could not be listed on the node: %s' % (
                config_dir, why)]))
        entries = [(item['path'], bool(item.get('isdir'))) for item in found.get('files') or []]
        files, skipped = dropin.dropin_files(config_dir, entries)
        return files, skipped, None

    def _load_dropins(self, files, paths):
        dropins = []
        for item in paths:
            state = files[item]
            if not state.exists:
                raise AnsibleActionFail(_refusal(item, ['%s vanished while it was read; nothing was changed. Run the '
                                                        'task again' % item]))
            try:
                doc = kubelet_yaml.load(state.text, item, flow=True)
            except kubelet_yaml.KubeletYamlError as err:
                raise AnsibleActionFail('%s (a drop-in file of the kubelet\'s --config-dir)' % err)
            config = kubelet_yaml.to_plain(doc) if doc is not None else None
            try:
                dropin.check_dropin(config, item)
            except kubelet.KubeletConfigError as err:
                raise AnsibleActionFail(_refusal(item, err.errors))
            dropins.append((item, config))
        return dropins

    def _derive_auto(self, auto, planned, args, task_vars, path):
        facts_result = self._execute_module(
            module_name='numaops.colocation.numa_facts',
            module_args=dict(root=auto['topology_root']),
            task_vars=task_vars)
        if facts_result.get('failed'):
            raise AnsibleActionFail('%s: could not read the NUMA topology (below %s) for the auto reservations, nothing '
                                    'was changed: %s' % (path, auto['topology_root'], facts_result.get('msg')))
        facts = facts_result['ansible_facts']['numaops_numa']
        try:
            return numa_auto.derive(auto, planned, facts)
        except reservations.ReservationError as err:
            raise AnsibleActionFail(_refusal(path, err.errors))

    def plan(self, current, wanted, dropped, entries, args, auto, task_vars, path, effective_of):
        """The task's values planned over ``current`` (the main file, or in drop-in mode the configuration at the
        module's drop-in): reservations merged or replaced, auto values derived from the configuration the kubelet
        would run (``effective_of(new config)``). ``wanted`` and ``entries`` get the derived values. Returns
        (new config, changed keys, reservation entries dropped, derived or None). Raises KubeletConfigError."""
        removed_reservations = []
        for key in reservation_merge.RESERVATION_KEYS:
            asked_value = wanted.get(key)
            if key in dropped and asked_value is None:
                asked_value = {}
            if asked_value is None or asked_value is kubelet.REMOVE:
                if asked_value is kubelet.REMOVE and isinstance(current.get(key), dict):
                    removed_reservations.extend(reservation_merge.describe_removed(key, sorted(current[key].items())))
                continue
            request = dict(asked_value, **dict((name, None) for name in dropped.get(key, [])))
            merged, removed = reservation_merge.merge_reservation(current.get(key), request, args['reservations'])
            wanted[key] = merged if merged else kubelet.REMOVE
            removed_reservations.extend(reservation_merge.describe_removed(key, removed))
        new_config, changed_fields = kubelet.plan_values(current, wanted)
        derived = None
        if auto:
            derived_params, derived = self._derive_auto(auto, effective_of(new_config), args, task_vars, path)
            wanted.update(kubelet.requested_values(derived_params))
            entries.update((key, None) for key in kubelet.requested_values(derived_params))
            new_config, changed_fields = kubelet.plan_values(current, wanted)
        return new_config, changed_fields, removed_reservations, derived

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        try:
            kubelet_yaml.require_ruamel()
        except kubelet_yaml.KubeletYamlError as err:
            raise AnsibleActionFail(str(err))
        empty = kubelet.empty_string_errors(self._task.args)
        if empty:
            raise AnsibleActionFail(_refusal(self._task.args.get('path') or kubelet.DEFAULT_PATH, empty))
        # reserved_system_cpus/reserved_memory: auto are derived from the node's NUMA facts (numa_auto.py)
        # the node's online CPUs, which a static CPU manager checkpoint must account for, are read below it too
        online_cpus = kubelet.online_cpus_path(self._task.args.get('topology_root') or '/')
        self._task.args, auto = numa_auto.take_auto(self._task.args)
        if auto and numa_auto.check_request(auto):
            raise AnsibleActionFail(_refusal(self._task.args.get('path') or kubelet.DEFAULT_PATH,
                                             numa_auto.check_request(auto)))
        args = self.validate_args(kubelet.ARGUMENT_SPEC)
        path = args['path']
        state_dir = args['state_dir']
        cpu_state = posixpath.join(state_dir, kubelet.CPU_STATE_FILE)
        memory_state = posixpath.join(state_dir, kubelet.MEMORY_STATE_FILE)
        # merge: an entry set to null in system_reserved/kube_reserved is removed; the rest is merged below
        asked = dict(args)
        dropped = {}
        if args['reservations'] == 'merge':
            for option, key in (('system_reserved', 'systemReserved'), ('kube_reserved', 'kubeReserved')):
                if isinstance(args.get(option), dict) and args[option]:
                    dropped[key] = [name for name, value in args[option].items() if value is None]
                    kept = dict((name, value) for name, value in args[option].items() if value is not None)
                    asked[option] = kept if kept else None
        try:
            wanted = kubelet.requested_values(asked)
        except kubelet.KubeletConfigError as err:
            raise AnsibleActionFail(_refusal(path, err.errors))

        if args['write_to'] == 'dropin' or args['enable_config_dir']:
            return kubelet_dropin_mode.run(self, result, args, asked, dropped, wanted, auto, task_vars, online_cpus)
        minor = _minor(args['kubelet_version'])
        config_dir = args.get('config_dir')
        dropin_paths, dropin_skipped, link_warning = (
            self._list_dropins(config_dir, path, task_vars) if config_dir else ([], [], None))
        files = self.read_files([path, cpu_state, memory_state, online_cpus] + dropin_paths, task_vars,
                                opaque=(cpu_state, memory_state, online_cpus))
        dropins = self._load_dropins(files, dropin_paths)
        current_file = files[path]
        if current_file.exists:
            text = current_file.text
        elif args['create']:
            text = SKELETON
        else:
            raise AnsibleActionFail(
                '%s does not exist; nothing was changed. Point path at the kubelet configuration file (kubeadm: '
                '/var/lib/kubelet/config.yaml, kubespray: /etc/kubernetes/kubelet-config.yaml) or set '
                'create: true to create it.' % path)
        try:
            doc = kubelet_yaml.load(text, path)
        except kubelet_yaml.KubeletYamlError as err:
            raise AnsibleActionFail(str(err))
        current = kubelet_yaml.to_plain(doc) if doc is not None else None
        entries = asked_entries(wanted, asked, dropped, args['reservations'])
        derived = None
        try:
            kubelet.check_document(current, path)
            new_config, changed_fields, removed_reservations, derived = self.plan(
                current, wanted, dropped, entries, args, auto, task_vars, path,
                lambda config: dropin.effective_config(config, dropins, minor))
            # judged on what the kubelet runs: the main file with the drop-ins merged over it
            current_effective = dropin.effective_config(current, dropins, minor)
            new_effective = dropin.effective_config(new_config, dropins, minor)
            overridden = dropin.conflicts(entries, new_config, new_effective, dropins, config_dir, path)
            if overridden:
                raise kubelet.KubeletConfigError(overridden)
            try:
                warnings = kubelet.validate(new_effective, args['kubelet_version'])
            except kubelet.KubeletConfigError as err:
                if not dropins:
                    raise
                raise kubelet.KubeletConfigError(err.errors + [
                    'the configuration judged is %s with the drop-ins %s merged over it, as the kubelet reads them'
                    % (path, ', '.join(dropin_paths))])
        except kubelet.KubeletConfigError as err:
            raise AnsibleActionFail(_refusal(path, err.errors))
        if link_warning:
            warnings.append(link_warning)
        removals, state_warnings = kubelet.state_files_to_remove(
            current_effective, new_effective, files[cpu_state].text, files[memory_state].text, state_dir,
            kubelet.parse_online_cpus(files[online_cpus].text))
        warnings.extend(state_warnings)

        new_text = kubelet_yaml.render_exact(text, doc, new_config, changed_fields, path, 'configuration',
                                             unchanged=current)

        writes = []
        if new_text != current_file.text:
            writes.append(dict(path=path, content=new_text, expected_checksum=current_file.checksum,
                               backup=args['backup'], mode=NEW_FILE_MODE,
                               create_parents=not current_file.exists))
        outcome = self.commit(writes, task_vars, remove=[item['path'] for item in removals])

        removed, reasons = kubelet_dropin_mode.committed_state_files(outcome, removals)
        written = bool(outcome.get('written'))
        if dropins:
            # a change the drop-ins hide entirely does not change what the kubelet runs
            written = written and current_effective != new_effective
        result.update(kubelet_dropin_mode.common_result(outcome, removed, reasons, changed_fields, new_config, current,
                                                        removed_reservations))
        result['restart_required'] = bool(written or removed)
        if auto:
            result['derived'] = derived
        found_overrides = dropin.overrides(dropins)
        if config_dir:
            result.update(config_dir=config_dir, drop_in_files=dropin_paths, drop_in_files_skipped=dropin_skipped,
                          drop_in_overrides=found_overrides, effective_config=kubelet.managed_view(new_effective))
        backup = outcome.get('backup_files', {}).get(path)
        if backup:
            result['backup_file'] = backup
        messages = []
        if changed_fields:
            messages.append('%s: %s %s' % (path, 'would change' if self._play_context.check_mode else 'changed',
                                           ', '.join(changed_fields)))
        elif not current_file.exists and writes:
            messages.append('%s: %s' % (path, 'would be created' if self._play_context.check_mode else 'created'))
        check_mode = self._play_context.check_mode
        messages.extend(kubelet_dropin_mode.reservation_messages(check_mode, removed_reservations, changed_fields,
                                                                 args['reservations']))
        messages.extend(kubelet_dropin_mode.state_file_messages(check_mode, removed, reasons))
        if auto:
            messages.extend(kubelet_dropin_mode.derived_messages(derived))
        result['msg'] = '; '.join(messages) if messages else '%s: already as requested' % path
        if found_overrides:
            result['msg'] += '; drop-ins set managed keys over %s: %s' % (path, ', '.join(
                '%s %s=%s' % (item['file'], item['key'], 'null (removed)' if item['value'] is None
                              else kubelet_yaml_free(item['value'])) for item in found_overrides))
        if warnings:
            result['warnings'] = warnings
        if self._play_context.diff:
            diffs = []
            if writes:
                diffs.append(make_diff(path, current_file.text, new_text))
            result['diff'] = diffs + kubelet_dropin_mode.state_file_diffs(removed, files, reasons)
        return result
