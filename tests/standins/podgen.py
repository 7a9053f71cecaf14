# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pod and ColocationConfiguration objects shaped like the Kubernetes API returns them (test data).

Used by the memory_qos unit tests, the bench and (through ``python podgen.py node``) the molecule
scenario and the integration target.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import argparse
import hashlib
import json
import sys
import uuid

RUNTIME_SCHEMES = ('containerd', 'cri-o', 'docker')


def make_uid(seed):
    return str(uuid.UUID(hashlib.md5(seed.encode()).hexdigest()))


def make_cid(seed, runtime='containerd'):
    return '%s://%s' % (runtime, hashlib.sha256(seed.encode()).hexdigest())


def container(name, limits=None, requests=None):
    resources = {}
    if limits:
        resources['limits'] = dict(limits)
    if requests:
        resources['requests'] = dict(requests)
    return {'name': name, 'image': 'registry.example/app:1', 'resources': resources}


def make_pod(name, namespace='team', qos='Burstable', containers=None, labels=None, annotations=None,
             uid=None, node='node-1', runtime='containerd', running=True, phase='Running', cids=None, ready=None):
    containers = containers if containers is not None else [container('app', {'memory': '1Gi'}, {'memory': '512Mi'})]
    uid = uid or make_uid(namespace + '/' + name)
    statuses = []
    for index, cont in enumerate(containers):
        status = {'name': cont['name'], 'ready': running, 'restartCount': 0, 'image': cont['image']}
        if running:
            status['state'] = {'running': {'startedAt': '2026-11-29T08:00:00Z'}}
            status['containerID'] = (cids or {}).get(cont['name']) or make_cid(uid + cont['name'], runtime)
        else:
            status['state'] = {'waiting': {'reason': 'ContainerCreating'}}
        statuses.append(status)
    meta = {'name': name, 'namespace': namespace, 'uid': uid, 'creationTimestamp': '2026-11-29T08:00:00Z'}
    if labels is not None:
        meta['labels'] = dict(labels)
    if annotations is not None:
        meta['annotations'] = dict(annotations)
    # The kubelet: Ready=True when every container runs and is ready (ready= overrides it).
    ready = (running and phase == 'Running') if ready is None else ready
    conditions = [{'type': 'Ready', 'status': 'True' if ready else 'False',
                   'lastTransitionTime': '2026-11-29T08:00:05Z'}]
    if not ready:
        conditions[0]['reason'] = 'ContainersNotReady' if phase == 'Running' else 'PodCompleted'
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': meta,
            'spec': {'nodeName': node, 'containers': containers},
            'status': {'phase': phase, 'qosClass': qos, 'conditions': conditions, 'containerStatuses': statuses}}


def make_config(name, namespace='team', selector=None, memory_qos=None, created='2026-11-01T00:00:00Z'):
    spec = {}
    if selector is not None:
        spec['selector'] = selector
    if memory_qos is not None:
        spec['memoryQos'] = memory_qos
    return {'apiVersion': 'config.volcano.sh/v1alpha1', 'kind': 'ColocationConfiguration',
            'metadata': {'name': name, 'namespace': namespace, 'creationTimestamp': created,
                         'uid': make_uid('cfg/' + namespace + '/' + name)},
            'spec': spec}


def busy_node(pods=110, containers=4, node='node-1'):
    """A full node: ``pods`` pods x ``containers`` containers, a quarter each offline (BE level, batch-memory),
    online (LS), Guaranteed (LC) and BestEffort; all three runtimes; returns (pods, configs)."""
    result = []
    for index in range(pods):
        kind = index % 4  # 0 offline (BE level, batch-memory), 1 online (LS), 2 Guaranteed (LC), 3 BestEffort
        conts = []
        for cindex in range(containers):
            if kind == 0:
                conts.append(container('c%d' % cindex, {'memory': '%dMi' % (256 + cindex * 100),
                                                        'kubernetes.io/batch-memory': '%dMi' % (300 + cindex)},
                                       {'memory': '%dMi' % (128 + cindex * 10),
                                        'kubernetes.io/batch-memory': '%dMi' % (150 + cindex)}))
            elif kind == 1:
                conts.append(container('c%d' % cindex, {'memory': '1.5Gi'}, {'memory': '%dM' % (500 + cindex)}))
            elif kind == 2:
                conts.append(container('c%d' % cindex, {'memory': '1Gi', 'cpu': '1'}, {'memory': '1Gi', 'cpu': '1'}))
            else:
                conts.append(container('c%d' % cindex))
        labels = {'app': 'app%d' % index, 'tier': ('offline', 'online', 'critical', 'offline')[kind]}
        annotations = {'volcano.sh/qos-level': ('BE', 'LS', 'LC', 'BE')[kind]}
        qos = ('Burstable', 'Burstable', 'Guaranteed', 'BestEffort')[kind]
        result.append(make_pod('pod-%03d' % index, namespace='team', qos=qos, containers=conts, labels=labels,
                               annotations=annotations, node=node, runtime=RUNTIME_SCHEMES[index % 3]))
    configs = [
        make_config('offline', selector={'matchLabels': {'tier': 'offline'}},
                    memory_qos={'highRatio': 80, 'lowRatio': 0, 'minRatio': 0}, created='2026-11-02T00:00:00Z'),
        make_config('online', selector={'matchExpressions': [{'key': 'tier', 'operator': 'In',
                                                              'values': ['online', 'critical']}]},
                    memory_qos={'highRatio': 100, 'lowRatio': 50, 'minRatio': 20}, created='2026-11-01T00:00:00Z'),
    ]
    return result, configs


def main(argv=None):
    parser = argparse.ArgumentParser(description='write test pods/configs as JSON')
    parser.add_argument('what', choices=['node'])
    parser.add_argument('--pods', type=int, default=6)
    parser.add_argument('--containers', type=int, default=2)
    parser.add_argument('--pods-out', required=True)
    parser.add_argument('--configs-out', required=True)
    args = parser.parse_args(argv)
    pods, configs = busy_node(args.pods, args.containers)
    with open(args.pods_out, 'w') as handle:
        json.dump({'apiVersion': 'v1', 'kind': 'PodList', 'items': pods}, handle, indent=1)
    with open(args.configs_out, 'w') as handle:
        json.dump(configs, handle, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
