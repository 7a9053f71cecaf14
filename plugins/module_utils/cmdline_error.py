# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The error of the kernel argument helpers (cmdline.py, cmdline_hugepages.py), imported by both."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class CmdlineError(ValueError):
    """Bad input: the message says what, where and what is allowed."""
