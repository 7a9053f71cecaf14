# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet NUMA report as one self-contained HTML file with inline SVG, drawn from numa_facts results on the
controller (filter numa_report_html) out of the report's data (numa_report_data.py, which the JSON and the
node_exporter textfile read too). Pure functions, standard library only.

A fleet is ``[{'name': host, 'facts': <numaops_numa>, 'drift': bool or None, 'last_run': epoch or None}]``.
"""

from __future__ import annotations

import json

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import parse_cpuset
from ansible_collections.numaops.colocation.plugins.plugin_utils.numa_report_data import fleet_data, record

COLOURS = {'reserved': '#e8590c', 'shared': '#dee2e6', 'unknown': '#ffffff'}
# distinct hues for the containers with exclusive CPUs (repeat after 12, with the legend naming each)
PALETTE = ('#1c7ed6', '#2f9e44', '#9c36b5', '#0c8599', '#c2255c', '#5c940d', '#3b5bdb', '#e67700',
           '#087f5b', '#862e9c', '#1864ab', '#a61e4d')
CELL = 12
GAP = 2
CORES_PER_ROW = 16


def _esc(value):
    text = '' if value is None else str(value)
    return (text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
            .replace('"', '&quot;').replace("'", '&#39;'))


def _gib(value):
    return '?' if value is None else '%.1f GiB' % (value / 1024.0 ** 3)


def container_label(item):
    if item.get('pod'):
        return '%s/%s/%s' % (item.get('namespace'), item['pod'], item.get('container') or '(pod)')
    return 'pod %s/%s' % (item.get('pod_uid'), item.get('container') or '(pod)')


_CSS = '''
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:16px;color:#212529}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 6px;border-bottom:1px solid #ced4da}
.meta{color:#495057;margin-bottom:12px}
table{border-collapse:collapse} th,td{padding:2px 8px;border-bottom:1px solid #e9ecef;text-align:left;vertical-align:top}
table.fleet thead th{position:sticky;top:0;background:#f1f3f5;z-index:1}
table.fleet tbody tr:nth-child(even){background:#f8f9fa}
.wrap{max-height:70vh;overflow:auto;border:1px solid #dee2e6;display:inline-block}
.num{text-align:right;font-variant-numeric:tabular-nums}
.drift{color:#c92a2a;font-weight:600} .ok{color:#2b8a3e}
.legend span.sw{display:inline-block;width:12px;height:12px;border:1px solid #868e96;vertical-align:-2px;margin-right:4px}
.legend{margin:4px 0 8px;display:flex;flex-wrap:wrap;gap:4px 14px}
.unknown{color:#862e9c} .stale{color:#868e96;text-decoration:line-through} .small{font-size:11px;color:#495057}
table.dist td{text-align:center;min-width:28px}
svg text{font-family:inherit}
'''


def _free_cell(node):
    if node['free_exclusive_cpu_count'] is None:
        return '<span class="small">N%d: -</span>' % node['id']
    return ('<span data-field="free-exclusive" data-numa="%d" data-count="%d" title="%s">N%d: %d</span>'
            % (node['id'], node['free_exclusive_cpu_count'], _esc(node['free_exclusive_cpus']), node['id'],
               node['free_exclusive_cpu_count']))


def _fleet_table(data):
    out = ['<div class="wrap"><table class="fleet" id="fleet"><thead><tr><th>Node</th><th>CPU manager</th>'
           '<th>Topology manager</th><th>Memory manager</th><th>Reserved CPUs</th><th class="num">CPUs</th>'
           '<th>Free exclusive CPUs per NUMA node</th><th>Drift</th><th class="num">Refused pods</th>'
           '<th class="num">Unknown</th></tr></thead><tbody>']
    for index, row in enumerate(data['nodes']):
        pol = row['policies']
        if row['error']:
            drift = '<span class="drift">not read: %s</span>' % _esc(row['error'])
        elif row['drift']:
            drift = '<span class="drift" title="%s">drift (%d)</span>' % (_esc('; '.join(row['drift'])), len(row['drift']))
        elif row['drift_known']:
            drift = '<span class="ok">none</span>'
        else:
            drift = '<span class="small">unknown%s</span>' % (' (no kubelet)' if row['kubelet_found'] is False else '')
        refused = row['refusals']
        if refused is None:
            refused_cell = '<span class="small" title="pods not read from the API">-</span>'
        else:
            refused_cell = ('<a href="#refused-%d" data-field="refused" data-count="%d"%s>%d</a>'
                            % (index, len(refused), ' class="drift"' if refused else '', len(refused)))
        out.append(
            '<tr data-node="%s"><td><a href="#node-%d">%s</a></td><td data-field="cpu-policy">%s</td><td>%s</td>'
            '<td data-field="memory-policy">%s</td><td data-field="reserved-cpus">%s</td>'
            '<td class="num" data-field="cpus">%s</td><td>%s</td><td data-field="drift">%s</td>'
            '<td class="num">%s</td><td class="num">%d</td></tr>'
            % (_esc(row['name']), index, _esc(row['name']), _esc(pol.get('cpu_manager')),
               _esc(pol.get('topology_manager')), _esc(pol.get('memory_manager')), _esc(row['reserved_cpus'] or '-'),
               _esc(row['cpu_count']), ' '.join(_free_cell(node) for node in row['numa_nodes']), drift,
               refused_cell, len(row['unknown'])))
    out.append('</tbody></table></div>')
    return ''.join(out)


def _cpu_roles(facts, colours):
    """{cpu: (role, container label or None, colour)}."""
    roles = {}
    reserved = set()
    kubelet = facts.get('kubelet') or {}
    if kubelet.get('reserved_cpus'):
        reserved = set(parse_cpuset(kubelet['reserved_cpus']))
    for item in (kubelet.get('cpu_manager') or {}).get('exclusive') or []:
        if item.get('stale'):
            continue      # its pod has no cgroup: never drawn as live
        label = container_label(item)
        # stale None: neither the cgroups nor the pods could tell whether the pod still runs
        role = 'exclusive' if item.get('stale') is False else 'exclusive-unverified'
        for cpu in item.get('cpu_ids') or []:
            roles[cpu] = (role, label, colours[label])
    for node in facts.get('numa_nodes') or []:
        for cpu in node.get('cpu_ids') or []:
            if cpu in roles:
                continue
            if cpu in reserved:
                roles[cpu] = ('reserved', None, COLOURS['reserved'])
            elif kubelet.get('cpu_manager') is not None:
                roles[cpu] = ('shared', None, COLOURS['shared'])
            else:
                roles[cpu] = ('unknown', None, COLOURS['unknown'])
    return roles


def _live_lines(parts, node, live, x, y, width):
    """Two bars at y: the NUMA node's CPU busy share and its memory used without page cache, from Prometheus."""
    values = (live or {}).get(node['id']) or {}
    bar_w = width - 16
    total = node.get('memory_total_bytes')
    cpu, used = values.get('cpu_busy'), values.get('memory_used_bytes')
    rows = (('cpu', None if cpu is None else max(0.0, min(1.0, cpu)),
             'live CPU busy %s (Prometheus, 5 min)' % ('?' if cpu is None else '%.1f %%' % (cpu * 100)), '#f08c00'),
            ('memory', None if used is None or not total else max(0.0, min(1.0, used / float(total))),
             'live memory used without page cache %s' % ('?' if used is None else _gib(used)), '#1971c2'))
    for index, (kind, share, text, colour) in enumerate(rows):
        top = y + index * 26
        parts.append('<rect x="%d" y="%d" width="%d" height="8" fill="#e9ecef" stroke="#adb5bd"/>'
                     % (x + 8, top, bar_w))
        if share is not None:
            parts.append('<rect x="%d" y="%d" width="%d" height="8" fill="%s"/>'
                         % (x + 8, top, int(bar_w * share), colour))
        value = '' if share is None else (cpu if kind == 'cpu' else used)
        parts.append('<text x="%d" y="%d" font-size="11" data-field="live-%s" data-numa="%d" data-value="%s">%s</text>'
                     % (x + 8, top + 20, kind, node['id'], _esc(value), _esc(text)))


