# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.node_config: kubelet_config, containerd_nri and kernel_cmdline in one task.

Each concern is done by its own plugin or module, unchanged (the same arguments, checks, messages and result);
what this task saves is the rest: one task instead of three, and one node_files read of the kubelet and containerd
files instead of one per concern."""
from __future__ import annotations

import posixpath

from ansible.errors import AnsibleActionFail

from ansible_collections.numaops.colocation.plugins.module_utils import containerd, kubelet
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import NodeFilesAction

# (option of this task, module that does it), in the order a real run applies them
CONCERNS = (
    ('kubelet', 'numaops.colocation.kubelet_config'),
    ('containerd', 'numaops.colocation.containerd_nri'),
    ('kernel', 'numaops.colocation.kernel_cmdline'),
)
# what the result of a concern that was not asked for looks like
NOT_ASKED = {'changed': False, 'skipped': True}


def given(args):
    """The options of one concern with the unset ones (null) left out: null means "leave alone" for each of the
    three modules, and leaving it out lets the module apply its own default."""
    return dict((name, value) for name, value in (args or {}).items() if value is not None)


def paths_to_read(asked):
    """The files the kubelet and containerd plans read first, with the modules' defaults: one node_files read for
    both. (A file only one of them reads later, such as a k3s template, is read by that plan itself.)"""
    paths = []
    if 'kubelet' in asked:
        args = asked['kubelet']
        state_dir = args.get('state_dir') or kubelet.DEFAULT_STATE_DIR
        paths.extend([args.get('path') or kubelet.DEFAULT_PATH, posixpath.join(state_dir, kubelet.CPU_STATE_FILE),
                      posixpath.join(state_dir, kubelet.MEMORY_STATE_FILE)])
    if 'containerd' in asked:
        args = asked['containerd']
        paths.append(args.get('path') or containerd.DEFAULT_PATH)
        if args.get('mode') == 'dropin':
            paths.append(args.get('dropin_path') or containerd.DEFAULT_DROPIN_PATH)
    unique = []
    for path in paths:
        if path not in unique:
            unique.append(path)
    return unique


def flat_diffs(results):
    """Every concern's diff (a dict or a list of dicts) as one list, in concern order."""
    diffs = []
    for name, _module in CONCERNS:
        diff = results.get(name, {}).get('diff')
        if isinstance(diff, dict):
            diffs.append(diff)
        elif isinstance(diff, list):
            diffs.extend(diff)
    return diffs


def summary(results, failed):
    """One line per concern that ran, naming it: what it did, or why it failed."""
    lines = []
    for name, module in CONCERNS:
        res = results[name]
        if res.get('skipped'):
            continue
        if name in failed:
            lines.append('%s: FAILED: %s' % (module, res.get('msg') or 'failed'))
        elif res.get('msg'):
            lines.append('%s: %s' % (module, res['msg']))
        else:
            lines.append('%s: %s' % (module, 'changed' if res.get('changed') else 'ok'))
    return lines


class ActionModule(NodeFilesAction):

    _VALID_ARGS = frozenset(name for name, _module in CONCERNS)

    def _sub_action(self, module, args):
        task = self._task.copy()
        task.args = args
        task.action = module
        task._resolved_action = module
        action = self._shared_loader_obj.action_loader.get(
            module, task=task, connection=self._connection, play_context=self._play_context, loader=self._loader,
            templar=self._templar, shared_loader_obj=self._shared_loader_obj)
        action.file_cache = self.file_cache
        return action

    def _run_concern(self, name, module, args, task_vars):
        try:
            if name == 'kernel':
                # a plain module: it runs grubby/grub2-mkconfig/update-grub on the node
                res = self._execute_module(module_name=module, module_args=args, task_vars=task_vars)
            else:
                res = self._sub_action(module, args).run(task_vars=task_vars)
        except AnsibleActionFail as err:
            res = dict(getattr(err, 'result', None) or {})
            res.update(failed=True, changed=False, msg=err.message)
        res = dict(res)
        res.pop('invocation', None)
        return res

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        self._supports_async = False
        task_vars = task_vars or {}
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        asked = {}
        for name, _module in CONCERNS:
            value = self._task.args.get(name)
            if value is None:
                continue
            if not isinstance(value, dict):
                raise AnsibleActionFail('numaops.colocation.node_config: %s must be a dictionary of the options of %s '
                                        '(or left out to leave it alone), not %s %r. Nothing was changed.'
                                        % (name, dict(CONCERNS)[name], type(value).__name__, value))
            asked[name] = given(value)
        check_mode = bool(self._play_context.check_mode)
        warnings = self.prefetch(paths_to_read(asked), task_vars)
        results = {}
        failed = []
        not_run = []
        try:
            for name, module in CONCERNS:
                if name not in asked:
                    results[name] = dict(NOT_ASKED)
                elif failed and not check_mode:
                    # a real run stops at the first failure: what comes after it is not touched
                    not_run.append(module)
                    results[name] = dict(changed=False, skipped=True,
                                         msg='not run: %s failed before it' % dict(CONCERNS)[failed[0]])
                else:
                    res = self._run_concern(name, module, asked[name], task_vars)
                    warnings.extend(res.pop('warnings', None) or [])
                    result.setdefault('deprecations', []).extend(res.pop('deprecations', None) or [])
                    if res.get('failed'):
                        failed.append(name)
                    results[name] = res
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        if not result.get('deprecations'):
            result.pop('deprecations', None)
        lines = summary(results, failed)
        result.update(results)
        result['changed'] = any(res.get('changed') for res in results.values())
        result['failed_concerns'] = failed
        if failed:
            done = [dict(CONCERNS)[name] for name in results if name not in failed and results[name].get('changed')]
            result['failed'] = True
            result['msg'] = ' '.join(
                ['; '.join(line for line in lines if ': FAILED: ' in line)]
                + ((['(Planned without a problem: %s would change files.)' % ', '.join(done)] if check_mode else
                    ['(%s had changed its files before that.)' % ', '.join(done)]) if done else [])
                + (['(Not run: %s.)' % ', '.join(not_run)] if not_run else []))
        else:
            result['msg'] = '; '.join(lines) if lines else 'nothing asked (kubelet, containerd and kernel left out)'
        if self._play_context.diff:
            diffs = flat_diffs(results)
            if diffs:
                result['diff'] = diffs
        if warnings:
            result['warnings'] = warnings
        return result
