# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Backend grubcfg (never picked automatically): the linux/linux16/linuxefi lines of existing grub.cfg files are
edited in place (every other line kept byte for byte), each checked with grub-script-check before it goes in, for
systems where regeneration is not wanted."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.base import Backend, Plan
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.node import read_text
from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import CmdlineError
from ansible_collections.numaops.colocation.plugins.module_utils.grub import (
    edit_grub_cfg,
    grub_cfg_default_cmdline,
    grub_cfg_linux_lines,
)
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import MAX_GRUB_CFG_BYTES


class GrubCfg(Backend):

    NAME = 'grubcfg'

    def read(self):
        node = self.node
        defaults = node.plan_defaults(required=False)
        kcmd = node.plan_kernel_cmdline()
        current = []
        for path in node.targets(self.NAME):
            before = read_text(path)
            if not grub_cfg_linux_lines(before):
                raise CmdlineError('%s has no linux/linux16/linuxefi line to edit (BLS or stub config?); '
                                   'choose backend grubby or grub2-mkconfig' % path)
            current.append((path, before))
        return dict(defaults=defaults, kcmd=kcmd, current=current)

    def plan(self, state):
        node = self.node
        (before_defaults, after_defaults), kcmd = state['defaults'], state['kcmd']
        edits = []
        for path, before in state['current']:
            after = edit_grub_cfg(before, node.present, node.absent)
            if after != before:
                node.writable(path)
            edits.append((path, before, after))
            node.add_diff(path, before, after)
        changed_paths = [edit[0] for edit in edits if edit[1] != edit[2]]
        changed = bool(changed_paths) or before_defaults != after_defaults or bool(kcmd and kcmd[1] != kcmd[2])
        next_tokens = grub_cfg_default_cmdline(edits[0][2]) if edits else None
        return Plan(changed, changed_paths, next_tokens, edits=edits, **state)

    def write(self, plan):
        node = self.node
        staged = []
        try:
            for path, before, after in plan.details['edits']:
                if before == after:
                    continue
                tmp = node.mkstemp(path)
                staged.append((path, tmp))
                node.write_tmp(tmp, path, after)
                node.script_check(tmp)
            node.apply_defaults(*plan.details['defaults'])
            node.install_staged(staged)
            node.apply_kernel_cmdline(plan.details['kcmd'])
        finally:
            for _path, tmp in staged:
                node.drop_tmp(tmp)

    def verify(self, plan):
        for path, before, after in plan.details['edits']:
            if before != after and read_text(path, MAX_GRUB_CFG_BYTES) != after:
                raise CmdlineError('%s does not hold the edited grub.cfg once it was put in place (another process '
                                   'writes it?)' % path)
