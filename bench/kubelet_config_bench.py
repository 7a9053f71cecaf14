# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measure the controller-side work of numaops.colocation.kubelet_config per host.

For each shared real-world scenario (tests/unit/plugins/fixtures/kubelet/scenarios.yml) and for a
synthetic configuration padded with N extra keys, time the steps the action plugin runs on the
controller: parse (ruamel.yaml), plan, validate, checkpoint decision, render, and re-read of the result.
The node side (one node_files call to read, one to write) is not included: it is a file read/write.

Usage: python3 bench/kubelet_config_bench.py [--repeat 50] [--pad 2000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, 'tests', 'unit', 'plugins', 'fixtures', 'kubelet')


def import_collection():
    top = tempfile.mkdtemp(prefix='numaops-bench-')
    os.makedirs(os.path.join(top, 'ansible_collections', 'numaops'))
    os.symlink(ROOT, os.path.join(top, 'ansible_collections', 'numaops', 'colocation'))
    sys.path.insert(0, top)
    from ansible_collections.numaops.colocation.plugins.module_utils import kubelet  # pylint: disable=import-outside-toplevel
    from ansible_collections.numaops.colocation.plugins.plugin_utils import kubelet_yaml  # pylint: disable=import-outside-toplevel
    return kubelet, kubelet_yaml


def one_run(kubelet, kubelet_yaml, text, params, cpu_state, memory_state):
    doc = kubelet_yaml.load(text, 'bench')
    current = kubelet_yaml.to_plain(doc)
    kubelet.check_document(current, 'bench')
    new, changed = kubelet.plan_values(current, kubelet.requested_values(params))
    kubelet.validate(new, params.get('kubelet_version'))
    kubelet.state_files_to_remove(current, new, cpu_state, memory_state)
    out = kubelet_yaml.render(text, doc, new, changed)
    if out != text:
        assert kubelet_yaml.to_plain(kubelet_yaml.load(out, 'bench')) == new
    return out


def measure(label, repeat, func):
    func()
    start = time.perf_counter()
    for _index in range(repeat):
        func()
    elapsed = (time.perf_counter() - start) / repeat
    print('%-60s %8.2f ms per host' % (label, elapsed * 1000))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=50)
    parser.add_argument('--pad', type=int, default=2000)
    args = parser.parse_args()
    kubelet, kubelet_yaml = import_collection()
    import yaml  # pylint: disable=import-outside-toplevel

    with open(os.path.join(FIXTURES, 'scenarios.yml')) as handle:
        scenarios = yaml.safe_load(handle)['scenarios']

    def read(name):
        if not name:
            return None
        with open(os.path.join(FIXTURES, name)) as handle:
            return handle.read()

    for scenario in scenarios:
        text = read(scenario['fixture'])
        cpu, memory = read(scenario.get('cpu_state')), read(scenario.get('memory_state'))
        measure('%s (%d lines)' % (scenario['name'], text.count('\n')), args.repeat,
                lambda: one_run(kubelet, kubelet_yaml, text, scenario['params'], cpu, memory))
    base = read('kubeadm-1.31.yaml')
    padded = base + ''.join('zzExtraKey%05d: value-%d  # comment\n' % (i, i) for i in range(args.pad))
    params = scenarios[0]['params']
    measure('kubeadm 1.31 + %d extra keys (%d lines)' % (args.pad, padded.count('\n')), max(1, args.repeat // 10),
            lambda: one_run(kubelet, kubelet_yaml, padded, params, None, None))
    measure('no change (second run) on kubeadm 1.31', args.repeat,
            lambda: one_run(kubelet, kubelet_yaml, read(scenarios[0]['expected']), params, None, None))


if __name__ == '__main__':
    main()
