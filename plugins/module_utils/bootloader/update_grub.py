# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Backend update-grub (Debian, Ubuntu): update-grub is ``grub-mkconfig -o /boot/grub/grub.cfg``, so this is
the grub2-mkconfig backend with Debian's generator and Debian's grub.cfg (created when missing)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.grub2_mkconfig import MKCONFIG, Grub2Mkconfig
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.node import SBIN


class UpdateGrub(Grub2Mkconfig):

    NAME = 'update-grub'
    TOOLS = (('update-grub', ('update_grub_path', ('update-grub',))), MKCONFIG)

    @staticmethod
    def detect(tools, boot_dir, etc_dir, bls_dir):
        if not (tools.get('update-grub') and tools.get('grub-mkconfig')):
            return None
        # Debian/Ubuntu have no <boot>/grub2; with one, grub2-mkconfig (rank 30) is tried first
        return 20 if not os.path.isdir(os.path.join(boot_dir, 'grub2')) else 40

    def generator(self):
        node = self.node
        mkconfig = node.tools['grub-mkconfig']
        if mkconfig and not node.p['grub_mkconfig_path'] and os.path.basename(mkconfig) == 'grub2-mkconfig':
            mkconfig = node.module.get_bin_path('grub-mkconfig', opt_dirs=SBIN) or mkconfig
        return mkconfig
