# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report renderer and the node_exporter textfile, as pure functions."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_report, numa_report_data, numa_report_live, numa_textfile
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import facts_of, fleet
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import MIB, UID_GONE, cid


class Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.script = None
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        self._in_script = tag == 'script'

    def handle_data(self, data):
        if self._in_script:
            self.script = (self.script or '') + data

    def handle_endtag(self, tag):
        self._in_script = False


def parse(html):
    collector = Collect()
    collector.feed(html)
    return collector


def test_html_is_self_contained_and_carries_the_numbers():
    html = numa_report.render_html(fleet(), generated='2026-12-01T12:00:00Z')
    doc = parse(html)
    # no external assets: no src/href to another document, no stylesheet links, and the only script is data
    for tag, attrs in doc.tags:
        assert tag not in ('link', 'img', 'iframe', 'object')
        assert not attrs.get('src')
        if attrs.get('href'):
            assert attrs['href'].startswith('#')
        if tag == 'script':
            assert attrs.get('type') == 'application/json'
    assert 'http://' not in html.replace('http://www.w3.org/2000/svg', '') and 'https://' not in html
    data = json.loads(doc.script)
    assert [row['name'] for row in data['nodes']] == ['down-1', 'epyc-1', 'sandbox-1', 'tx2-1', 'xeon-1']
    free = [(a['data-numa'], a['data-count']) for t, a in doc.tags if a.get('data-field') == 'free-exclusive']
    xeon = facts_of('xeon8358-2s')
    assert ('0', str(xeon['numa_nodes'][0]['free_exclusive_cpu_count'])) in free
    cpus = [a for t, a in doc.tags if a.get('class') == 'cpu']
    # every CPU of every node that was read is drawn once: 192 + 16 + 56 + 128
    assert len(cpus) == 192 + 16 + 56 + 128
    dpdk = [a['data-cpu'] for a in cpus if a.get('data-container') == 'telco/dpdk-fwd-0/dpdk']
    assert sorted(int(c) for c in dpdk) == [1, 2, 3, 4, 65, 66, 67, 68]
    assert sorted(int(a['data-cpu']) for a in cpus if a['data-role'] == 'reserved') == \
        sorted([0, 64] + [0, 28] + [0, 1, 96, 97])
    assert 'not read: unreachable' in html
    assert 'drift (1)' in html     # sandbox-1: node_prep would change it


def test_8_numa_nodes_drawn_in_full_rows():
    facts = facts_of('synthetic-8numa')
    html = numa_report.render_html([{'name': 'epyc-1', 'facts': facts}])
    boxes = re.findall(r'<g class="numa-node" data-numa="(\d+)"><rect x="(\d+)" y="(\d+)"', html)
    assert [int(b[0]) for b in boxes] == list(range(8))
    columns = len(set(b[1] for b in boxes))
    rows = len(set(b[2] for b in boxes))
    assert columns * rows == 8 and columns in (2, 4)
    assert 'N7' in html


def test_200_node_table():
    entries = fleet(extra_nodes=220)
    html = numa_report.render_html(entries)
    assert html.count('<tr data-node=') == len(entries) == 225
    assert 'position:sticky' in html      # the header stays while scrolling 200+ rows
    data = json.loads(numa_report_data.render_json(entries))
    assert len(data['nodes']) == 225


def test_names_are_escaped():
    facts = facts_of('thunderx2-2s')
    facts['kubelet']['cpu_manager']['exclusive'][1]['pod'] = '<script>x</script>'
    html = numa_report.render_html([{'name': 'a"<b>', 'facts': facts}])
    assert '<script>x' not in html and 'a"<b>' not in html
    assert '&lt;script&gt;x' in html


def test_node_drift_from_state_files():
    facts = facts_of('xeon8358-2s')
    assert numa_report_data.node_drift(facts) == []
    facts['kubelet']['cpu_manager']['policy'] = 'none'
    assert numa_report_data.node_drift(facts) == ['cpuManagerPolicy is static in the configuration, none in cpu_manager_state']


