# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kwok configuration the test control plane runs with: the stages that play the kubelet.

The ``kwok`` binary ships no stages of its own (kwokctl adds them); without any it refuses to start. These
are ours, written for what the tests need:

* ``node-ready``: a managed node without a Ready=True condition gets Ready (and the other kubelet
  conditions), addresses, capacity/allocatable (when it has none) and nodeInfo.
* ``pod-image-pull-failed``: a pod on a managed node whose image names a registry under the reserved
  ``.invalid`` top-level domain (RFC 2606: it can never resolve) waits in ErrImagePull, never Ready, as a
  kubelet leaves a pod whose image cannot be pulled. Also every pod of a workload named with
  ``never_ready`` (``namespace/name`` of a Deployment or DaemonSet; the owner chain is followed through the
  pod's ReplicaSet name).
* ``pod-ready``: any other pending pod on a managed node becomes Running and Ready, containers running.
* ``pod-delete``: a pod being deleted is removed at once (the kubelet confirming termination).

Scheduling stays the real kube-scheduler's job: kwok only acts on pods bound to nodes it manages.
"""
from __future__ import annotations

import json

# the annotation that puts a Node under kwok's management (--manage-nodes-with-annotation-selector)
MANAGED_ANNOTATION = 'kwok.x-k8s.io/node'
MANAGED_VALUE = 'fake'
UNPULLABLE_REGISTRY_SUFFIX = '.invalid/'

# jq (gojq) expressions kwok evaluates on the pod
_UNPULLABLE = ('[.spec.containers[].image, (.spec.initContainers // [])[].image] '
               '| map(split("/")[0] + "/" | endswith("%s")) | any | select(.) ' % UNPULLABLE_REGISTRY_SUFFIX)
# "namespace/workload": a DaemonSet owns its pods; a Deployment owns the ReplicaSet "<name>-<hash>" that owns them
_WORKLOAD = ('.metadata.namespace + "/" + ((.metadata.ownerReferences // [])[] | select(.controller) '
             '| if .kind == "ReplicaSet" then (.name | sub("-[^-]+$"; "")) else .name end)')

_NODE_READY = r'''
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-ready
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}
      addresses:
      - address: {{ NodeIP | Quote }}
        type: InternalIP
      - address: {{ NodeName | Quote }}
        type: Hostname
      allocatable:
      {{ with .status.allocatable }}
      {{ YAML . 1 }}
      {{ else }}
        cpu: "32"
        memory: 128Gi
        pods: "110"
      {{ end }}
      capacity:
      {{ with .status.capacity }}
      {{ YAML . 1 }}
      {{ else }}
        cpu: "32"
        memory: 128Gi
        pods: "110"
      {{ end }}
      {{ $info := .status.nodeInfo }}
      nodeInfo:
        architecture: {{ or $info.architecture "amd64" }}
        bootID: {{ or $info.bootID `""` }}
        containerRuntimeVersion: {{ or $info.containerRuntimeVersion "containerd://2.4.2" }}
        kernelVersion: {{ or $info.kernelVersion "6.12.0" }}
        kubeProxyVersion: {{ or $info.kubeProxyVersion `""` }}
        kubeletVersion: {{ or $info.kubeletVersion (printf "kwok-%s" Version) }}
        machineID: {{ or $info.machineID `""` }}
        operatingSystem: {{ or $info.operatingSystem "linux" }}
        osImage: {{ or $info.osImage "kwok fake node" }}
        systemUUID: {{ or $info.systemUUID `""` }}
      phase: Running
'''

_POD_PULL_FAILED = r'''
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-image-pull-failed-%(n)d
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: DoesNotExist}
    - {key: '.status.phase', operator: In, values: ['Pending']}
    - {key: '.status.containerStatuses', operator: DoesNotExist}
    - %(match)s
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: PodScheduled}
      - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: Initialized}
      - {lastTransitionTime: {{ $now | Quote }}, status: "False", type: Ready, reason: ContainersNotReady}
      - {lastTransitionTime: {{ $now | Quote }}, status: "False", type: ContainersReady, reason: ContainersNotReady}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          waiting:
            reason: ErrImagePull
            message: {{ printf "failed to pull image %%q: the registry cannot be resolved" .image | Quote }}
      {{ end }}
      {{ with NodeIPWith .spec.nodeName }}
      hostIP: {{ . | Quote }}
      {{ end }}
      phase: Pending
      startTime: {{ $now | Quote }}
'''

_POD_READY = r'''
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: DoesNotExist}
    - {key: '.status.phase', operator: In, values: ['Pending']}
    - {key: '.status.containerStatuses', operator: DoesNotExist}
%(exclude)s
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: PodScheduled}
      - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: Initialized}
      - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: Ready}
      - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: ContainersReady}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      {{ with NodeIPWith .spec.nodeName }}
      hostIP: {{ . | Quote }}
      {{ end }}
      {{ with PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
      podIP: {{ . | Quote }}
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
'''

_POD_DELETE = r'''
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: Exists}
  next:
    delete: true
'''


def config(never_ready=()):
    """The kwok configuration (multi-document YAML) with ``never_ready`` workloads (``namespace/name``)."""
    matches = [{'key': _UNPULLABLE, 'operator': 'Exists'}]
    if never_ready:
        matches.append({'key': _WORKLOAD, 'operator': 'In', 'values': sorted(never_ready)})
    docs = [_NODE_READY]
    exclude = []
    for number, match in enumerate(matches):
        docs.append(_POD_PULL_FAILED % {'n': number, 'match': json.dumps(match)})
        exclude.append('    - ' + json.dumps(dict(match, operator='DoesNotExist' if match['operator'] == 'Exists' else 'NotIn')))
    docs.append(_POD_READY % {'exclude': '\n'.join(exclude)})
    docs.append(_POD_DELETE)
    return '---\n'.join(doc.lstrip('\n') for doc in docs)
