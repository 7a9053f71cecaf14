# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Backend grubby (RHEL, Fedora, openEuler with BLS entries): ``grubby --update-kernel=ALL`` changes every BLS
entry; /etc/default/grub and /etc/kernel/cmdline are kept in step so that kernels installed later inherit the
arguments."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.base import Backend, Plan
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.node import DEFAULT_BLS_DIR, read_text
from ansible_collections.numaops.colocation.plugins.module_utils import cmdline_hugepages as hugepages
from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import (
    CmdlineError,
    bls_options,
    edit_tokens,
    token_key,
    tokenize,
    unsatisfied,
)
from ansible_collections.numaops.colocation.plugins.module_utils.grub import bls_entries


class Grubby(Backend):

    NAME = 'grubby'
    TOOLS = (('grubby', ('grubby_path', ('grubby',))),)

    @staticmethod
    def detect(tools, boot_dir, etc_dir, bls_dir):
        return 10 if tools.get('grubby') and bls_entries(bls_dir) else None

    def cmd(self, *args):
        node = self.node
        cmd = [node.tools['grubby']] + list(args)
        if os.path.normpath(node.bls_dir) != DEFAULT_BLS_DIR:
            cmd.append('--bls-directory=%s' % node.bls_dir)
        return cmd

    def info(self, which):
        rc, out, err = self.node.run_cmd(self.cmd('--info=%s' % which))
        if rc != 0:
            raise CmdlineError('grubby --info=%s failed (rc=%d): %s' % (which, rc, (err or out).strip()))
        entries = []
        for line in out.splitlines():
            if '=' not in line:
                continue
            key, value = line.split('=', 1)
            if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
                value = value[1:-1]
            if key == 'index':
                entries.append({'index': value})
            elif entries:
                entries[-1][key] = value
        for e in entries:
            toks = tokenize(e.get('args', ''))
            if e.get('root') and not any(token_key(t) == 'root' for t in toks):
                toks = ['root=%s' % e['root']] + toks
            e['tokens'] = toks
        return entries

    def read(self):
        node = self.node
        if not node.tools['grubby']:
            raise CmdlineError('backend grubby: grubby was not found; install it or give grubby_path')
        if not bls_entries(node.bls_dir):
            raise CmdlineError('backend grubby: no BLS entries (*.conf) in %s; give bls_dir or choose another backend'
                               % node.bls_dir)
        defaults = node.plan_defaults(required=False)
        kcmd = node.plan_kernel_cmdline()
        entries = self.info('ALL')
        if not entries:
            raise CmdlineError('grubby --info=ALL lists no boot entries (BLS directory %s)' % node.bls_dir)
        try:
            default = self.info('DEFAULT')[0]
        except (CmdlineError, IndexError):
            default = entries[0]
            node.notes.append('grubby --info=DEFAULT gave no entry; the first entry stands for the default')
        return dict(defaults=defaults, kcmd=kcmd, entries=entries, default=default)

    def plan(self, state):
        node = self.node
        entries, (before_defaults, after_defaults), kcmd = state['entries'], state['defaults'], state['kcmd']
        todo = [e for e in entries if unsatisfied(e['tokens'], node.present, node.absent)]
        files = [f for f in bls_entries(node.bls_dir)
                 if unsatisfied(tokenize(bls_options(read_text(f)) or ''), node.present, node.absent)]
        changed = bool(todo) or (before_defaults != after_defaults) or bool(kcmd and kcmd[1] != kcmd[2])
        next_tokens = edit_tokens(state['default']['tokens'], node.present, node.absent, 'append')
        # the arguments of the one grubby call, worked out (or refused) before anything is changed, in check mode too
        add, remove = self.arguments(todo)
        return Plan(changed, files, next_tokens, todo=todo, files=files, add=add, remove=remove, **state)

    def write(self, plan):
        node = self.node
        todo, entries = plan.details['todo'], plan.details['entries']
        add, remove = plan.details['add'], plan.details['remove']
        snapshot = dict((f, read_text(f)) for f in bls_entries(node.bls_dir))
        plan.details['snapshot'] = snapshot
        if todo:
            for f in plan.details['files']:
                node.backup(f)
            for f in snapshot:
                node.remember(f)
            cmd = ['--update-kernel=ALL']
            if remove:
                cmd.append('--remove-args=%s' % ' '.join(remove))
            if add:
                cmd.append('--args=%s' % ' '.join(add))
            rc, out, err = node.run_cmd(self.cmd(*cmd))
            if rc != 0:
                raise CmdlineError('grubby %s failed (rc=%d): %s'
                                   % (' '.join(cmd), rc, (err or out).strip()))
            # grubby's own result, before any other file is written
            expected = dict((e.get('id') or e['index'], edit_tokens(e['tokens'], node.present, node.absent, 'append'))
                            for e in entries)
            for e in self.info('ALL'):
                want = expected.get(e.get('id') or e['index'])
                if want is None or tokenize(' '.join(want)) != tokenize(' '.join(e['tokens'])) \
                        or unsatisfied(e['tokens'], node.present, node.absent):
                    raise CmdlineError(
                        'grubby %s left entry %s with args %r where %r was expected (grubby splits arguments on '
                        'blanks, so quoted values with spaces cannot go through it)'
                        % (' '.join(cmd), e.get('title') or e.get('kernel'), ' '.join(e['tokens']),
                           ' '.join(want or [])))
        node.apply_defaults(*plan.details['defaults'])
        node.apply_kernel_cmdline(plan.details['kcmd'])

    def arguments(self, todo):
        """(--args words, --remove-args words) that turn every entry of ``todo`` into what edit_tokens gives (append
        style, as grubby works: a changed key is removed everywhere and its final values appended). A key changed on
        the entries gets its final values of the edited entry - the node's values of a key of LIST_KEYS kept, every
        huge page argument in the order the merge gives (cmdline_hugepages) - and must come out the same on every
        entry, since one grubby call changes them all; its removal is repeated once per occurrence, as grubby's
        removal drops one occurrence of a key per word."""
        node = self.node
        add, remove = [], []
        plain_absent = [k for k in node.absent if k not in hugepages.absent_names(node.absent)]
        keys = list(node.present)
        if hugepages.absent_names(node.absent) and hugepages.BUNDLE not in dict(keys):
            keys.append((hugepages.BUNDLE, []))
        for key, values in keys:
            want = [(key, values)] if values else []
            absent = hugepages.absent_names(node.absent) if key == hugepages.BUNDLE else []
            changing = [e for e in todo if unsatisfied(e['tokens'], want, absent)]
            if not changing:
                continue
            match = hugepages.is_hugepage_token if key == hugepages.BUNDLE else (lambda t, k=key: token_key(t) == k)
            finals = []
            for e in changing:
                final = [t for t in edit_tokens(e['tokens'], want, absent, 'append') if match(t)]
                if final not in finals:
                    finals.append(final)
            if len(finals) > 1:
                raise CmdlineError(
                    'grubby changes every boot entry with one set of arguments, but the entries need different %s '
                    'arguments (%s); nothing was changed. Make the entries agree first (grubby --info=ALL)'
                    % ('huge page' if key == hugepages.BUNDLE else key, ' / '.join(' '.join(f) for f in finals)))
            add.extend(finals[0])
            counts = {}
            for e in changing:
                seen = {}
                for t in e['tokens']:
                    if match(t):
                        spelled = t.replace('"', '').split('=', 1)[0]
                        seen[spelled] = seen.get(spelled, 0) + 1
                for spelled, n in seen.items():
                    counts[spelled] = max(counts.get(spelled, 0), n)
            for spelled in sorted(counts):
                remove.extend([spelled] * counts[spelled])
        for e in todo:
            for t in e['tokens']:
                spelled = t.replace('"', '').split('=', 1)[0]
                if token_key(t) in plain_absent and spelled not in remove:
                    remove.append(spelled)
        return add, remove

    def verify(self, plan):
        node = self.node
        snapshot = plan.details['snapshot']
        plan.paths = [f for f in snapshot if os.path.exists(f) and read_text(f) != snapshot[f]]
        for f in plan.paths:
            node.add_diff(f, snapshot[f], read_text(f))
        plan.changed = True
        try:
            plan.next_tokens = self.info('DEFAULT')[0]['tokens']
        except (CmdlineError, IndexError):
            pass
