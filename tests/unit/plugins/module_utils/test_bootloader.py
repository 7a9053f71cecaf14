# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The boot-loader backend registry (module_utils/bootloader) and its developer guide."""
from __future__ import annotations

import os
import re

from ansible_collections.numaops.colocation.plugins.module_utils import bootloader
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.base import Backend
from ansible_collections.numaops.colocation.plugins.modules import kernel_cmdline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def test_registry_names_and_tool_options_make_the_argument_spec():
    assert bootloader.names() == ['grubby', 'grub2-mkconfig', 'update-grub', 'grubcfg']
    assert all(issubclass(backend, Backend) for backend in bootloader.BACKENDS)
    spec = kernel_cmdline.argument_spec()
    assert spec['backend']['choices'] == ['auto'] + bootloader.names()
    assert bootloader.tool_options() == ['grubby_path', 'grub_mkconfig_path', 'update_grub_path']
    for option in bootloader.tool_options():
        assert spec[option] == dict(type='path')


def test_every_backend_has_its_own_file_and_is_found_by_name():
    for backend in bootloader.BACKENDS:
        assert bootloader.by_name(backend.NAME) is backend
        module_file = backend.__module__.rsplit('.', 1)[1]
        assert os.path.exists(os.path.join(ROOT, 'plugins', 'module_utils', 'bootloader', module_file + '.py'))


def test_developer_guide_shows_the_grubcfg_backend_as_it_is():
    with open(os.path.join(ROOT, 'docs', 'developer', 'bootloader_backends.md')) as handle:
        guide = handle.read()
    with open(os.path.join(ROOT, 'plugins', 'module_utils', 'bootloader', 'grubcfg.py')) as handle:
        code = handle.read()
    blocks = re.findall(r'```python\n(.*?)```', guide, re.S)
    assert code in blocks
