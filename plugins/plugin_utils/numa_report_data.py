# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the fleet NUMA report and the node_exporter textfile tell of numa_facts results, before either draws or
writes it: the kubelet's policies, whether a node drifts and why, and the report's data (its JSON; filter
numa_report_json). The HTML drawing is numa_report.py, the textfile numa_textfile.py. Pure functions, standard
library only.

A fleet is ``[{'name': host, 'facts': <numaops_numa>, 'drift': bool or None, 'last_run': epoch or None}]``.
"""

from __future__ import annotations

import json

REPORT_SCHEMA = 1

NO_KUBELET = 'no kubelet'


def record(facts, name):
    """Where the kubelet's placement was read: the checkpoint file ``name`` or its pod-resources API."""
    used = (((facts.get('kubelet') or {}).get('source') or {}).get('used'))
    return 'the running kubelet (pod-resources API)' if used == 'pod_resources' else name


def policies(facts):
    if (facts.get('kubelet') or {}).get('found') is False:
        keys = ('cpu_manager', 'topology_manager', 'memory_manager', 'cpu_manager_state', 'memory_manager_state')
        return dict((key, NO_KUBELET) for key in keys)
    config = ((facts.get('kubelet') or {}).get('config')) or {}
    cpu = ((facts.get('kubelet') or {}).get('cpu_manager') or {}).get('policy')
    mem = ((facts.get('kubelet') or {}).get('memory_manager') or {}).get('policy')
    return {
        'cpu_manager': config.get('cpuManagerPolicy') or ('none (default)' if config or cpu else None),
        'topology_manager': config.get('topologyManagerPolicy') or ('none (default)' if config else None),
        'memory_manager': config.get('memoryManagerPolicy') or ('None (default)' if config or mem else None),
        'cpu_manager_state': cpu,
        'memory_manager_state': mem,
    }


def node_drift(facts):
    """Why the running kubelet differs from its configuration, as read on the node (empty: no drift seen).

    The state files record the policy the kubelet last ran with; a configuration naming another one has not
    been applied yet (the kubelet was not restarted, or refused to start)."""
    reasons = []
    kubelet = facts.get('kubelet') or {}
    config = kubelet.get('config')
    if config is None:
        return reasons
    cpu_state = (kubelet.get('cpu_manager') or {}).get('policy')
    cpu_config = config.get('cpuManagerPolicy') or 'none'
    if cpu_state is not None and cpu_state != cpu_config:
        reasons.append('cpuManagerPolicy is %s in the configuration, %s in %s' % (cpu_config, cpu_state, record(facts, 'cpu_manager_state')))
    mem_state = (kubelet.get('memory_manager') or {}).get('policy')
    mem_config = config.get('memoryManagerPolicy') or 'None'
    if mem_state is not None and mem_state != mem_config:
        reasons.append('memoryManagerPolicy is %s in the configuration, %s in %s' % (mem_config, mem_state, record(facts, 'memory_manager_state')))
    return reasons


def drift_state(facts, wanted_drift=None):
    """(drifting, reasons): drifting is True or False, or None when it cannot be told (no kubelet configuration
    read and no node_prep result saying the node would change). The report and the textfile both use it."""
    reasons = node_drift(facts) if facts else []
    if wanted_drift:
        reasons.append('node_prep would change this node')
    if reasons:
        return True, reasons
    if wanted_drift is False or (facts and (facts.get('kubelet') or {}).get('config') is not None):
        return False, reasons
    return None, reasons


CONTAINER_KEYS = ('namespace', 'pod', 'container', 'pod_uid', 'cpus', 'cpu_count', 'numa_nodes', 'stale')
MEMORY_KEYS = ('namespace', 'pod', 'container', 'pod_uid', 'numa_nodes', 'blocks', 'stale')
PLACEMENT_KEYS = ('namespace', 'pod', 'container', 'pod_uid', 'container_id', 'qos', 'cgroup', 'cpus', 'cpu_count',
                  'mems', 'exclusive', 'numa', 'koordinator_class', 'koordinator_class_from_label', 'volcano_qos_level')


def _pick(item, keys):
    return dict((key, item.get(key)) for key in keys)


def fleet_data(fleet, generated=None):
    """The report's data (also written as JSON): one row per node with what the table and drawings show."""
    rows = []
    for entry in sorted(fleet, key=lambda item: str(item.get('name'))):
        facts = entry.get('facts') or {}
        drifting, drift = drift_state(facts, entry.get('drift'))
        nodes = []
        for node in facts.get('numa_nodes') or []:
            nodes.append({
                'id': node['id'], 'cpus': node.get('cpus'), 'cpu_count': len(node.get('cpu_ids') or []),
                'cores': len(node.get('cores') or []),
                'reserved_cpus': node.get('reserved_cpus'), 'exclusive_cpus': node.get('exclusive_cpus'),
                'free_exclusive_cpus': node.get('free_exclusive_cpus'),
                'free_exclusive_cpu_count': (None if node.get('free_exclusive_cpus') is None
                                             else node.get('free_exclusive_cpu_count')),
                'memory_total_bytes': node.get('memory_total_bytes'), 'memory_free_bytes': node.get('memory_free_bytes'),
                'memory_used_without_cache_bytes': node.get('memory_used_without_cache_bytes'),
                'hugepages': node.get('hugepages'), 'distances': node.get('distances'),
            })
        cpu_manager = (facts.get('kubelet') or {}).get('cpu_manager') or {}
        memory_manager = (facts.get('kubelet') or {}).get('memory_manager') or {}
        rows.append({
            'name': entry.get('name'), 'error': entry.get('error'),
            'policies': policies(facts) if facts else {},
            'reserved_cpus': (facts.get('kubelet') or {}).get('reserved_cpus'),
            'cpu_count': facts.get('cpu_count'), 'core_count': facts.get('core_count'),
            'threads_per_core': facts.get('threads_per_core'),
            'isolated_cpus': facts.get('isolated_cpus'), 'nohz_full_cpus': facts.get('nohz_full_cpus'),
            'numa_nodes': nodes,
            'containers': [_pick(item, CONTAINER_KEYS) for item in cpu_manager.get('exclusive') or []],
            'memory_placements': [_pick(item, MEMORY_KEYS) for item in memory_manager.get('containers') or []],
            'placement': (None if not facts or facts.get('placement') is None else
                          [_pick(item, PLACEMENT_KEYS) for item in facts['placement'].get('containers') or []]),
            'pci_devices': facts.get('pci_devices'),
            'drift': drift, 'drift_known': drifting is not None,
            'kubelet_found': (facts.get('kubelet') or {}).get('found') if facts else None,
            'refusals': facts.get('refusals') if facts else None,
            'live': entry.get('live'),
            'last_run': entry.get('last_run'),
            'unknown': facts.get('unknown') or [],
        })
    return {'schema': REPORT_SCHEMA, 'generated': generated, 'nodes': rows}


def render_json(fleet, generated=None):
    return json.dumps(fleet_data(fleet, generated), indent=1, sort_keys=True) + '\n'
