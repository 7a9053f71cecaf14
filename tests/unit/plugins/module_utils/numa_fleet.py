# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fleet of numa_facts results from the recorded trees, shared by the report tests."""
from __future__ import annotations

import json
import os

from ansible_collections.numaops.colocation.plugins.module_utils import numa
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree as numa_tree

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
SANDBOX = os.path.join(REPO, 'examples', 'sandbox', 'tree')
TREES = {'xeon-1': 'xeon8358-2s', 'tx2-1': 'thunderx2-2s', 'epyc-1': 'synthetic-8numa'}


def facts_of(tree):
    root = numa_tree(tree)
    with open(os.path.join(root, 'pods.json')) as handle:
        return numa.collect(root, pods=json.load(handle))


def fleet(extra_nodes=0):
    """The recorded trees, the sandbox, a node that could not be read, and extra_nodes copies of the Xeon."""
    entries = [{'name': name, 'facts': facts_of(tree)} for name, tree in sorted(TREES.items())]
    entries.append({'name': 'sandbox-1', 'facts': numa.collect(SANDBOX), 'drift': True})
    entries.append({'name': 'down-1', 'facts': None, 'error': 'unreachable'})
    xeon = facts_of('xeon8358-2s')
    entries.extend({'name': 'rack%02d-node%03d' % (i // 40, i), 'facts': xeon} for i in range(extra_nodes))
    return entries
