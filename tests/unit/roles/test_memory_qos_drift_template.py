# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The memory_qos role's drift lines (roles/memory_qos/templates/drift.j2), rendered by Ansible's own templar."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

try:  # ansible-core 2.19: only trusted text is a template
    from ansible.template import trust_as_template
except ImportError:  # older ansible-core: every string is
    def trust_as_template(text):
        return text

TEMPLATE = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'roles', 'memory_qos', 'templates', 'drift.j2')


def render(result):
    with open(TEMPLATE) as handle:
        text = handle.read()
    templar = Templar(loader=DataLoader(), variables={'memory_qos_result': result})
    return json.loads(templar.template(trust_as_template(text)))


def test_drift_lines_say_what_systemd_held():
    result = {
        'pods': [{'namespace': 'prod', 'name': 'web', 'config_name': 'online', 'containers': [
            {'name': 'a', 'drift': ['memory.high', 'memory.low'], 'expected': {'memory.high': '8192', 'memory.low': '4096'},
             'actual': {'memory.high': 'max', 'memory.low': '4096'}, 'held': {'memory.low': '0'}},
            {'name': 'b', 'drift': ['memory.min'], 'expected': {'memory.min': '4096'}, 'actual': {'memory.min': '4096'},
             'held': {'memory.min': None}},
            {'name': 'c', 'drift': [], 'expected': {}, 'actual': {}, 'held': {}},
            {'name': 'skipped', 'drift': [], 'expected': {}, 'actual': None, 'skipped': 'gone'},
        ]}],
        'levels': [{'cgroup': 'kubepods.slice', 'level': 'kubepods', 'drift': ['memory.min'],
                    'expected': {'memory.min': '8192'}, 'actual': {'memory.min': '8192'}, 'held': {'memory.min': '0'}},
                   {'cgroup': 'kubepods.slice/kubepods-burstable.slice', 'level': 'qos', 'drift': ['memory.low'],
                    'expected': {'memory.low': '8192'}, 'actual': {'memory.low': '0'}}],
    }
    assert render(result) == [
        {'pod': 'prod/web', 'container': 'a', 'config': 'online',
         'differ': ['memory.high max -> 8192', 'memory.low 4096 (systemd held 0) -> 4096']},
        {'pod': 'prod/web', 'container': 'b', 'config': 'online', 'differ': ['memory.min 4096 (systemd held ?) -> 4096']},
        {'pod': 'kubepods.slice', 'container': '(kubepods level)', 'config': None,
         'differ': ['memory.min 8192 (systemd held 0) -> 8192']},
        {'pod': 'kubepods.slice/kubepods-burstable.slice', 'container': '(qos level)', 'config': None,
         'differ': ['memory.low 0 -> 8192']},
    ]
