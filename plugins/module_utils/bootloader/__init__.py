# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Boot-loader backends of kernel_cmdline: the one place they are registered.

A backend is one file in this package (a subclass of base.Backend) and one line in BACKENDS below; its name is a
choice of kernel_cmdline's backend option, its TOOLS the executables it looks up, its detect() whether
backend=auto picks it. See docs/developer/bootloader_backends.md."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.grubby import Grubby
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.grub2_mkconfig import Grub2Mkconfig
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.update_grub import UpdateGrub
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.grubcfg import GrubCfg

# the registered backends, in the order their tools are looked up
BACKENDS = (Grubby, Grub2Mkconfig, UpdateGrub, GrubCfg)


class BootLoaderError(Exception):
    """No usable boot loader layout; the message says what was looked for."""


def names():
    """The backend option's choices besides auto."""
    return [backend.NAME for backend in BACKENDS]


def by_name(name):
    for backend in BACKENDS:
        if backend.NAME == name:
            return backend
    raise KeyError(name)


def tool_specs():
    """((tool name, (option, names)), ...) of every registered backend, in order."""
    return tuple(spec for backend in BACKENDS for spec in backend.TOOLS)


def tool_options():
    """The path options of the backends' tools (for the argument spec)."""
    options = []
    for _name, (option, _names) in tool_specs():
        if option not in options:
            options.append(option)
    return options


def detect_backend(tools, boot_dir='/boot', etc_dir='/etc', bls_dir=None):
    """The name of the backend backend=auto picks: the lowest rank of the registered backends' detect().

    ``tools`` maps each tool name ('grubby', 'grub-mkconfig' (grub2-mkconfig or grub-mkconfig), 'update-grub') to a
    path or None."""
    bls_dir = bls_dir or os.path.join(boot_dir, 'loader', 'entries')
    ranked = []
    for backend in BACKENDS:
        rank = backend.detect(tools, boot_dir, etc_dir, bls_dir)
        if rank is not None:
            ranked.append((rank, backend.NAME))
    if ranked:
        return min(ranked)[1]
    found = ', '.join('%s=%s' % (k, v) for k, v in sorted(tools.items()) if v) or 'none'
    raise BootLoaderError(
        'no supported boot loader found: looked for grubby with BLS entries in %s, update-grub '
        '(Debian/Ubuntu), grub2-mkconfig/grub-mkconfig with a grub.cfg under %s (or %s/grub2*.cfg); '
        'tools found: %s. Install the grub tools, point grubby_path/grub_mkconfig_path/update_grub_path '
        'at them, or set backend=grubcfg with grub_cfg_paths to edit grub.cfg directly'
        % (bls_dir, boot_dir, etc_dir, found))
