# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Live per-NUMA usage for the fleet NUMA report, from Prometheus: the series of the collection's recording rules
(files/prometheus/numaops-numa.rules.yml) asked for, and their answer read per instance and NUMA node. Pure
functions, standard library only."""

from __future__ import annotations

import math

LIVE_QUERIES = {
    # the recording rules of files/prometheus/numaops-numa.rules.yml (labels instance, numa_node)
    'cpu_busy': 'instance_numa_node:node_cpu_utilisation:rate5m',
    'memory_used_bytes': 'instance_numa_node:node_memory_numa_used_without_cache_bytes',
}
LIVE_SELECTOR = '{__name__=~"%s"}' % '|'.join(sorted(LIVE_QUERIES.values()))


def live_usage(body):
    """{instance: {numa node id: {'cpu_busy': 0..1, 'memory_used_bytes': n}}} from the Prometheus instant-query
    answer (/api/v1/query JSON) of LIVE_SELECTOR; a sample that is not a number is left out."""
    key_of = dict((name, key) for key, name in LIVE_QUERIES.items())
    live = {}
    result = ((body.get('data') or {}).get('result') or []) if isinstance(body, dict) else []
    for item in result if isinstance(result, list) else []:
        metric = (item or {}).get('metric') or {}
        key = key_of.get(metric.get('__name__'))
        try:
            node = int(metric.get('numa_node'))
            value = float((item.get('value') or [None, None])[1])
        except (TypeError, ValueError, IndexError):
            continue
        if key is None or math.isnan(value):      # another series, or NaN (no samples in the window)
            continue
        live.setdefault(str(metric.get('instance')), {}).setdefault(node, {})[key] = value
    return live
