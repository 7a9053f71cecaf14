# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""TOML on stdin -> JSON on stdout (the tests read `containerd config dump` with it)."""
import json
import sys

import tomlkit

json.dump(tomlkit.parse(sys.stdin.read()).unwrap(), sys.stdout, default=str)
