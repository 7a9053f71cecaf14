# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node_exporter textfile: accepted by a real promtool, served by a real prometheus-node-exporter (Debian
packages prometheus and prometheus-node-exporter) on 127.0.0.1 and read back over HTTP. Fails (does not skip)
when they are missing: install the packages of tests/apt-packages.txt (scripts/lib.sh ensure_apt)."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_textfile
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import facts_of


def tool(name, package):
    path = shutil.which(name) or (os.path.exists('/usr/bin/' + name) and '/usr/bin/' + name)
    if not path:
        pytest.fail('%s is not installed (Debian package %s, listed in tests/apt-packages.txt; scripts/lib.sh '
                    'ensure_apt)' % (name, package))
    return path


@pytest.mark.parametrize('tree', ['xeon8358-2s', 'thunderx2-2s', 'synthetic-8numa'])
def test_promtool_accepts_the_textfile(tree):
    text = numa_textfile.render_textfile(facts_of(tree), drift=True, last_run=1764590000.25)
    proc = subprocess.run([tool('promtool', 'prometheus'), 'check', 'metrics'], input=text.encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60, check=False)
    assert proc.returncode == 0 and proc.stdout == b'', proc.stdout.decode()


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_node_exporter_serves_the_textfile(tmp_path):
    text = numa_textfile.render_textfile(facts_of('xeon8358-2s'), drift=False, last_run=1764590000)
    directory = tmp_path / 'textfile'
    directory.mkdir()
    (directory / 'numaops_numa.prom').write_text(text)
    port = free_port()
    proc = subprocess.Popen([tool('prometheus-node-exporter', 'prometheus-node-exporter'),
                             '--web.listen-address=127.0.0.1:%d' % port, '--collector.disable-defaults',
                             '--collector.textfile', '--collector.textfile.directory=%s' % directory],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        body = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port, timeout=5) as response:
                    body = response.read().decode()
                break
            except OSError:
                time.sleep(0.2)
        assert body is not None, 'node_exporter did not answer: %s' % (proc.stdout.read().decode()
                                                                       if proc.poll() is not None else 'still starting')
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    lines = body.splitlines()
    assert 'numaops_numa_node_free_exclusive_cpus{numa_node="0"} 48' in lines
    assert ('numaops_container_exclusive_cpus{container="dpdk",cpus="1-4,65-68",namespace="telco",numa_node="0",'
            'pod="dpdk-fwd-0",pod_uid="6c4b8a42-1d7e-4f0a-9a55-2f1e9d3c7b01"} 8') in lines
    assert 'numaops_node_prep_last_run_timestamp_seconds 1.76459e+09' in lines
    assert 'numaops_numa_cpu_info{core="1",cpu="65",numa_node="0",socket="0"} 1' in lines
    assert any(line.startswith('numaops_container_numa_memory_used_bytes{container="nginx",') for line in lines)
    # node_exporter reports the file as read without error
    assert any(line.startswith('node_textfile_scrape_error') and line.endswith(' 0') for line in lines)