def _node_box(node, roles, isolated, x, y, width, live=None):
    """SVG for one NUMA node box at (x, y); returns (svg, height). ``live``: this node's live_usage entry
    ({numa node id: values}; None: no Prometheus asked)."""
    parts = []
    cores = node.get('cores') or []
    in_core = set(cpu for core in cores for cpu in core['cpus'])
    groups = [core['cpus'] for core in cores] + [[cpu] for cpu in node.get('cpu_ids') or [] if cpu not in in_core]
    threads = max([len(group) for group in groups] or [1])
    core_w = threads * CELL + (threads - 1) + 4
    per_row = max(1, min(CORES_PER_ROW, (width - 16) // (core_w + GAP)))
    rows = (len(groups) + per_row - 1) // per_row
    grid_h = rows * (CELL + 4 + GAP)
    text_lines = 5
    height = 28 + grid_h + 18 + text_lines * 15 + (58 if live is not None else 0)
    parts.append('<g class="numa-node" data-numa="%d"><rect x="%d" y="%d" width="%d" height="%d" rx="6" '
                 'fill="#f8f9fa" stroke="#495057"/>' % (node['id'], x, y, width, height))
    parts.append('<text x="%d" y="%d" font-size="13" font-weight="600">NUMA node %d</text>'
                 % (x + 8, y + 17, node['id']))
    parts.append('<text x="%d" y="%d" font-size="11" text-anchor="end" fill="#495057">%d cores, %d CPUs%s</text>'
                 % (x + width - 8, y + 17, len(cores), len(node.get('cpu_ids') or []),
                    '' if node.get('cores_complete') else ' (topology incomplete)'))
    for index, group in enumerate(groups):
        gx = x + 8 + (index % per_row) * (core_w + GAP)
        gy = y + 26 + (index // per_row) * (CELL + 4 + GAP)
        partial = len(group) == 1 and group[0] not in in_core
        parts.append('<rect x="%d" y="%d" width="%d" height="%d" rx="2" fill="none" stroke="%s"%s/>'
                     % (gx, gy, len(group) * CELL + (len(group) - 1) + 4, CELL + 4,
                        '#adb5bd', ' stroke-dasharray="2 2"' if partial else ''))
        for pos, cpu in enumerate(group):
            role, label, colour = roles.get(cpu, ('unknown', None, COLOURS['unknown']))
            title = 'CPU %d: %s%s%s' % (cpu, role, (' by ' + label) if label else '',
                                        ' (isolated)' if cpu in isolated else '')
            if role == 'exclusive-unverified':
                title += ' (not verified running: cgroups and pods not read)'
            cx, cy = gx + 2 + pos * (CELL + 1), gy + 2
            # isolated: a black 2 px frame inside the cell and a black corner, visible on every fill
            parts.append('<rect class="cpu" data-cpu="%d" data-role="%s"%s%s x="%s" y="%s" width="%s" height="%s" '
                         'fill="%s"%s%s><title>%s</title></rect>'
                         % (cpu, role, (' data-container="%s"' % _esc(label)) if label else '',
                            ' data-isolated="true"' if cpu in isolated else '',
                            cx + 1 if cpu in isolated else cx, cy + 1 if cpu in isolated else cy,
                            CELL - 2 if cpu in isolated else CELL, CELL - 2 if cpu in isolated else CELL, colour,
                            ' stroke="#000" stroke-width="2"' if cpu in isolated else ' stroke="#868e96"',
                            ' fill-opacity="0.45" stroke-dasharray="2 1"' if role == 'exclusive-unverified' else '',
                            _esc(title)))
            if cpu in isolated:
                parts.append('<path d="M%d %dh6l-6 6z" fill="#000" pointer-events="none"/>' % (cx, cy))
    ty = y + 26 + grid_h + 14
    total, free = node.get('memory_total_bytes'), node.get('memory_free_bytes')
    bar_w = width - 16
    parts.append('<rect x="%d" y="%d" width="%d" height="8" fill="#e9ecef" stroke="#adb5bd"/>' % (x + 8, ty - 8, bar_w))
    used = node.get('memory_used_without_cache_bytes')
    if total and free is not None:
        # light: MemTotal - MemFree (page cache included); dark: used without page cache and reclaimable slab
        parts.append('<rect x="%d" y="%d" width="%d" height="8" fill="#a5d8ff"/>'
                     % (x + 8, ty - 8, int(bar_w * (total - free) / float(total))))
    if total and used is not None:
        parts.append('<rect x="%d" y="%d" width="%d" height="8" fill="#1971c2"/>'
                     % (x + 8, ty - 8, int(bar_w * min(used, total) / float(total))))
    parts.append('<text x="%d" y="%d" font-size="11" data-field="memory" data-numa="%d" data-total="%s" data-free="%s" '
                 'data-used="%s">memory %s total, %s free, %s used without page cache</text>'
                 % (x + 8, ty + 12, node['id'], _esc(total), _esc(free), _esc(used), _gib(total), _gib(free),
                    _gib(used)))
    huge = node.get('hugepages')
    if huge is None:
        huge_text = 'huge pages: unknown'
    else:
        huge_text = 'huge pages: ' + (', '.join('%s %s/%s free' % (size, info.get('free'), info.get('total'))
                                                for size, info in sorted(huge.items(),
                                                                         key=lambda kv: kv[1]['page_bytes'])
                                                if info.get('total')) or 'none')
    parts.append('<text x="%d" y="%d" font-size="11" data-field="hugepages" data-numa="%d">%s</text>'
                 % (x + 8, ty + 27, node['id'], _esc(huge_text)))
    free_cpus = node.get('free_exclusive_cpus')
    parts.append('<text x="%d" y="%d" font-size="11">reserved %s · exclusive %s</text>'
                 % (x + 8, ty + 42, _esc(node.get('reserved_cpus') or '-'), _esc(node.get('exclusive_cpus') or '-')))
    parts.append('<text x="%d" y="%d" font-size="11" data-field="free-exclusive-cpus" data-numa="%d">free for '
                 'exclusive: %s</text>'
                 % (x + 8, ty + 57, node['id'], _esc('- (no static CPU manager policy)' if free_cpus is None else
                                                     ('%s (%d)' % (free_cpus, len(parse_cpuset(free_cpus)))
                                                      if free_cpus else 'none'))))
    dist = node.get('distances')
    parts.append('<text x="%d" y="%d" font-size="11">distances %s</text>'
                 % (x + 8, ty + 72, _esc(' '.join(str(d) for d in dist) if dist else 'unknown')))
    if live is not None:
        _live_lines(parts, node, live, x, ty + 82, width)
    parts.append('</g>')
    return ''.join(parts), height


def _drawing(facts, colours, live=None):
    nodes = facts.get('numa_nodes') or []
    if not nodes:
        return '<p class="unknown">No NUMA nodes known.</p>'
    roles = _cpu_roles(facts, colours)
    isolated = set()
    if facts.get('isolated_cpus'):
        isolated = set(parse_cpuset(facts['isolated_cpus']))
    threads = max([len(core['cpus']) for n in nodes for core in n.get('cores') or []] or [1])
    core_w = threads * CELL + (threads - 1) + 4
    width = 16 + min(CORES_PER_ROW, max(max(len(n.get('cores') or n.get('cpu_ids') or [1]) for n in nodes), 8)) \
        * (core_w + GAP)
    width = max(width, 380)
    # as many boxes side by side as fit a 1300 px wide page, 4 at most; the SVG scales down below that
    columns = max(1, min(len(nodes), 4, 1300 // (width + 10)))
    while columns > 1 and len(nodes) % columns:   # full rows: 8 nodes as 4x2 or 2x4, not 3+3+2
        columns -= 1
    svg = []
    y = 0
    row_h = 0
    for index, node in enumerate(nodes):
        col = index % columns
        if col == 0 and index:
            y += row_h + 10
            row_h = 0
        box, height = _node_box(node, roles, isolated, col * (width + 10), y, width, live)
        row_h = max(row_h, height)
        svg.append(box)
    total_w = columns * (width + 10)
    total_h = y + row_h + 2
    return ('<svg xmlns="http://www.w3.org/2000/svg" class="topology" width="%d" height="%d" viewBox="0 0 %d %d" '
            'style="max-width:100%%;height:auto" role="img">%s</svg>' % (total_w, total_h, total_w, total_h, ''.join(svg)))


def _distance_table(facts):
    ids = facts.get('numa_node_ids') or []
    rows = facts.get('distances') or []
    if not ids or any(row is None for row in rows):
        return '<p class="small">Distances: unknown</p>'
    out = ['<table class="dist"><tr><th></th>%s</tr>' % ''.join('<th>N%d</th>' % i for i in ids)]
    low = min(min(row) for row in rows)
    high = max(max(row) for row in rows)
    for node_id, row in zip(ids, rows):
        cells = []
        for value in row:
            shade = 0 if high == low else int(200 * (value - low) / float(high - low))
            cells.append('<td style="background:rgb(255,%d,%d)">%d</td>' % (255 - shade // 2, 255 - shade, value))
        out.append('<tr><th>N%d</th>%s</tr>' % (node_id, ''.join(cells)))
    out.append('</table>')
    return ''.join(out)


def _size(value):
    if value is None:
        return '?'
    for unit, factor in (('GiB', 1024 ** 3), ('MiB', 1024 ** 2), ('KiB', 1024)):
        if value >= factor:
            return '%.1f %s' % (value / float(factor), unit)
    return '%d B' % value


def placement_label(item):
    """namespace/pod/container of a container cgroup; the pod UID and ``[<first 12 digits of the container ID>]``
    where the pods given do not name it (a pod sandbox, or a pod not given)."""
    pod = '%s/%s' % (item.get('namespace'), item['pod']) if item.get('pod') else 'pod ' + str(item.get('pod_uid'))
    return '%s/%s' % (pod, item.get('container') or '[%s]' % (item.get('container_id') or '?')[:12])


def qos_cell(item):
    """The QoS of a container's pod, escaped: its Kubernetes QoS class, then Koordinator's class (``koord LS``,
    ``koord LS*`` when it comes from the Kubernetes class rather than the koordinator.sh/qosClass label) and
    Volcano's qos-level (``volcano BE``) when the pod has one."""
    parts = [_esc(item.get('qos'))]
    if item.get('koordinator_class'):
        parts.append('<span class="koord" title="%s">koord %s%s</span>' % (
            'koordinator.sh/qosClass label' if item.get('koordinator_class_from_label')
            else 'no koordinator.sh/qosClass label: the class Koordinator gives this Kubernetes QoS class',
            _esc(item['koordinator_class']), '' if item.get('koordinator_class_from_label') else '*'))
    if item.get('volcano_qos_level'):
        parts.append('<span class="volcano" title="volcano.sh/qos-level annotation">volcano %s</span>'
                     % _esc(item['volcano_qos_level']))
    return ' &middot; '.join(parts)


def _placement_table(row):
    """Every container where the kernel placed it: its cgroup's CPUs and memory per NUMA node."""
    if row['placement'] is None:
        return ('<p class="small" data-field="placement-unknown">Container placement from cgroups: unknown (see the '
                'unknown entries).</p>')
    counts = dict((qos, sum(1 for item in row['placement'] if item.get('qos') == qos))
                  for qos in ('Guaranteed', 'Burstable', 'BestEffort'))
    out = ['<details class="placement"%s><summary><b>Containers where the kernel placed them</b>: %d (%s) '
           '<span class="small">(cgroup cpuset.cpus.effective, cpuset.mems.effective, memory.numa_stat; memory per '
           'NUMA node as anon+kernel / page cache; [id]: a container the pods\' statuses do not name, such as the '
           'pod sandbox; QoS: Kubernetes, then Koordinator\'s class - * without a koordinator.sh/qosClass label - and '
           'Volcano\'s qos-level)</span></summary>'
           % (' open' if len(row['placement']) <= 40 else '', len(row['placement']), ', '.join('%d %s' % (n, qos) for qos, n in counts.items())),
           '<table class="placement"><tr><th>Container</th><th>QoS</th><th>CPUs</th><th>Memory nodes</th>'
           '<th>Per NUMA node: CPUs, memory</th></tr>']
    for item in sorted(row['placement'], key=placement_label):
        per_node = '; '.join(
            'N%d: %d CPUs, %s / %s' % (n['numa_node'], n['cpu_count'],
                                       _size(None if n['anon_bytes'] is None else n['anon_bytes'] + n['kernel_bytes']),
                                       _size(n['file_bytes'])) for n in item.get('numa') or [])
        label = placement_label(item)
        out.append('<tr data-field="placement" data-container="%s" data-qos="%s" data-cpus="%s" data-exclusive="%s"'
                   ' data-koordinator-class="%s" data-volcano-qos-level="%s">'
                   '<td>%s</td><td>%s</td><td>%s%s</td><td>%s</td><td>%s</td></tr>'
                   % (_esc(label), _esc(item.get('qos')), _esc(item.get('cpus')), _esc(item.get('exclusive')),
                      _esc(item.get('koordinator_class') or ''), _esc(item.get('volcano_qos_level') or ''),
                      _esc(label), qos_cell(item),
                      _esc(item.get('cpus') if item.get('cpus') is not None else 'unknown'),
                      ' (exclusive)' if item.get('exclusive') else '', _esc(item.get('mems') or 'unknown'),
                      _esc(per_node or 'unknown')))
    out.append('</table></details>')
    return ''.join(out)


def _refusal_table(index, row):
    """Pods the kubelet refused at admission for NUMA alignment, with why and the loop of their controller."""
    refused = row['refusals']
    if refused is None:
        return ('<p class="small" id="refused-%d" data-field="refusals-unknown">Pods refused by the kubelet: not read '
                '(the node\'s pods were not read from the API: numa_report_k8s_enabled).</p>' % index)
    if not refused:
        return ('<p class="small" id="refused-%d" data-field="refusals-none">Pods refused by the kubelet for NUMA '
                'alignment: none.</p>' % index)
    out = ['<div id="refused-%d"><p class="drift">%d pod(s) refused by the kubelet for NUMA alignment (phase Failed, '
           'never started)</p><table class="refusals"><tr><th>Pod</th><th>Reason</th><th>Controller</th>'
           '<th class="num">Refused of it</th><th>Requests</th><th>Why</th></tr>' % (index, len(refused))]
    for item in refused:
        controller = ('%s/%s' % (item['owner_kind'], item['owner'])) if item['owner'] else '-'
        if item.get('workload'):
            controller += ' (%s)' % item['workload']
        out.append('<tr data-field="refusal" data-pod="%s" data-reason="%s" data-owner-refusals="%d">'
                   '<td>%s/%s<br><span class="small">%s</span></td><td title="%s">%s<br><span class="small">%s</span>'
                   '</td><td>%s</td><td class="num%s">%d</td><td>%s</td><td class="small">%s</td></tr>'
                   % (_esc('%s/%s' % (item['namespace'], item['pod'])), _esc(item['reason']), item['owner_refusals'],
                      _esc(item['namespace']), _esc(item['pod']), _esc(item['created'] or ''),
                      _esc(item['reason_text']), _esc(item['reason']), _esc(item['message']), _esc(controller),
                      ' drift' if item['owner_refusals'] > 1 else '', item['owner_refusals'],
                      _esc(', '.join('%s %s' % kv for kv in sorted(item['requests'].items())) or '-'),
                      _esc(item['why'])))
    out.append('</table></div>')
    return ''.join(out)


def _node_section(index, row, facts):
    colours = {}
    for item in ((facts.get('kubelet') or {}).get('cpu_manager') or {}).get('exclusive') or []:
        if not item.get('stale'):
            colours.setdefault(container_label(item), PALETTE[len(colours) % len(PALETTE)])
    out = ['<section class="node" id="node-%d" data-node="%s"><h2>%s</h2>' % (index, _esc(row['name']), _esc(row['name']))]
    if row['error']:
        out.append('<p class="drift">Not read: %s</p></section>' % _esc(row['error']))
        return ''.join(out)
    pol = row['policies']
    out.append('<div class="meta">%s CPUs, %s cores, %s threads per core · CPU manager %s · topology manager %s · '
               'memory manager %s · reserved CPUs %s · isolated %s · nohz_full %s · cgroup v%s (%s)</div>'
               % (_esc(row['cpu_count']), _esc(row['core_count']), _esc(row['threads_per_core'] or '?'),
                  _esc(pol.get('cpu_manager')), _esc(pol.get('topology_manager')), _esc(pol.get('memory_manager')),
                  _esc(row['reserved_cpus'] or '-'), _esc(row['isolated_cpus'] or '-'),
                  _esc(row['nohz_full_cpus'] if row['nohz_full_cpus'] is not None else 'unknown'),
                  _esc((facts.get('cgroup') or {}).get('version') or '?'), _esc((facts.get('cgroup') or {}).get('driver') or '?')))
    legend = ['<span><span class="sw" style="background:%s"></span>reserved</span>' % COLOURS['reserved'],
              '<span><span class="sw" style="background:%s"></span>shared</span>' % COLOURS['shared'],
              '<span><span class="sw" style="background:#fff"></span>unknown</span>',
              '<span><span class="sw" style="background:linear-gradient(135deg,#000 30%,#dee2e6 30%);'
              'border:2px solid #000"></span>isolated (isolcpus)</span>']
    for item in row['containers']:
        label = container_label(item)
        if item.get('stale'):
            legend.append('<span data-field="container" data-container="%s" data-cpus="%s" data-stale="true" '
                          'class="stale">stale, not drawn: %s: CPUs %s in %s, but the pod has no cgroup (no '
                          'longer running)</span>' % (_esc(label), _esc(item['cpus']), _esc(label), _esc(item['cpus']),
                                                      _esc(record(facts, 'cpu_manager_state'))))
            continue
        unverified = item.get('stale') is None
        legend.append('<span data-field="container" data-container="%s" data-cpus="%s"%s><span class="sw" '
                      'style="background:%s%s"></span>%s: CPUs %s (NUMA %s)%s</span>'
                      % (_esc(label), _esc(item['cpus']), ' data-unverified="true"' if unverified else '',
                         colours.get(label, '#000'), ';opacity:.45;border-style:dashed' if unverified else '',
                         _esc(label), _esc(item['cpus']),
                         _esc(','.join(str(n) for n in item['numa_nodes'] or [])) or '?',
                         ' <i>not verified running</i> (in %s; neither the cgroups nor the pods from the API '
                         'were read)' % _esc(record(facts, 'cpu_manager_state')) if unverified else ''))
    out.append('<div class="legend">%s</div>' % ''.join(legend))
    out.append(_drawing(facts, colours, row['live']))
    out.append('<div style="display:flex;gap:24px;flex-wrap:wrap;margin-top:8px"><div><b>Distances</b>%s</div>'
               % _distance_table(facts))
    if row['memory_placements']:
        out.append('<div><b>Memory manager placement</b><table>')
        for item in row['memory_placements']:
            blocks = ', '.join('%s %s on NUMA %s' % (b.get('resource'), _gib(b.get('bytes')),
                                                     ','.join(str(n) for n in b.get('numa_nodes') or []))
                               for b in item.get('blocks') or [])
            out.append('<tr%s><td>%s</td><td>%s%s</td></tr>'
                       % (' data-stale="true" class="stale"' if item.get('stale') else '',
                          _esc(container_label(item)), _esc(blocks),
                          ' (stale: the pod has no cgroup, no longer running)' if item.get('stale') else ''))
        out.append('</table></div>')
    devices = row['pci_devices'] or []
    if devices:
        out.append('<div><b>PCI devices</b><table>')
        for dev in devices:
            out.append('<tr><td>%s</td><td>%s</td><td>%s</td><td>NUMA %s</td></tr>'
                       % (_esc(dev['address']), _esc(dev['kind']), _esc(' '.join(dev.get('names') or [])),
                          _esc('unknown' if dev.get('numa_node') is None else dev['numa_node'])))
        out.append('</table></div>')
    out.append('</div>')
    out.append(_placement_table(row))
    out.append(_refusal_table(index, row))
    if row['drift']:
        out.append('<p class="drift">Drift: %s</p>' % _esc('; '.join(row['drift'])))
    if row['unknown']:
        out.append('<details><summary class="unknown">%d unknown entries</summary><ul>%s</ul></details>'
                   % (len(row['unknown']), ''.join('<li>%s: %s</li>' % (_esc(u['path']), _esc(u['reason']))
                                                   for u in row['unknown'])))
    out.append('</section>')
    return ''.join(out)


def render_html(fleet, generated=None, title='NUMA fleet report'):
    """One self-contained HTML document (inline CSS and SVG, no script, no external asset)."""
    data = fleet_data(fleet, generated)
    facts_by_name = dict((entry.get('name'), entry.get('facts') or {}) for entry in fleet)
    drifting = sum(1 for row in data['nodes'] if row['drift'])
    body = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title><style>%s</style></head><body>'
            % (_esc(title), _CSS),
            '<h1>%s</h1><div class="meta">%d nodes · %d with drift · generated %s by numaops.colocation</div>'
            % (_esc(title), len(data['nodes']), drifting, _esc(generated or '')),
            _fleet_table(data)]
    for index, row in enumerate(data['nodes']):
        body.append(_node_section(index, row, facts_by_name.get(row['name'], {})))
    payload = (json.dumps(data, sort_keys=True).replace('&', '\\u0026').replace('<', '\\u003c')
               .replace('>', '\\u003e'))
    body.append('<script type="application/json" id="numa-data">%s</script></body></html>\n' % payload)
    return ''.join(body)
