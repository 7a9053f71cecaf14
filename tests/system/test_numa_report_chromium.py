# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report in a real headless Chromium (Debian's chromium package): the DOM Chromium builds from the file
carries the numbers of the facts, and a screenshot is taken. Fails (does not skip) when chromium is missing:
install the packages of tests/apt-packages.txt (scripts/lib.sh ensure_apt)."""
from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from html.parser import HTMLParser

import pytest

from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_report
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import facts_of, fleet

FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync']


def chromium():
    for name in ('chromium', 'chromium-browser'):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail('chromium is not installed: the report is tested in a real browser. Install the Debian packages '
                'chromium and chromium-driver (listed in tests/apt-packages.txt; scripts/lib.sh ensure_apt).')
    return None


def run_chromium(tmp_path, url, *args):
    profile = tmp_path / 'profile'
    profile.mkdir(exist_ok=True)
    command = [chromium()] + FLAGS + ['--user-data-dir=%s' % profile] + list(args) + [url]
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, check=False,
                          env=dict(os.environ, HOME=str(tmp_path)))
    assert proc.returncode == 0, proc.stderr.decode(errors='replace')[-2000:]
    return proc.stdout.decode()


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements = []
        self.text = {}
        self._current = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        attrs['_tag'] = tag
        self.elements.append(attrs)
        self._current = attrs

    def handle_data(self, data):
        if self._current is not None:
            self._current['_text'] = self._current.get('_text', '') + data


@pytest.fixture(scope='module')
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp('report') / 'numa-report.html'
    path.write_text(numa_report.render_html(fleet(extra_nodes=200), generated='2026-12-01T12:00:00Z'))
    return path


def test_chromium_dom_matches_the_facts(report, tmp_path):
    dom = Dom()
    dom.feed(run_chromium(tmp_path, report.as_uri(), '--dump-dom', '--virtual-time-budget=2000'))
    rows = [e for e in dom.elements if e['_tag'] == 'tr' and 'data-node' in e]
    assert len(rows) == 205
    xeon = facts_of('xeon8358-2s')
    tx2 = facts_of('thunderx2-2s')
    free = [(e['data-numa'], e['data-count']) for e in dom.elements if e.get('data-field') == 'free-exclusive']
    assert free.count(('0', str(xeon['numa_nodes'][0]['free_exclusive_cpu_count']))) == 201   # 200 copies + xeon-1
    memory = dict(((e['data-numa'], e['data-total']), e['_text']) for e in dom.elements if e.get('data-field') == 'memory')
    node0 = tx2['numa_nodes'][0]
    assert memory[('0', str(node0['memory_total_bytes']))].startswith('memory 63.3 GiB total')
    cpus = [e for e in dom.elements if e.get('class') == 'cpu']
    worker = sorted(int(e['data-cpu']) for e in cpus if e.get('data-container') == 'batch/spark-exec-7/worker')
    assert worker == tx2['kubelet']['cpu_manager']['exclusive'][1]['cpu_ids'] == [2, 3, 4, 5]
    # every container where the kernel placed it (xeon-1 and its 200 copies), the stale entry of tx2-1 marked
    nginx = [e for e in dom.elements if e.get('data-field') == 'placement' and e['data-container'] == 'web/nginx-7d9c/nginx']
    assert len(nginx) == 201 and nginx[0]['data-cpus'] == '0,8-64,72-127' and nginx[0]['data-qos'] == 'Burstable'
    # Koordinator's class (its koordinator.sh/qosClass label) and Volcano's qos-level beside the Kubernetes class
    assert (nginx[0]['data-koordinator-class'], nginx[0]['data-volcano-qos-level']) == ('LS', 'LS')
    koord = [e['_text'].split('\u00b7')[0].strip() for e in dom.elements if e.get('class') == 'koord']
    # labelled (nginx: its container and its sandbox) and not (postgres: Guaranteed, so LSR; * says no label)
    assert koord.count('koord LS') == 2 * 201 and 'koord LSR*' in koord
    assert [e['data-cpus'] for e in dom.elements if e.get('data-stale') == 'true'] == ['30-33']
    # the JSON Chromium parsed out of the page is the report's data
    script = next(e for e in dom.elements if e.get('id') == 'numa-data')
    data = json.loads(script['_text'])
    assert data['nodes'][0]['name'] == 'down-1' and len(data['nodes']) == 205


def png_size(path):
    with open(path, 'rb') as handle:
        head = handle.read(24)
    assert head[:8] == b'\x89PNG\r\n\x1a\n'
    return struct.unpack('>II', head[16:24])


def test_chromium_screenshot(report, tmp_path):
    small = report.parent / 'small.html'
    entries = [e for e in fleet() if e['name'] in ('xeon-1', 'tx2-1', 'epyc-1')]
    small.write_text(numa_report.render_html(entries, generated='2026-12-01T12:00:00Z'))
    shot = tmp_path / 'report.png'
    run_chromium(tmp_path, small.as_uri(), '--screenshot=%s' % shot, '--window-size=1400,1800',
                 '--hide-scrollbars')
    assert png_size(str(shot)) == (1400, 1800)
    assert os.path.getsize(str(shot)) > 50000     # not a blank page
    keep = os.environ.get('NUMAOPS_KEEP_SCREENSHOT')
    if keep:
        shutil.copy(str(shot), keep)


def test_chromium_refusals_isolated_cpus_and_hostile_text(tmp_path):
    """Refused pods, isolated CPUs and a hostile pod message as Chromium builds them: the message is text, never an
    element; each isolated CPU carries its black frame; a screenshot (NUMAOPS_KEEP_REFUSALS_SCREENSHOT=<path>
    keeps it: docs/images/numa-report-refusals.png)."""
    from ansible_collections.numaops.colocation.plugins.module_utils import numa
    from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree
    from ansible_collections.numaops.colocation.tests.unit.plugins.plugin_utils.test_numa_report import _refused
    root = tree('xeon8358-2s')
    with open(os.path.join(root, 'pods.json')) as handle:
        pods = json.load(handle)
    pods += [_refused('web-h1-%s' % suffix, owner='web-h1') for suffix in ('x2k9q', 'b7m4t', 'p0d3w')]
    pods[-1]['status']['message'] = 'Pod was rejected: <img src=x onerror=alert(1)>'
    facts = numa.collect(root, pods=pods)
    facts['isolated_cpus'] = '2-9,66-73'
    page = tmp_path / 'refusals.html'
    page.write_text(numa_report.render_html([{'name': 'xeon-1', 'facts': facts}], generated='2026-12-01T12:00:00Z'))
    dom = Dom()
    dom.feed(run_chromium(tmp_path, page.as_uri(), '--dump-dom', '--virtual-time-budget=2000'))
    assert not [e for e in dom.elements if e['_tag'] == 'img']
    rows = [e for e in dom.elements if e.get('data-field') == 'refusal']
    assert [(e['data-pod'], e['data-owner-refusals']) for e in rows] == \
        [('shop/web-h1-%s' % s, '3') for s in ('b7m4t', 'p0d3w', 'x2k9q')]   # oldest first, then by name
    isolated = sorted(int(e['data-cpu']) for e in dom.elements if e.get('data-isolated') == 'true')
    assert isolated == list(range(2, 10)) + list(range(66, 74))
    assert all(e.get('stroke') == '#000' and e.get('stroke-width') == '2'
               for e in dom.elements if e.get('data-isolated') == 'true')
    shot = tmp_path / 'refusals.png'
    run_chromium(tmp_path, page.as_uri(), '--screenshot=%s' % shot, '--window-size=1400,1000', '--hide-scrollbars')
    assert png_size(str(shot)) == (1400, 1000)
    keep = os.environ.get('NUMAOPS_KEEP_REFUSALS_SCREENSHOT')
    if keep:
        shutil.copy(str(shot), keep)
