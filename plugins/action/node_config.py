# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.node_config: kubelet_config, containerd_nri and kernel_cmdline in one task.

Each concern is done by its own plugin or module, unchanged (the same arguments, checks, messages and result);
what this task saves is the rest: one task instead of three, and one node_files read of the kubelet and containerd
files instead of one per concern."""
from __future__ import annotations

import copy

from ansible.errors import AnsibleActionFail
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.numaops.colocation.plugins.module_utils import containerd, kubelet, node_prep_concerns
# Imported here although only the concerns' own action plugins use them: ansible-playbook resolves the action
# plugin of every task in its main process before it forks the task's workers (the strategy loads the class), so
# ruamel.yaml and tomlkit are imported once per run there, instead of once in every worker of every plan and
# apply task (about 0.07 s of CPU each).
from ansible_collections.numaops.colocation.plugins.plugin_utils import containerd_toml, kubelet_yaml  # noqa: F401 pylint: disable=unused-import
# Likewise the concerns' own action plugins, which this one loads by name for every concern it runs.
from ansible_collections.numaops.colocation.plugins.action import containerd_nri, kubelet_config  # noqa: F401 pylint: disable=unused-import
from ansible_collections.numaops.colocation.plugins.plugin_utils.lock_first import lock_option
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import (
    CommittedBatch, NodeFilesAction, StaleRead, failure_text, keep, load_read,
)

# (option of this task, module that does it), in the order a real run applies them: node_prep's concerns
CONCERNS = tuple((concern.name, concern.module) for concern in node_prep_concerns.applying())
# options each concern's module always gets (two concerns sharing one module: perf_profile's write)
MODULE_ARGS = dict((concern.name, concern.module_args) for concern in node_prep_concerns.applying())
# what the result of a concern that was not asked for looks like
NOT_ASKED = {'changed': False, 'skipped': True}


def given(args):
    """The options of one concern with the unset ones (null) left out: null means "leave alone" for each of the
    three modules, and leaving it out lets the module apply its own default."""
    return dict((name, value) for name, value in (args or {}).items() if value is not None)


# each concern's module options with their defaults, for the files its plan reads first
_SPECS = {'kubelet': kubelet.ARGUMENT_SPEC, 'containerd': containerd.ARGUMENT_SPEC}


def paths_to_read(asked):
    """The files the kubelet and containerd plans read first (node_prep_concerns.read_paths_of, from the options
    asked with the modules' defaults): one node_files read for both. (A file only one of them reads later, such as a
    k3s template, is read by that plan itself.)"""
    filled = {}
    for name, spec in _SPECS.items():
        if name in asked:
            options = dict((option, value.get('default')) for option, value in spec.items())
            options.update((option, value) for option, value in asked[name].items() if value is not None)
            filled[name] = options
    return node_prep_concerns.read_paths_of(filled)


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


class _NeedsNode(Exception):
    """A plan of a concern that would need a call to the node (it cannot be planned ahead of the commit)."""


class ActionModule(NodeFilesAction):

    _VALID_ARGS = frozenset([name for name, _module in CONCERNS] + ['lock', 'snapshot', 'keep_read', 'reuse_read'])

    def _sub_action(self, module, args, play_context=None):
        task = self._task.copy()
        task.args = args
        task.action = module
        task._resolved_action = module
        action = self._shared_loader_obj.action_loader.get(
            module, task=task, connection=self._connection, play_context=play_context or self._play_context,
            loader=self._loader, templar=self._templar, shared_loader_obj=self._shared_loader_obj)
        action.file_cache = self.file_cache
        action.committed_batch = getattr(self, 'committed_batch', None)
        action.deferred = getattr(self, 'deferred', None)
        return action

    def _commit_together(self, asked, task_vars):
        """A real run of more than one file concern (kubelet, containerd): their commits in one node_files call
        instead of one each. Each concern is first planned here on the controller, from this task's read, in check
        mode (no call to the node: a plan that would need one, or that fails, leaves the concerns to commit one by
        one as before); then everything they would write and remove is committed at once (node_files checks every
        file before it writes any); then the concerns run for real and their commits are answered with their part of
        that call. Returns the failed result of that call, else None."""
        names = [name for name in ('kubelet', 'containerd') if name in asked]
        if len(names) < 2 or self._play_context.check_mode:
            return None
        planning = copy.copy(self._play_context)
        planning.check_mode = True
        commits = []
        for name in names:
            action = self._sub_action(dict(CONCERNS)[name], asked[name], play_context=planning)
            # its own copy of the read: a plan pops what it would write
            action.file_cache = dict(self.file_cache)
            action.committed_batch = None
            action.deferred = None
            action.commit_recorder = []

            def offline(*_args, **_kwargs):
                raise _NeedsNode()

            action._execute_module = offline
            try:
                res = action.run(task_vars=task_vars)
            except (AnsibleActionFail, _NeedsNode):
                return None
            if res.get('failed'):
                return None
            commits.extend(action.commit_recorder)
        commits = [(writes, remove) for writes, remove in commits if writes or remove]
        if len(commits) < 2:
            return None
        outcome = self.call_node_files(
            {'write': [item for writes, _remove in commits for item in writes],
             'remove': [path for _writes, remove in commits for path in remove]}, task_vars)
        if outcome.get('failed'):
            # node_files checks every file before it writes any: when it refused one, nothing was written, and the
            # concerns commit one by one as before (each then names its own refusal); when a write or removal
            # itself failed, some files may have been written: said as it is
            if not outcome.get('written'):
                return None
            return dict(outcome, commits=commits, names=names)
        self.committed_batch = CommittedBatch(commits, outcome)
        return None

    @staticmethod
    def _failed_together(asked, outcome, results):
        """The concerns' results when the one node_files call for all of them failed while writing: the concern
        of the file that failed is failed, those whose files were written before it unchanged (node_files put them
        back: ``put_back``) or changed (a node_files without that), the rest not run. Returns (failed, not_run)."""
        msg = failure_text(outcome)
        written = list(outcome.get('written') or [])
        put_back = list(outcome.get('put_back') or [])
        owners = []
        for name, (writes, remove) in zip(outcome['names'], outcome['commits']):
            owners.append((name, [item['path'] for item in writes] + list(remove)))
        # node_files names a file in written just before it writes it: the last one failed, unless a removal did
        culprit = None
        for name, paths in owners:
            if any(path in msg for path in paths):
                culprit = name
        if culprit is None:
            culprit = next(name for name, paths in owners if written[-1] in paths)
        failed, not_run = [culprit], []
        for name, module in CONCERNS:
            if name not in asked:
                continue
            paths = dict(owners).get(name, [])
            done = [path for path in written if path in paths and (name != culprit) and path not in put_back]
            back = [path for path in put_back if path in paths and name != culprit]
            if name == culprit:
                results[name] = dict(failed=True, changed=False, msg=msg)
            elif back:
                # node_files put back what it had written of this concern when the later file failed
                results[name] = dict(changed=False, put_back=back, msg='%s written, then put back as it was: %s '
                                     'failed in the same node_files call' % (', '.join(back), dict(CONCERNS)[culprit]))
            elif done:
                results[name] = dict(changed=True, written=done,
                                     msg='%s written together with the other files of this task' % ', '.join(done))
            else:
                not_run.append(module)
                results[name] = dict(changed=False, skipped=True,
                                     msg='not run: %s failed before it' % dict(CONCERNS)[culprit])
        return failed, not_run

    def _plain(self, module):
        """Whether ``module`` is a plain module (no action plugin of its own): run on the node as it is."""
        return not self._shared_loader_obj.action_loader.has_plugin(module)

    def _run_concern(self, name, module, args, task_vars):
        try:
            if self._plain(module):
                # a plain module (kernel_cmdline, which runs grubby/grub2-mkconfig/update-grub on the node;
                # perf_profile): it reads and writes on the node by itself
                res = self._execute_module(module_name=module, module_args=args, task_vars=task_vars)
            else:
                res = self._sub_action(module, args).run(task_vars=task_vars)
        except AnsibleActionFail as err:
            res = dict(getattr(err, 'result', None) or {})
            res.update(failed=True, changed=False, msg=err.message)
        res = dict(res)
        res.pop('invocation', None)
        return res

    def _concerns(self, asked, task_vars, result, warnings, lock, snapshot, reuse, keep_read):
        """Read (or take ``reuse``, an earlier task's read), plan, commit: every concern of ``asked``. Returns
        (results, failed, not_run); raises StaleRead when a file of ``reuse`` changed since (nothing was done)."""
        check_mode = bool(self._play_context.check_mode)
        results = {}
        failed = []
        not_run = []
        self.committed_batch = None
        self.deferred = None
        bookkeeping = lock is not None or snapshot is not None
        if reuse is not None:
            # nothing is read now: in a real run, the first call that writes (or reads what the earlier task did not)
            # also renews the lock, checks that every file read then is unchanged, and takes the snapshot, before
            # anything else. A plan (check mode) writes nothing: it judges from that read, as from its own
            # only what this task's concerns read: a file of a concern not asked here is neither used nor checked
            wanted = paths_to_read(asked)
            self.file_cache = dict((path, info) for path, info in reuse.items() if path in wanted)
            extra = {}
            if not check_mode:
                extra['expect'] = [{'path': path, 'checksum': info['checksum'] if info.get('exists') else 'absent'}
                                   for path, info in sorted(self.file_cache.items())]
            if lock is not None:
                extra['lock'] = lock
            if snapshot is not None:
                extra['snapshot'] = snapshot
            if extra:
                self.deferred = {'extra': extra, 'sent': False, 'warnings': warnings, 'bookkeeping': {}}
        else:
            # the lock and the snapshot (the role's apply) in the task's first call to the node, before any write;
            # when either fails, the task fails here, having written nothing, its result saying what was copied
            warnings.extend(self.prefetch(paths_to_read(asked), task_vars, lock=lock, snapshot=snapshot))
            if bookkeeping:
                result.update(self.bookkeeping)
                result.setdefault('snapshots', [])
        # what a plan read, before its check-mode commits take out what they would write
        kept = dict(self.file_cache) if keep_read else None
        together = self._commit_together(asked, task_vars)
        if together is not None:
            failed, not_run = self._failed_together(asked, together, results)
        for name, module in CONCERNS:
            if name in results:
                continue
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
        if self.deferred is not None:
            if not self.deferred['sent']:
                # nothing was written or read: the lock renewal, the check and the snapshot on their own
                self.call_node_files({'read': []}, task_vars)
            result.update(self.deferred['bookkeeping'])
            if bookkeeping:
                result.setdefault('snapshots', [])
        if kept and any(res.get('changed') for res in results.values()):
            result['read_token'] = keep(kept, task_vars.get('inventory_hostname'))
        return results, failed, not_run

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
            asked[name] = dict(given(value), **MODULE_ARGS[name])
        check_mode = bool(self._play_context.check_mode)
        lock = self._task.args.get('lock')
        snapshot = self._task.args.get('snapshot')
        if lock is not None:
            lock = lock_option(lock, 'numaops.colocation.node_config')
        if snapshot is not None and not (isinstance(snapshot, dict) and snapshot.get('dest')
                                         and isinstance(snapshot.get('paths'), list)):
            raise AnsibleActionFail('numaops.colocation.node_config: snapshot must be a dictionary with paths (a list '
                                    'of files), dest (the backup directory) and optionally strip_prefix (the '
                                    'snapshot option of numaops.colocation.node_files), not %r. Nothing was changed.'
                                    % (snapshot,))
        keep_read = boolean(self._task.args.get('keep_read', False), strict=False)
        reuse = None
        token = self._task.args.get('reuse_read')
        if token and (check_mode or not any(self._plain(dict(CONCERNS)[name]) for name in asked)):
            # an earlier task's read of this run (node_preflight's for the plan, the plan's for the apply) instead of
            # a read of its own; a real run not with a plain module (kernel, irqbalance, hugepages), which reads and
            # writes on the node by itself: the lock renewal and the snapshot must come in a call before its write
            reuse = load_read(token, task_vars.get('inventory_hostname'))
        warnings = []
        try:
            try:
                results, failed, not_run = self._concerns(asked, task_vars, result, warnings, lock, snapshot, reuse,
                                                          keep_read)
            except StaleRead as err:
                # a file changed on the node since the plan read it (a running kubelet rewrites its checkpoints):
                # that call did nothing; read and plan again, as without reuse_read
                result['read_again'] = list(err.args[0])
                result.pop('deprecations', None)
                results, failed, not_run = self._concerns(asked, task_vars, result, warnings, lock, snapshot, None,
                                                          keep_read)
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
