# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The recording rules files/prometheus/numaops-numa.rules.yml: checked and unit-tested by a real promtool
(tests/system/prometheus/numaops-numa.rules.test.yml), then evaluated end to end by a real Prometheus scraping a real
prometheus-node-exporter (cpu, meminfo_numa and textfile collectors) on 127.0.0.1 that reads this machine's /sys
and the textfile numa_facts makes of this machine. Fails (does not skip) when the Debian packages prometheus and
prometheus-node-exporter are missing (tests/apt-packages.txt; scripts/lib.sh ensure_apt). A load pinned to one NUMA
node showing on that node only needs two NUMA nodes: that check belongs to the VM scenario."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from ansible_collections.numaops.colocation.plugins.module_utils import numa
from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_textfile
from ansible_collections.numaops.colocation.tests.system.test_numa_report_playbook import collections_path
from ansible_collections.numaops.colocation.tests.system.prometheus_live import (free_port, program, prometheus, query,
                                                                                 start, stop, wait_for)

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'files', 'prometheus', 'numaops-numa.rules.yml')
RULE_TESTS = os.path.join(HERE, 'prometheus', 'numaops-numa.rules.test.yml')


def doc_queries():
    """The PromQL expressions of the block after "What an operator types" in docs/numa.md (each after its comment
    line; a text block: the docs site's highlighter does not know recording-rule names with colons)."""
    with open(os.path.join(os.path.dirname(os.path.dirname(HERE)), 'docs', 'numa.md')) as handle:
        text = handle.read()
    block = text.split('What an operator types', 1)[1].split('```text\n', 1)[1].split('```', 1)[0]
    queries, current = [], []
    for line in block.splitlines():
        if line.startswith('#'):
            if current:
                queries.append(' '.join(current))
            current = []
        elif line.strip():
            current.append(line.strip())
    if current:
        queries.append(' '.join(current))
    assert len(queries) == 6, queries
    return queries


def promtool(*args, cwd=None):
    proc = subprocess.run([program('promtool', 'prometheus')] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120, check=False, cwd=cwd)
    return proc.returncode, proc.stdout.decode()


def test_promtool_checks_the_rules():
    code, out = promtool('check', 'rules', RULES)
    assert code == 0 and 'SUCCESS: 7 rules found' in out, out


def test_promtool_rule_unit_tests():
    code, out = promtool('test', 'rules', os.path.basename(RULE_TESTS), cwd=os.path.dirname(RULE_TESTS))
    assert code == 0 and 'SUCCESS' in out, out


def test_rules_on_this_machine_with_real_prometheus_and_node_exporter(tmp_path):
    facts = numa.collect('/')
    assert facts['numa_node_ids'], 'this machine shows no NUMA node in /sys/devices/system/node'
    textfile = tmp_path / 'textfile'
    textfile.mkdir()
    (textfile / 'numaops_numa.prom').write_text(numa_textfile.render_textfile(facts))
    exporter_port = free_port()
    cpu_expr = 'instance_numa_node:node_cpu_utilisation:rate5m'
    memory_expr = 'instance_numa_node:node_memory_numa_used_without_cache_bytes'
    with open(tmp_path / 'exporter.log', 'w+b') as exporter_log:
        exporter = start([program('prometheus-node-exporter', 'prometheus-node-exporter'),
                          '--web.listen-address=127.0.0.1:%d' % exporter_port, '--collector.disable-defaults',
                          '--collector.cpu', '--collector.meminfo_numa', '--collector.textfile',
                          '--collector.textfile.directory=%s' % textfile],
                         'http://127.0.0.1:%d/metrics' % exporter_port, exporter_log)
        try:
            with prometheus(tmp_path, ['127.0.0.1:%d' % exporter_port], rules=RULES) as (prometheus_port, _log):
                found = wait_for(prometheus_port, [cpu_expr, memory_expr])
                cpu, memory = found[cpu_expr], found[memory_expr]
                info = query(prometheus_port, 'count by (numa_node) (numaops_numa_cpu_info)')
                for expr in doc_queries():     # every query docs/numa.md shows is accepted by this Prometheus
                    query(prometheus_port, expr)
                report = report_with_live_bars(tmp_path, prometheus_port, exporter_port)
        finally:
            stop(exporter)
    nodes = dict((str(node['id']), node) for node in facts['numa_nodes'])
    # one series per NUMA node of this machine, each CPU joined to its node
    assert sorted(cpu) == sorted(memory) == sorted(info) == sorted(nodes)
    for name, node in nodes.items():
        assert info[name] == len(node['cpu_ids'])
        assert 0.0 <= cpu[name] <= 1.0
        assert 0 < memory[name] < node['memory_total_bytes']
    # the NUMA report playbook asked the same Prometheus: live bars per NUMA node of this machine
    assert sorted(report['cpu']) == sorted(nodes)
    for name, node in nodes.items():
        assert 0.0 <= float(report['cpu'][name]) <= 1.0
        assert 0 < float(report['memory'][name]) < node['memory_total_bytes']


def report_with_live_bars(tmp_path, prometheus_port, exporter_port):
    """playbooks/numa_report.yml on this machine with numa_report_prometheus_url: {'cpu'|'memory': {numa node:
    data-value of its live bar}} of the HTML it wrote."""
    inventory = {'colocation_nodes': {'hosts': {'this-machine': {
        'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable, 'numa_report_become': False,
        'numa_report_prometheus_instance': '127.0.0.1:%d' % exporter_port}}}}
    (tmp_path / 'inventory.json').write_text(json.dumps(inventory))
    proc = subprocess.run(['ansible-playbook', '-i', str(tmp_path / 'inventory.json'), 'numaops.colocation.numa_report',
                           '-e', 'numa_report_dir=%s' % (tmp_path / 'out'),
                           '-e', 'numa_report_prometheus_url=http://127.0.0.1:%d/' % prometheus_port],
                          cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600, check=False,
                          env=dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR='1'))
    assert proc.returncode == 0, proc.stdout.decode()[-3000:]
    html = (tmp_path / 'out' / 'numa-report.html').read_text()
    bars = {'cpu': {}, 'memory': {}}
    for kind, numa_node, value in re.findall(r'data-field="live-(cpu|memory)" data-numa="(\d+)" data-value="([^"]*)"',
                                             html):
        bars[kind][numa_node] = value
    return bars
