# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node_exporter textfile-collector text of one node's numa_facts (filter numa_textfile): gauges only, values
numa_facts could not read left out. Series that join node_exporter's own: ``numaops_numa_cpu_info`` (one per CPU,
labels cpu, core, socket, numa_node) joins ``node_cpu_seconds_total{cpu}``; the recording rules that use them are
files/prometheus/numaops-numa.rules.yml. Pure functions, standard library only."""

from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils import numa_refusals
from ansible_collections.numaops.colocation.plugins.plugin_utils.numa_report_data import drift_state, policies

_METRICS = (
    ('numaops_numa_cpu_info', 'An online CPU with its core (core_id within the socket), socket and NUMA node; '
                              'joins node_cpu_seconds_total on cpu.'),
    ('numaops_numa_node_cpus', 'Online CPUs of the NUMA node.'),
    ('numaops_numa_node_cores', 'Physical cores of the NUMA node whose topology is known.'),
    ('numaops_numa_node_memory_total_bytes', 'MemTotal of the NUMA node.'),
    ('numaops_numa_node_memory_free_bytes', 'MemFree of the NUMA node.'),
    ('numaops_numa_node_hugepages_pages', 'Huge pages of the size on the NUMA node.'),
    ('numaops_numa_node_hugepages_free_pages', 'Free huge pages of the size on the NUMA node.'),
    ('numaops_numa_node_reserved_cpus', 'CPUs of the NUMA node in the kubelet reservedSystemCPUs.'),
    ('numaops_numa_node_exclusive_cpus', 'CPUs of the NUMA node given exclusively to containers.'),
    ('numaops_numa_node_free_exclusive_cpus', 'CPUs of the NUMA node still free for exclusive allocation.'),
    ('numaops_container_exclusive_cpus', 'Exclusive CPUs of the container on the NUMA node.'),
    ('numaops_container_numa_memory_bytes', 'Memory the kubelet memory manager pinned for the container.'),
    ('numaops_kubelet_stale_checkpoint_entries', 'Entries of the kubelet record of exclusive CPUs and memory blocks '
                                                 'whose pod has no cgroup; the record is the kubelet checkpoint '
                                                 'files or its pod-resources API (placement_source of '
                                                 'numaops_kubelet_policy_info).'),
    ('numaops_container_numa_cpus', 'CPUs of the container cpuset.cpus.effective on the NUMA node.'),
    ('numaops_container_numa_memory_used_bytes', 'Memory of the container on the NUMA node from memory.numa_stat, '
                                                 'by type: anon, file (page cache), kernel.'),
    ('numaops_kubelet_policy_info', 'The kubelet policies in the configuration and as the kubelet runs them (state '
                                    'files or pod-resources API, placement_source).'),
    ('numaops_numa_facts_unknown_entries', 'Files numa_facts could not read or parse.'),
    ('numaops_kubelet_refused_pods', 'Pods on the node the kubelet refused at admission for NUMA alignment '
                                     '(phase Failed), by reason.'),
    ('numaops_kubelet_refused_pods_by_owner', 'Refused pods of one controller (a Deployment re-creating a pod '
                                              'the kubelet refuses counts up).'),
    ('numaops_numa_drift', 'Whether the node drifts from what is wanted (1) or not (0); absent when unknown.'),
    ('numaops_node_prep_last_run_timestamp_seconds', 'When node_prep last ran on the node (Unix time).'),
)


def _label_value(value):
    return str(value).replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def _labels(pairs):
    return '{%s}' % ','.join('%s="%s"' % (k, _label_value(v)) for k, v in pairs) if pairs else ''


def _or_empty(value):
    return '' if value is None else value


def _placement_series(placement, series):
    """Per container and NUMA node: its CPUs and its memory by type (every container, shared ones too)."""
    for item in (placement or {}).get('containers') or []:
        ident = [('namespace', item.get('namespace') or ''), ('pod', item.get('pod') or ''),
                 ('container', item.get('container') or ''), ('pod_uid', item.get('pod_uid') or ''),
                 ('container_id', item.get('container_id') or ''), ('qos', item.get('qos') or ''),
                 ('koordinator_class', item.get('koordinator_class') or ''),
                 ('volcano_qos_level', item.get('volcano_qos_level') or '')]
        for entry in item.get('numa') or []:
            numa = [('numa_node', entry['numa_node'])]
            if item.get('cpus') is not None:
                series['numaops_container_numa_cpus'].append((ident + numa, entry['cpu_count']))
            for kind in ('anon', 'file', 'kernel'):
                value = entry.get(kind + '_bytes')
                if value is not None:
                    series['numaops_container_numa_memory_used_bytes'].append((ident + numa + [('type', kind)], value))


def render_textfile(facts, drift=None, last_run=None):
    """The node_exporter textfile-collector text for one node's numa_facts (unknown values are left out)."""
    series = dict((name, []) for name, _help in _METRICS)
    for node in facts.get('numa_nodes') or []:
        core_of = dict((cpu, core) for core in node.get('cores') or [] for cpu in core['cpus'])
        for cpu in node.get('cpu_ids') or []:
            core = core_of.get(cpu) or {}
            series['numaops_numa_cpu_info'].append(([('cpu', cpu), ('core', _or_empty(core.get('core_id'))),
                                                     ('socket', _or_empty(core.get('socket'))),
                                                     ('numa_node', node['id'])], 1))
    for node in facts.get('numa_nodes') or []:
        numa = [('numa_node', node['id'])]
        if node.get('cpu_ids') is not None:
            series['numaops_numa_node_cpus'].append((numa, len(node['cpu_ids'])))
        if node.get('cores_complete'):
            series['numaops_numa_node_cores'].append((numa, len(node['cores'])))
        for key, metric in (('memory_total_bytes', 'numaops_numa_node_memory_total_bytes'),
                            ('memory_free_bytes', 'numaops_numa_node_memory_free_bytes')):
            if node.get(key) is not None:
                series[metric].append((numa, node[key]))
        for size, info in sorted((node.get('hugepages') or {}).items(), key=lambda kv: kv[1]['page_bytes']):
            for key, metric in (('total', 'numaops_numa_node_hugepages_pages'), ('free', 'numaops_numa_node_hugepages_free_pages')):
                if info.get(key) is not None:
                    series[metric].append((numa + [('size', size)], info[key]))
        for key, metric in (('reserved_cpus', 'numaops_numa_node_reserved_cpus'),
                            ('exclusive_cpus', 'numaops_numa_node_exclusive_cpus'),
                            ('free_exclusive_cpus', 'numaops_numa_node_free_exclusive_cpus')):
            if node.get(key) is not None:
                series[metric].append((numa, len(parse_cpuset(node[key]))))
    cpu_node = dict((cpu, node['id']) for node in facts.get('numa_nodes') or [] for cpu in node.get('cpu_ids') or [])
    kubelet = facts.get('kubelet') or {}
    stale = 0
    for item in (kubelet.get('cpu_manager') or {}).get('exclusive') or []:
        if item.get('stale'):
            stale += 1
            continue
        per_node = {}
        for cpu in item.get('cpu_ids') or []:
            per_node.setdefault(cpu_node.get(cpu, 'unknown'), []).append(cpu)
        for node_id, cpus in sorted(per_node.items(), key=lambda kv: str(kv[0])):
            series['numaops_container_exclusive_cpus'].append((
                [('namespace', item.get('namespace') or ''), ('pod', item.get('pod') or ''),
                 ('container', item.get('container') or ''), ('pod_uid', item.get('pod_uid') or ''),
                 ('numa_node', node_id), ('cpus', format_cpuset(cpus))], len(cpus)))
    for item in (kubelet.get('memory_manager') or {}).get('containers') or []:
        if item.get('stale'):
            stale += 1
            continue
        for block in item.get('blocks') or []:
            if block.get('bytes') is None:
                continue
            series['numaops_container_numa_memory_bytes'].append((
                [('namespace', item.get('namespace') or ''), ('pod', item.get('pod') or ''),
                 ('container', item.get('container') or ''), ('pod_uid', item.get('pod_uid') or ''),
                 ('numa_node', ','.join(str(n) for n in block.get('numa_nodes') or [])),
                 ('resource', block.get('resource') or '')], block['bytes']))
    if kubelet.get('cpu_manager') is not None and facts.get('placement') is not None:
        series['numaops_kubelet_stale_checkpoint_entries'].append(([], stale))
    _placement_series(facts.get('placement'), series)
    kubelet_policies = policies(facts)
    series['numaops_kubelet_policy_info'].append((
        [(key, kubelet_policies.get(key) or 'unknown') for key in
         ('cpu_manager', 'topology_manager', 'memory_manager', 'cpu_manager_state', 'memory_manager_state')]
        + [('cgroup_version', (facts.get('cgroup') or {}).get('version') or 'unknown'),
           ('placement_source', (kubelet.get('source') or {}).get('used') or 'unknown')], 1))
    series['numaops_numa_facts_unknown_entries'].append(([], len(facts.get('unknown') or [])))
    refused = facts.get('refusals')
    if refused is not None:
        for reason in sorted(numa_refusals.REASONS):
            series['numaops_kubelet_refused_pods'].append(
                ([('reason', reason)], sum(1 for item in refused if item['reason'] == reason)))
        for namespace, kind, name, reason, count in numa_refusals.by_owner(refused):
            series['numaops_kubelet_refused_pods_by_owner'].append(
                ([('namespace', namespace), ('owner_kind', kind), ('owner', name), ('reason', reason)], count))
    drifting = drift_state(facts, drift)[0]
    if drifting is not None:      # unknown (no kubelet configuration read) is left out, as the report says unknown
        series['numaops_numa_drift'].append(([], 1 if drifting else 0))
    if last_run is not None:
        series['numaops_node_prep_last_run_timestamp_seconds'].append(([], last_run))
    lines = []
    for name, help_text in _METRICS:
        if not series[name]:
            continue
        lines.append('# HELP %s %s' % (name, help_text))
        lines.append('# TYPE %s gauge' % name)
        for labels, value in series[name]:
            lines.append('%s%s %s' % (name, _labels(labels), value if isinstance(value, int) else repr(float(value))))
    return '\n'.join(lines) + '\n'