def test_the_report_and_the_textfile_name_the_pod_resources_api_when_it_was_read():
    facts = facts_of('xeon8358-2s')
    assert 'placement_source="checkpoints"' in numa_textfile.render_textfile(facts)
    facts['kubelet']['source'] = {'requested': 'auto', 'used': 'pod_resources', 'socket': '/s', 'why': 'w'}
    facts['kubelet']['cpu_manager']['policy'] = 'none'
    assert numa_report_data.node_drift(facts) == [
        'cpuManagerPolicy is static in the configuration, none in the running kubelet (pod-resources API)']
    text = numa_textfile.render_textfile(facts)
    assert 'placement_source="pod_resources"' in text
    # the stale entries' HELP holds for either source of the kubelet's record
    stale_help = next(line for line in text.splitlines()
                      if line.startswith('# HELP numaops_kubelet_stale_checkpoint_entries '))
    assert 'checkpoint files or its pod-resources API' in stale_help


def test_textfile_series():
    text = numa_textfile.render_textfile(facts_of('xeon8358-2s'), drift=False, last_run=1764590000)
    lines = text.splitlines()
    assert 'numaops_numa_node_cpus{numa_node="0"} 64' in lines
    assert 'numaops_numa_node_free_exclusive_cpus{numa_node="0"} 48' in lines
    assert 'numaops_numa_node_memory_free_bytes{numa_node="1"} %d' % (101 * 1024 ** 3) in lines
    assert 'numaops_numa_node_hugepages_free_pages{numa_node="0",size="1Gi"} 6' in lines
    assert ('numaops_container_exclusive_cpus{namespace="telco",pod="dpdk-fwd-0",container="dpdk",'
            'pod_uid="6c4b8a42-1d7e-4f0a-9a55-2f1e9d3c7b01",numa_node="0",cpus="1-4,65-68"} 8') in lines
    assert ('numaops_container_numa_memory_bytes{namespace="telco",pod="dpdk-fwd-0",container="dpdk",'
            'pod_uid="6c4b8a42-1d7e-4f0a-9a55-2f1e9d3c7b01",numa_node="0",resource="hugepages-1Gi"} %d'
            % (2 * 1024 ** 3)) in lines
    assert 'numaops_numa_drift 0' in lines
    assert 'numaops_node_prep_last_run_timestamp_seconds 1764590000' in lines
    assert 'numaops_numa_facts_unknown_entries 1' in lines
    # every series has its HELP and TYPE, once
    names = set(re.match(r'^([a-z_]+)', line).group(1) for line in lines if not line.startswith('#'))
    for name in names:
        assert lines.count('# TYPE %s gauge' % name) == 1


def test_textfile_leaves_unknown_values_out():
    from ansible_collections.numaops.colocation.plugins.module_utils import numa
    from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import SANDBOX
    text = numa_textfile.render_textfile(numa.collect(SANDBOX), drift=True)
    assert 'memory_total_bytes' not in text and 'hugepages' not in text and 'numaops_numa_node_cores' not in text
    assert 'numaops_numa_node_cpus{numa_node="1"} 8' in text
    assert 'numaops_numa_drift 1' in text
    assert 'numaops_node_prep_last_run_timestamp_seconds' not in text


def test_label_values_escaped():
    facts = facts_of('thunderx2-2s')
    facts['kubelet']['cpu_manager']['exclusive'][1]['pod'] = 'a"b\\c\nd'
    text = numa_textfile.render_textfile(facts)
    assert 'pod="a\\"b\\\\c\\nd"' in text


def test_textfile_cpu_info_and_every_container():
    lines = numa_textfile.render_textfile(facts_of('xeon8358-2s')).splitlines()
    info = [line for line in lines if line.startswith('numaops_numa_cpu_info{')]
    assert len(info) == 128
    assert 'numaops_numa_cpu_info{cpu="65",core="1",socket="0",numa_node="0"} 1' in info
    assert 'numaops_numa_cpu_info{cpu="127",core="31",socket="1",numa_node="1"} 1' in info
    nginx = ('namespace="web",pod="nginx-7d9c",container="nginx",pod_uid="3f2a9c1d-7b4e-4d8a-a6c5-0e1f2a3b4c05",'
             'container_id="%s",qos="Burstable",koordinator_class="LS",volcano_qos_level="LS"' % cid('nginx'))
    assert 'numaops_container_numa_cpus{%s,numa_node="1"} 64' % nginx in lines
    assert 'numaops_container_numa_memory_used_bytes{%s,numa_node="1",type="file"} %d' % (nginx, 500 * MIB) in lines
    assert 'numaops_kubelet_stale_checkpoint_entries 0' in lines


