# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How long colocation_sync's reconcile pass takes for N pods (against a real kube-apiserver, tests/cluster).

    python bench/colocation_sync_cluster.py [pods ...]      (default: 100 500 2000)

Prints, per pod count: the first pass (every other pod patched), the second pass (nothing to do: list +
compare) and the requests (counted in kube-apiserver's audit log). The control plane runs on this machine
(127.0.0.1, etcd without fsync), so the figures are the client, module and kube-apiserver cost without a
network: what carries over is the request count (one list per resource, one patch per changed pod, nothing
for unchanged pods) times your cluster's round trip.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tests'))
TOP = tempfile.mkdtemp(prefix='numaops-bench-')
os.makedirs(os.path.join(TOP, 'ansible_collections', 'numaops'))
os.symlink(ROOT, os.path.join(TOP, 'ansible_collections', 'numaops', 'colocation'))
sys.path.insert(0, TOP)

import kubernetes  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.numaops.colocation.tests.cluster.fixture import running_cluster  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.numaops.colocation.plugins.modules import colocation_sync  # noqa: E402  pylint: disable=wrong-import-position


class FakeModule:
    check_mode = False

    def warn(self, msg):
        print('warning:', msg)

    def fail_json(self, **kwargs):
        raise SystemExit(kwargs['msg'])


def one_pass(client, namespaces):
    reconciler = colocation_sync.Reconciler(FakeModule(), client)
    configs = reconciler.load_configs(namespaces)
    counts = {'annotated': 0, 'reset': 0, 'unchanged': 0, 'skipped': 0}
    for pod in reconciler.list_pods(namespaces, None):
        counts[reconciler.reconcile_pod(pod, configs)[0]] += 1
    return counts


def bench(count):
    with running_cluster(nodes=()) as cluster:
        config = kubernetes.client.Configuration()
        kubernetes.config.load_kube_config(config_file=cluster.kubeconfig_path, client_configuration=config)
        client = kubernetes.client.ApiClient(config)
        crd = os.path.join(ROOT, 'tests', 'unit', 'plugins', 'modules')
        sys.path.insert(0, crd)
        from k8s_module_helpers import install_crd  # pylint: disable=import-error
        install_crd(cluster, client)
        cluster.namespace('bench')
        kubernetes.client.CustomObjectsApi(client).create_namespaced_custom_object(
            'config.volcano.sh', 'v1alpha1', 'bench', 'colocationconfigurations',
            {'apiVersion': 'config.volcano.sh/v1alpha1', 'kind': 'ColocationConfiguration',
             'metadata': {'name': 'batch'}, 'spec': {'selector': {'matchLabels': {'kind': 'batch'}},
                                                     'memoryQos': {'highRatio': 80}}})
        for index in range(count):
            cluster.seed({'apiVersion': 'v1', 'kind': 'Pod',
                          'metadata': {'name': 'pod-%05d' % index, 'namespace': 'bench',
                                       'labels': {'kind': 'batch' if index % 2 else 'web'}},
                          'spec': {'containers': [{'name': 'c', 'image': 'x:1'}]}})
        results = []
        for label in ('first pass', 'second pass'):
            before = len(cluster.requests)
            start = time.perf_counter()
            counts = one_pass(client, ['bench'])
            elapsed = time.perf_counter() - start
            requests = len(cluster.requests) - before
            results.append('%6d pods  %-11s %7.2f s  %5.2f ms/pod  %5d requests  %s'
                           % (count, label, elapsed, 1000 * elapsed / count, requests, counts))
        client.close()
        return results


def main():
    counts = [int(a) for a in sys.argv[1:]] or [100, 500, 2000]
    for count in counts:
        for line in bench(count):
            print(line)


if __name__ == '__main__':
    main()
