# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters rendering numa_facts results: the fleet HTML report, its JSON, and the node_exporter textfile."""
from __future__ import annotations

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_report, numa_report_data
from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_report_live
from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_textfile as textfile


def _entry(item):
    """{name, facts, drift, error} from such an entry or from a host's variables (map('extract', hostvars))."""
    if 'name' in item and 'inventory_hostname' not in item:
        return dict(item)
    facts = item.get('numaops_numa')
    report = item.get('node_prep_report') or {}
    error = item.get('numa_report_error')
    if facts is None and not error:
        error = 'no numa_facts result (the host failed or was unreachable)'
    return {'name': item.get('inventory_hostname'), 'facts': facts, 'drift': report.get('drift'), 'error': error}


def _fleet(value):
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, Mapping) for item in value):
        raise AnsibleFilterError('numa report: expected a list with one entry per node ({name, facts, drift, error}, '
                                 'or the host variables: groups[...] | map("extract", hostvars)); got %s'
                                 % type(value).__name__)
    entries = [_entry(item) for item in value]
    if not all(entry.get('name') for entry in entries):
        raise AnsibleFilterError('numa report: every entry needs a name (or inventory_hostname)')
    return entries


def numa_report_not_read(value):
    """Names of the nodes without a numa_facts result (failed, unreachable), with why."""
    return ['%s (%s)' % (entry['name'], entry['error']) for entry in sorted(_fleet(value), key=lambda e: str(e['name']))
            if entry.get('error') or entry.get('facts') is None]


def numa_report_textfile_problems(value):
    """Per node whose numa_report_textfile_dir is set: what is wrong with it (the stat result
    numa_report__textfile_dir of the playbook), empty when every one is an existing directory."""
    problems = []
    for item in value if isinstance(value, (list, tuple)) else []:
        wanted = item.get('numa_report_textfile_dir')
        if not wanted:
            continue
        name = item.get('inventory_hostname')
        if not isinstance(wanted, str) or not wanted.startswith('/'):
            problems.append('%s: numa_report_textfile_dir=%r must be an absolute path (node_exporter\'s '
                            '--collector.textfile.directory)' % (name, wanted))
            continue
        stat = (item.get('numa_report__textfile_dir') or {}).get('stat') or {}
        if not stat.get('exists'):
            problems.append('%s: numa_report_textfile_dir=%s does not exist on the node (it must be node_exporter\'s '
                            '--collector.textfile.directory)' % (name, wanted))
        elif not stat.get('isdir'):
            problems.append('%s: numa_report_textfile_dir=%s is not a directory' % (name, wanted))
    return problems


def _with_live(value, live):
    """The fleet with each node's live usage from the Prometheus answer ``live`` (None: not asked), matched by
    its ``numa_report_prometheus_instance`` (default ``<inventory_hostname>:9100``)."""
    entries = _fleet(value)
    if live is None:
        return entries
    usage = numa_report_live.live_usage(live)
    for entry, item in zip(entries, value):
        if 'live' not in entry:
            instance = item.get('numa_report_prometheus_instance') or '%s:9100' % entry['name']
            entry['live'] = usage.get(str(instance), {})
    return entries


def numa_report_html(value, generated=None, title='NUMA fleet report', live=None):
    return numa_report.render_html(_with_live(value, live), generated=generated, title=title)


def numa_report_json(value, generated=None, live=None):
    return numa_report_data.render_json(_with_live(value, live), generated=generated)


def numa_report_live_selector(value=None):
    """The PromQL selector of the live usage series (the collection's recording rules), for /api/v1/query."""
    return numa_report_live.LIVE_SELECTOR


def numa_textfile(value, drift=None, last_run=None):
    if not isinstance(value, dict) or 'numa_nodes' not in value:
        raise AnsibleFilterError('numa_textfile: expected the numaops_numa fact of numaops.colocation.numa_facts')
    return textfile.render_textfile(value, drift=drift, last_run=last_run)


class FilterModule:
    def filters(self):
        return {'numa_report_html': numa_report_html, 'numa_report_json': numa_report_json,
                'numa_textfile': numa_textfile, 'numa_report_not_read': numa_report_not_read,
                'numa_report_textfile_problems': numa_report_textfile_problems,
                'numa_report_live_selector': numa_report_live_selector}
