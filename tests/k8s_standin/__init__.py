# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A stand-in for the Kubernetes API server, for tests (see README.md next to this file)."""
from __future__ import annotations

from .server import ApiError, StandIn, random_token  # noqa: F401

__all__ = ['ApiError', 'StandIn', 'random_token']
