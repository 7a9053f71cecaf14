# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.containerd_nri (the documentation is in plugins/modules/)."""
from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.numaops.colocation.plugins.module_utils.containerd import (
    ARGUMENT_SPEC, DROPIN_HEADER, NRI_KEYS, ContainerdConfigError, check_supported, config_version_for,
    effective_nri, nri_defaults, parse_containerd_version, parse_version_string, validate_options,
    wanted_values, whole_table_imports,
)
from ansible_collections.numaops.colocation.plugins.plugin_utils import containerd_toml
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import NodeFilesAction, make_diff

COMMAND = 'ansible.legacy.command'


class ActionModule(NodeFilesAction):

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        self._supports_async = False
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        try:
            result.update(self._run(task_vars or {}))
        except ContainerdConfigError as err:
            result.update(failed=True, changed=False, msg=str(err))
        except AnsibleActionFail as err:
            result.update(failed=True, changed=False, msg=err.message)
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result

    def _detect_version(self, args, task_vars, warnings):
        """(ContainerdVersion or None, source text)."""
        if args['containerd_version'] is not None:
            return parse_version_string(args['containerd_version']), 'containerd_version option'
        binary = args['containerd_binary']
        saved = self._task.check_mode
        # `containerd --version` only reads; it runs in check mode too, so check mode predicts truly.
        self._task.check_mode = False
        try:
            res = self._execute_module(module_name=COMMAND, module_args={'argv': [binary, '--version']},
                                       task_vars=task_vars)
        finally:
            self._task.check_mode = saved
        if not res.get('failed') and res.get('rc') == 0:
            return parse_containerd_version(res.get('stdout', '')), '`%s --version` on the node' % binary
        message = '%s %s' % (res.get('msg', ''), res.get('stderr', ''))
        if 'No such file or directory' in message or res.get('rc') == 2 and not res.get('stdout'):
            return None, None
        warnings.append('`%s --version` failed on the node (rc=%s: %s); the containerd version is taken from the '
                        'config file instead. Set containerd_version to say it explicitly.'
                        % (binary, res.get('rc'), message.strip()[:300]))
        return None, None

    def _run(self, task_vars):
        args = self.validate_args(ARGUMENT_SPEC)
        validate_options(args)
        warnings = []
        path = args['path']
        dropin = args['mode'] == 'dropin'
        dropin_path = args['dropin_path']
        wanted = wanted_values(args)

        version, version_source = self._detect_version(args, task_vars, warnings)
        check_supported(path, containerd_version=version, version_source=version_source)

        paths = [path] + ([dropin_path] if dropin else [])
        states = self.read_files(paths, task_vars)
        main = states[path]
        main_info = containerd_toml.inspect(main.text, path)
        if not main_info.empty:
            check_supported(path, containerd_version=version, config_version=main_info.version,
                            version_source=version_source)
        cfg_version = config_version_for(version, None if main_info.empty else main_info.version)

        new_texts = {}
        if not dropin:
            edit = containerd_toml.edit(main.text, path, wanted=wanted, misplaced=args['misplaced_keys'],
                                        new_version=cfg_version)
            new_texts[path] = edit.text
            warnings.extend(edit.warnings)
        else:
            edit = containerd_toml.edit(main.text, path, import_path=dropin_path, misplaced=args['misplaced_keys'],
                                        new_version=cfg_version)
            new_texts[path] = edit.text
            warnings.extend(edit.warnings)
            drop = states[dropin_path]
            drop_info = containerd_toml.inspect(drop.text, dropin_path)
            if not drop_info.empty and drop_info.version and cfg_version and drop_info.version > cfg_version:
                raise ContainerdConfigError(
                    '%s has `version = %d`, higher than the main file %s (`version = %d`); containerd 2.x refuses '
                    'to start with such a drop-in. Set `version = %d` in %s. Nothing was changed.'
                    % (dropin_path, drop_info.version, path, cfg_version, cfg_version, dropin_path))
            drop_wanted = dict(wanted)
            if whole_table_imports(version, cfg_version) and main_info.nri:
                # containerd 1.x replaces the main file's whole NRI table with the drop-in's: carry over the
                # main file's own NRI settings so that they keep applying.
                carried = [key for key in NRI_KEYS if key in main_info.nri and key not in wanted]
                for key in carried:
                    drop_wanted[key] = main_info.nri[key]
                drop_wanted = dict((key, drop_wanted[key]) for key in NRI_KEYS if key in drop_wanted)
                if carried:
                    warnings.append('%s also has an NRI table; containerd 1.x replaces it as a whole with the drop-in '
                                    '%s, so its %s are repeated in the drop-in.'
                                    % (path, dropin_path, ', '.join(carried)))
            drop_edit = containerd_toml.edit(drop.text, dropin_path, wanted=drop_wanted,
                                             misplaced=args['misplaced_keys'], new_version=cfg_version,
                                             new_file_header=DROPIN_HEADER % path)
            new_texts[dropin_path] = drop_edit.text
            warnings.extend(drop_edit.warnings)

        # containerd's effective NRI settings after the change
        after_main = containerd_toml.inspect(new_texts[path], path)
        defaults = nri_defaults(version, after_main.version)
        if dropin:
            after_drop = containerd_toml.inspect(new_texts[dropin_path], dropin_path)
            if whole_table_imports(version, after_main.version):
                nri = effective_nri(defaults, after_drop.nri or {})
            else:
                nri = effective_nri(defaults, after_main.nri or {}, after_drop.nri or {})
        else:
            nri = effective_nri(defaults, after_main.nri or {})

        writes = []
        diffs = []
        restore = []
        for file_path in paths:
            state = states[file_path]
            if state.exists and new_texts[file_path] == state.text:
                continue
            writes.append(dict(path=file_path, content=new_texts[file_path], expected_checksum=state.checksum,
                               mode='0644', backup=args['backup'], create_parents=True))
            diffs.append(make_diff(file_path, state.text if state.exists else None, new_texts[file_path]))
        commit = self.commit(writes, task_vars)
        backup_files = commit.get('backup_files') or {}
        for write in writes:
            file_path = write['path']
            if not states[file_path].exists:
                restore.append(dict(path=file_path, backup_file=None))
            elif file_path in backup_files:
                restore.append(dict(path=file_path, backup_file=backup_files[file_path]))

        changed = bool(commit.get('changed'))
        result = dict(
            changed=changed,
            restart_required=changed,
            config_version=after_main.version,
            containerd_version=str(version) if version is not None else None,
            nri=nri,
            path=path,
            mode=args['mode'],
            files=[w['path'] for w in writes],
            backup_files=backup_files,
            restore=restore,
        )
        if path in backup_files:
            result['backup_file'] = backup_files[path]
        if diffs and self._play_context.diff:
            result['diff'] = diffs[0] if len(diffs) == 1 else diffs
        if warnings:
            result['warnings'] = warnings
        return result