def test_textfile_leaves_stale_entries_out():
    lines = numa_textfile.render_textfile(facts_of('thunderx2-2s')).splitlines()
    assert 'numaops_kubelet_stale_checkpoint_entries 1' in lines
    assert not [line for line in lines if UID_GONE in line]
    assert 'numaops_numa_node_exclusive_cpus{numa_node="1"} 0' in lines


def test_html_every_container_where_the_kernel_placed_it():
    html = numa_report.render_html([{'name': 'xeon-1', 'facts': facts_of('xeon8358-2s')},
                                    {'name': 'tx2-1', 'facts': facts_of('thunderx2-2s')}])
    doc = parse(html)
    rows = [a for t, a in doc.tags if a.get('data-field') == 'placement']
    assert len(rows) == 7 + 2
    placed = dict((a['data-container'], a) for a in rows)
    assert (placed['web/nginx-7d9c/nginx']['data-qos'], placed['web/nginx-7d9c/nginx']['data-cpus']) == \
        ('Burstable', '0,8-64,72-127')
    assert placed['batch/logger-0/log']['data-qos'] == 'BestEffort'
    # Koordinator's class beside the Kubernetes one (module_utils/koordinator.py), Volcano's qos-level where present
    assert (placed['web/nginx-7d9c/nginx']['data-koordinator-class'],
            placed['web/nginx-7d9c/nginx']['data-volcano-qos-level']) == ('LS', 'LS')
    assert (placed['data/postgres-0/db']['data-koordinator-class'],
            placed['data/postgres-0/db']['data-volcano-qos-level']) == ('LSR', '')
    assert 'Guaranteed &middot; <span class="koord" title="no koordinator.sh/qosClass label' in html
    assert 'Burstable &middot; <span class="koord" title="koordinator.sh/qosClass label">koord LS</span> &middot; ' \
        '<span class="volcano" title="volcano.sh/qos-level annotation">volcano LS</span>' in html
    assert placed['telco/dpdk-fwd-0/dpdk']['data-exclusive'] == 'True'
    assert 'pod 5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d06/[%s]' % cid('log')[:12] in placed   # a pod not given: its UID
    assert 'data/postgres-0/[%s]' % cid('pause-b')[:12] in placed                        # the sandbox: its ID
    # the stale entry of tx2-1 is marked and its CPUs are not drawn as a container's
    stale = [a for t, a in doc.tags if a.get('data-stale') == 'true']
    assert [a['data-cpus'] for a in stale] == ['30-33']
    cpus = dict((a['data-cpu'], a['data-role']) for t, a in doc.tags if a.get('class') == 'cpu'
                and a['data-cpu'] in ('30', '31', '32', '33'))
    assert set(cpus.values()) == {'shared'}
    data = json.loads(doc.script)
    assert data['nodes'][0]['containers'][0]['stale'] is True
    assert len(data['nodes'][1]['placement']) == 7


def test_html_placement_unknown():
    html = numa_report.render_html([{'name': 'epyc-1', 'facts': facts_of('synthetic-8numa')}])
    assert 'data-field="placement-unknown"' in html


def test_no_kubelet_says_so_and_drift_is_not_zero():
    from ansible_collections.numaops.colocation.plugins.module_utils import numa
    from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import SANDBOX
    # a node without a kubelet: no configuration file, no state files
    facts = numa.collect(SANDBOX, kubelet_config='/no/kubelet/config.yaml', state_dir='/no/kubelet')
    assert facts['kubelet']['found'] is False
    html = numa_report.render_html([{'name': 'bare-1', 'facts': facts}])
    doc = parse(html)
    row = [a for t, a in doc.tags if a.get('data-field') == 'cpu-policy']
    assert len(row) == 1
    assert '<td data-field="cpu-policy">no kubelet</td>' in html
    assert '<td data-field="memory-policy">no kubelet</td>' in html
    assert 'unknown (no kubelet)' in html
    # the textfile says nothing about drift where the report says unknown (was numaops_numa_drift 0)
    text = numa_textfile.render_textfile(facts)
    assert 'numaops_numa_drift' not in text
    assert 'cpu_manager="no kubelet"' in text
    # node_prep's own answer decides when it is given
    assert 'numaops_numa_drift 0' in numa_textfile.render_textfile(facts, drift=False).splitlines()
    # a kubelet whose configuration could not be read: drift unknown, left out, policies not "no kubelet"
    xeon = facts_of('xeon8358-2s')
    xeon['kubelet']['config'] = None
    assert 'numaops_numa_drift' not in numa_textfile.render_textfile(xeon)
    assert numa_report_data.policies(xeon)['cpu_manager'] == 'none (default)'
    html = numa_report.render_html([{'name': 'x', 'facts': xeon}])
    assert '<td data-field="drift"><span class="small">unknown</span></td>' in html


