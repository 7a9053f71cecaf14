# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Backend grub2-mkconfig (openEuler, RHEL without BLS): /etc/default/grub is edited, then every real grub.cfg (BIOS
and EFI, through the /etc/grub2*.cfg links and EFI configfile stubs) is generated into a temporary file next to it,
checked (grub-script-check, and that it carries the arguments) and only then put in place."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.base import Backend, Plan
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.node import StepFailed, read_text
from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import (
    CmdlineError,
    edit_tokens,
    grub_defaults_cmdline,
    unsatisfied,
)
from ansible_collections.numaops.colocation.plugins.module_utils.grub import (
    grub_cfg_candidates,
    grub_cfg_default_cmdline,
    grub_cfg_linux_lines,
    predict_generated_cfg,
)
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import MAX_GRUB_CFG_BYTES

MKCONFIG = ('grub-mkconfig', ('grub_mkconfig_path', ('grub2-mkconfig', 'grub-mkconfig')))


class Grub2Mkconfig(Backend):

    NAME = 'grub2-mkconfig'
    TOOLS = (MKCONFIG,)

    @staticmethod
    def detect(tools, boot_dir, etc_dir, bls_dir):
        if tools.get('grub-mkconfig') and grub_cfg_candidates('grub2-mkconfig', boot_dir, etc_dir)[0]:
            return 30
        return None

    def generator(self):
        """The grub-mkconfig to run."""
        return self.node.tools['grub-mkconfig']

    def read(self):
        node = self.node
        self.mkconfig = self.generator()
        if not self.mkconfig:
            raise CmdlineError('backend %s: neither grub2-mkconfig nor grub-mkconfig was found; install grub or '
                               'give grub_mkconfig_path' % self.NAME)
        defaults = node.plan_defaults(required=True)
        kcmd = node.plan_kernel_cmdline()
        targets = node.targets(self.NAME)
        current = {}
        for t in targets:
            current[t] = read_text(t) if os.path.isfile(t) else ''
        return dict(defaults=defaults, kcmd=kcmd, targets=targets, current=current)

    def plan(self, state):
        node = self.node
        (before_defaults, after_defaults), kcmd = state['defaults'], state['kcmd']
        targets, current = state['targets'], state['current']
        stale = [t for t in targets if not node.cfg_satisfied(current[t])]
        for t in targets:
            if 'blscfg' in current[t] and not grub_cfg_linux_lines(current[t]):
                raise CmdlineError('%s boots BLS entries (blscfg) and has no linux line: the arguments live in the '
                                   'BLS entries; use backend grubby' % t)
        defaults_changed = before_defaults != after_defaults
        regen = targets if defaults_changed else stale
        for t in regen:
            if os.path.exists(t):
                node.writable(t)
        changed = bool(regen) or bool(kcmd and kcmd[1] != kcmd[2])
        path = node.p['grub_defaults_path']
        vars_before = grub_defaults_cmdline(before_defaults, path)
        vars_after = grub_defaults_cmdline(after_defaults, path)
        # the first linux line as grub-mkconfig will write it; without a grub.cfg yet only the arguments from
        # /etc/default/grub are known (root= and ro come from the generator)
        predicted = dict((t, predict_generated_cfg(current[t], vars_before, vars_after, node.present, node.absent))
                         for t in targets)
        next_tokens = grub_cfg_default_cmdline(predicted[targets[0]]) or edit_tokens(
            vars_after['GRUB_CMDLINE_LINUX'] + vars_after['GRUB_CMDLINE_LINUX_DEFAULT'], [], [])
        if not changed or node.check_mode:
            for t in regen:
                node.add_diff(t, current[t], predicted[t])
        return Plan(changed, regen, next_tokens, installed={}, **state)

    def write(self, plan):
        node = self.node
        regen, targets, current = plan.paths, plan.details['targets'], plan.details['current']
        if not regen:
            node.apply_kernel_cmdline(plan.details['kcmd'])
            return
        path = node.p['grub_defaults_path']
        node.apply_defaults(*plan.details['defaults'])
        staged = []
        try:
            for t in regen:
                tmp = node.mkstemp(t)
                staged.append((t, tmp))
                rc, out, err = node.run_cmd([self.mkconfig, '-o', tmp])
                if rc != 0:
                    raise CmdlineError('%s -o %s failed (rc=%d): %s; nothing was installed'
                                       % (self.mkconfig, t, rc, (err or out).strip()[-2000:]))
                node.script_check(tmp)
                try:
                    text = read_text(tmp, MAX_GRUB_CFG_BYTES)
                except (IOError, OSError, CmdlineError) as exc:
                    raise StepFailed('cannot read the grub.cfg generated for %s (%s): %s; nothing was installed'
                                     % (t, tmp, to_native(exc)))
                if not node.cfg_satisfied(text):
                    lines = grub_cfg_linux_lines(text)
                    missing = unsatisfied(lines[0][2], node.present, node.absent) if lines else ['any linux line']
                    raise CmdlineError(
                        'the grub.cfg generated for %s by %s does not carry %s (snippets in %s.d/ overriding '
                        'GRUB_CMDLINE_LINUX*, or a BLS layout?); nothing was installed'
                        % (t, self.mkconfig, ', '.join(missing), path))
                node.add_diff(t, current[t], text)
                plan.details['installed'][t] = text
                if t == targets[0]:
                    plan.next_tokens = grub_cfg_default_cmdline(text)
            node.install_staged(staged)
            node.apply_kernel_cmdline(plan.details['kcmd'])
        finally:
            for _t, tmp in staged:
                node.drop_tmp(tmp)

    def verify(self, plan):
        for t, text in plan.details['installed'].items():
            if read_text(t, MAX_GRUB_CFG_BYTES) != text:
                raise CmdlineError('%s does not hold the grub.cfg that was generated and checked for it once it was '
                                   'put in place (another process writes it?)' % t)
