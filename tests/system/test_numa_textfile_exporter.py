# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node_exporter textfile: accepted by a real promtool, served by a real prometheus-node-exporter (Debian
packages prometheus and prometheus-node-exporter) on 127.0.0.1 and read back over HTTP. Fails (does not skip)
when they are missing: install the packages of tests/apt-packages.txt (scripts/lib.sh ensure_apt)."""
from __future__ import annotations

import subprocess
import urllib.request

import pytest

from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_textfile
from ansible_collections.numaops.colocation.tests.system.prometheus_live import free_port, program, start, stop
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import facts_of


@pytest.mark.parametrize('tree', ['xeon8358-2s', 'thunderx2-2s', 'synthetic-8numa'])
def test_promtool_accepts_the_textfile(tree):
    text = numa_textfile.render_textfile(facts_of(tree), drift=True, last_run=1764590000.25)
    proc = subprocess.run([program('promtool', 'prometheus'), 'check', 'metrics'], input=text.encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60, check=False)
    assert proc.returncode == 0 and proc.stdout == b'', proc.stdout.decode()


def test_node_exporter_serves_the_textfile(tmp_path):
    text = numa_textfile.render_textfile(facts_of('xeon8358-2s'), drift=False, last_run=1764590000)
    directory = tmp_path / 'textfile'
    directory.mkdir()
    (directory / 'numaops_numa.prom').write_text(text)
    port = free_port()
    url = 'http://127.0.0.1:%d/metrics' % port
    with open(tmp_path / 'node_exporter.log', 'w+b') as log:
        proc = start([program('prometheus-node-exporter', 'prometheus-node-exporter'),
                      '--web.listen-address=127.0.0.1:%d' % port, '--collector.disable-defaults',
                      '--collector.textfile', '--collector.textfile.directory=%s' % directory], url, log, timeout=30)
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                body = response.read().decode()
        finally:
            stop(proc)
    lines = body.splitlines()
    assert 'numaops_numa_node_free_exclusive_cpus{numa_node="0"} 48' in lines
    assert ('numaops_container_exclusive_cpus{container="dpdk",cpus="1-4,65-68",namespace="telco",numa_node="0",'
            'pod="dpdk-fwd-0",pod_uid="6c4b8a42-1d7e-4f0a-9a55-2f1e9d3c7b01"} 8') in lines
    assert 'numaops_node_prep_last_run_timestamp_seconds 1.76459e+09' in lines
    assert 'numaops_numa_cpu_info{core="1",cpu="65",numa_node="0",socket="0"} 1' in lines
    assert any(line.startswith('numaops_container_numa_memory_used_bytes{container="nginx",') for line in lines)
    # node_exporter reports the file as read without error
    assert any(line.startswith('node_textfile_scrape_error') and line.endswith(' 0') for line in lines)