def test_isolated_cpus_outlined_clearly():
    facts = facts_of('xeon8358-2s')
    facts['isolated_cpus'] = '2-3'
    html = numa_report.render_html([{'name': 'x', 'facts': facts}])
    cells = re.findall(r'<rect class="cpu" data-cpu="(\d+)"[^>]*data-isolated="true"[^>]*stroke="#000" '
                       r'stroke-width="2"', html)
    assert cells == ['2', '3']
    assert html.count('<path d="M') == 2                 # the black corner of each isolated CPU
    assert 'isolated (isolcpus)' in html


def test_exclusive_cpus_of_a_pod_not_verified_running_are_not_drawn_as_live():
    facts = facts_of('xeon8358-2s')
    for item in facts['kubelet']['cpu_manager']['exclusive']:
        item['stale'] = None                           # neither cgroups nor pods could tell
    html = numa_report.render_html([{'name': 'x', 'facts': facts}])
    doc = parse(html)
    roles = set(a['data-role'] for t, a in doc.tags if a.get('class') == 'cpu' and a.get('data-container'))
    assert roles == {'exclusive-unverified'}
    assert 'not verified running' in html
    assert [a['data-container'] for t, a in doc.tags if a.get('data-unverified') == 'true'] == \
        ['telco/dpdk-fwd-0/dpdk', 'data/postgres-0/db']


def _refused(name, owner=None, reason='TopologyAffinityError'):
    meta = {'namespace': 'shop', 'name': name, 'uid': 'u-' + name, 'creationTimestamp': '2026-12-01T10:00:00Z',
            'labels': {'pod-template-hash': 'h1'} if owner else {}}
    if owner:
        meta['ownerReferences'] = [{'kind': 'ReplicaSet', 'name': owner, 'controller': True}]
    res = {'cpu': '70', 'memory': '8Gi'}
    return {'metadata': meta, 'spec': {'containers': [{'name': 'app', 'resources': {'requests': res, 'limits': res}}]},
            'status': {'phase': 'Failed', 'reason': reason, 'qosClass': 'Guaranteed',
                       'message': 'Pod was rejected: Resources cannot be allocated with Topology locality'}}


def test_refusals_in_the_report_and_the_textfile_escaped():
    from ansible_collections.numaops.colocation.plugins.module_utils import numa
    from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree
    hostile = '<img src=x onerror=alert(1)>"\\\n'
    pods = [_refused('web-h1-%d' % i, owner='web-h1') for i in range(3)] + [_refused(hostile)]
    pods[3]['status']['message'] = 'Pod was rejected: <script>alert(1)</script>'
    facts = numa.collect(tree('xeon8358-2s'), pods=pods)
    html = numa_report.render_html([{'name': 'xeon-1', 'facts': facts},
                                    {'name': 'tx2-1', 'facts': facts_of('thunderx2-2s')},
                                    {'name': 'bare', 'facts': numa.collect(tree('thunderx2-2s'))}])
    assert '<img src=x' not in html and '<script>alert' not in html
    assert '&lt;img src=x onerror=alert(1)&gt;' in html and '&lt;script&gt;alert(1)&lt;/script&gt;' in html
    doc = parse(html)
    rows = [a for t, a in doc.tags if a.get('data-field') == 'refusal']
    assert [(a['data-reason'], a['data-owner-refusals']) for a in rows] == [('TopologyAffinityError', '1')] + \
        [('TopologyAffinityError', '3')] * 3
    assert 'ReplicaSet/web-h1 (Deployment/web)' in html
    counts = dict((a['href'], a['data-count']) for t, a in doc.tags if a.get('data-field') == 'refused')
    assert counts == {'#refused-2': '4', '#refused-1': '0'}        # bare: not read from the API, shown as -
    assert 'data-field="refusals-unknown"' in html and 'data-field="refusals-none"' in html
    assert 'no single NUMA node holds it now' in html
    lines = numa_textfile.render_textfile(facts).splitlines()
    assert 'numaops_kubelet_refused_pods{reason="TopologyAffinityError"} 4' in lines
    assert 'numaops_kubelet_refused_pods{reason="SMTAlignmentError"} 0' in lines
    assert ('numaops_kubelet_refused_pods_by_owner{namespace="shop",owner_kind="ReplicaSet",owner="web-h1",'
            'reason="TopologyAffinityError"} 3') in lines
    assert ('numaops_kubelet_refused_pods_by_owner{namespace="shop",owner_kind="",'
            'owner="<img src=x onerror=alert(1)>\\"\\\\\\n",reason="TopologyAffinityError"} 1') in lines
    assert 'numaops_kubelet_refused_pods{' not in numa_textfile.render_textfile(numa.collect(tree('thunderx2-2s')))
    data = json.loads(doc.script)
    assert [len(row['refusals'] or []) for row in data['nodes']] == [0, 0, 4]


def _answer(*samples):
    """A Prometheus /api/v1/query answer with (series name, instance, numa_node, value) samples."""
    return {'status': 'success', 'data': {'resultType': 'vector', 'result': [
        {'metric': {'__name__': name, 'instance': instance, 'numa_node': node}, 'value': [1764590000.0, value]}
        for name, instance, node, value in samples]}}


def test_live_usage_bars_from_prometheus():
    cpu, mem = numa_report_live.LIVE_QUERIES['cpu_busy'], numa_report_live.LIVE_QUERIES['memory_used_bytes']
    assert numa_report_live.LIVE_SELECTOR == '{__name__=~"%s|%s"}' % (cpu, mem)
    answer = _answer((cpu, 'xeon-1:9100', '0', '0.25'), (cpu, 'xeon-1:9100', '1', 'NaN'),
                     (mem, 'xeon-1:9100', '0', str(32 * 1024 ** 3)), (mem, 'xeon-1:9100', 'x', '1'),
                     ('other', 'xeon-1:9100', '0', '5'), (cpu, 'tx2-1:9100', '1', '0.5'))
    xeon = {0: {'cpu_busy': 0.25, 'memory_used_bytes': 32.0 * 1024 ** 3}}
    assert numa_report_live.live_usage(answer) == {'xeon-1:9100': xeon, 'tx2-1:9100': {1: {'cpu_busy': 0.5}}}
    assert numa_report_live.live_usage({'status': 'error'}) == {} and numa_report_live.live_usage('junk') == {}
    from ansible_collections.numaops.colocation.plugins.filter import numa_report as report_filter
    hosts = [{'inventory_hostname': 'xeon-1', 'numaops_numa': facts_of('xeon8358-2s')},
             {'inventory_hostname': 'tx2-1', 'numaops_numa': facts_of('thunderx2-2s'),
              'numa_report_prometheus_instance': 'tx2-1.example:9100'}]
    html = report_filter.numa_report_html(hosts, live=answer)
    doc = parse(html)
    # tx2-1 (first by name) is another instance than the one with data; xeon-1's NUMA node 1 had NaN
    cpu_bars = [a['data-value'] for t, a in doc.tags if a.get('data-field') == 'live-cpu']
    assert cpu_bars == ['', '', '0.25', '']
    mem_bars = [a['data-value'] for t, a in doc.tags if a.get('data-field') == 'live-memory']
    assert mem_bars == ['', '', str(32.0 * 1024 ** 3), '']
    assert 'live CPU busy 25.0 %' in html and 'live memory used without page cache 32.0 GiB' in html
    assert 'live CPU busy ?' in html
    assert 'live-cpu' not in report_filter.numa_report_html(hosts)   # no Prometheus asked: no live bars
    data = json.loads(report_filter.numa_report_json(hosts, live=answer))
    assert data['nodes'][1]['live'] == {'0': {'cpu_busy': 0.25, 'memory_used_bytes': 32.0 * 1024 ** 3}}


def test_snapshot_memory_bar_without_page_cache():
    facts = facts_of('xeon8358-2s')
    html = numa_report.render_html([{'name': 'x', 'facts': facts}])
    node = facts['numa_nodes'][0]
    assert ('data-numa="0" data-total="%d" data-free="%d" data-used="%d">' % (
        node['memory_total_bytes'], node['memory_free_bytes'], node['memory_used_without_cache_bytes'])) in html
    assert 'used without page cache</text>' in html
