# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pods the kubelet refused for NUMA alignment, read from the real API server (tests/cluster: etcd,
kube-apiserver, kube-controller-manager built from source) by playbooks/numa_report.yml, shown in the report and
the textfile with their Deployment's loop counted.

There is no kubelet here: the node ``numa-1`` is one nobody manages, and the test writes each refused pod's status
as the kubelet does when it refuses a pod at admission - pkg/kubelet/kubelet.go ``rejectPod`` sets phase
``Failed``, ``reason`` the admission error's type (pkg/kubelet/cm/admission/errors.go ``GetPodAdmitResult``;
``TopologyAffinityError`` from pkg/kubelet/cm/topologymanager/topology_manager.go) and ``message``
``"Pod was rejected: "`` + the error's text, and the status manager sends it as a strategic merge patch of the
``status`` subresource (pkg/util/pod/pod.go ``PatchPodStatus``). The real ReplicaSet controller then does what it
does in a cluster: it replaces each failed pod, so the Deployment's refused pods pile up. That the real kubelet
refuses such a pod on a node with two NUMA nodes is the VM scenario's part (extensions/molecule/vm)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.numaops.colocation.tests.cluster.fixture import k8s_client, k8s_cluster  # noqa: F401 pylint: disable=unused-import
from ansible_collections.numaops.colocation.tests.system import test_node_prep_fleet as fleet
from ansible_collections.numaops.colocation.tests.system.polling import wait_for
from ansible_collections.numaops.colocation.tests.system.test_numa_report_playbook import collections_path
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree

kubernetes = pytest.importorskip('kubernetes')

NAMESPACE = 'numa-refusals'
NODE = 'numa-1'
TOPOLOGY_MESSAGE = 'Pod was rejected: Resources cannot be allocated with Topology locality'
# status.message is free text the API server does not restrict: hostile markup must come out escaped
HOSTILE = 'Pod was rejected: <img src=x onerror=alert(1)> "quoted" \\ back\nslash'


def kubelet_rejects(core, name, reason, message):
    """The status the kubelet's rejectPod leaves (qosClass kept as it is), sent as its status manager sends it."""
    qos = core.read_namespaced_pod(name, NAMESPACE).status.qos_class
    body = {'status': {'phase': 'Failed', 'reason': reason, 'message': message, 'qosClass': qos}}
    core.patch_namespaced_pod_status(name, NAMESPACE, body, _content_type='application/strategic-merge-patch+json')


def guaranteed(cpu, memory):
    res = {'cpu': cpu, 'memory': memory}
    return {'requests': res, 'limits': res}


def remove_pods(core, apps):
    """Nobody runs numa-1's kubelet to confirm a graceful deletion: the Deployment goes first (no more
    replacements), then its pods with grace period 0, so that the fixture can delete the namespace."""
    for deployment in apps.list_namespaced_deployment(NAMESPACE).items:
        apps.delete_namespaced_deployment(deployment.metadata.name, NAMESPACE, propagation_policy='Orphan')
    for rs in apps.list_namespaced_replica_set(NAMESPACE).items:
        apps.delete_namespaced_replica_set(rs.metadata.name, NAMESPACE, propagation_policy='Orphan')
    for pod in core.list_namespaced_pod(NAMESPACE).items:
        core.delete_namespaced_pod(pod.metadata.name, NAMESPACE, grace_period_seconds=0)


def test_refused_pods_from_the_api_server(k8s_cluster, k8s_client, tmp_path):
    k8s_cluster.namespace(NAMESPACE)
    k8s_cluster.add_node(NODE, ready=False)
    core = kubernetes.client.CoreV1Api(k8s_client)
    apps = kubernetes.client.AppsV1Api(k8s_client)
    try:
        check_refused_pods(k8s_cluster, core, apps, tmp_path)
    finally:
        remove_pods(core, apps)


def test_audit_fails_on_refused_pods(k8s_cluster, k8s_client, tmp_path):
    """playbooks/audit.yml lists the refused pods per controller and fails on them unless
    colocation_audit_fail_on_refusals=false (the sandbox node drifts: colocation_audit_fail_on_drift=false)."""
    k8s_cluster.namespace(NAMESPACE)
    k8s_cluster.add_node(fleet.NODE, ready=False)      # the sandbox inventory's node name
    core = kubernetes.client.CoreV1Api(k8s_client)
    apps = kubernetes.client.AppsV1Api(k8s_client)
    try:
        make_refusals(core, apps, fleet.NODE)
        tree = fleet._sandbox(tmp_path, 'audit')
        inventory = fleet._inventory(tmp_path, [tree], {fleet.NODE: {
            'colocation_k8s_kubeconfig': k8s_cluster.kubeconfig_path, 'node_prep_k8s_enabled': False}})
        rc, out = fleet._playbook(inventory, 'audit.yml', '--check', '-e', 'colocation_audit_fail_on_drift=false',
                                  report_dir=str(tmp_path / 'reports'))
        assert rc != 0, out[-3000:]
        assert 'Fail on pods the kubelet refused for NUMA alignment' in out
        line = [x for x in out.splitlines() if 'REFUSED - %s/ReplicaSet/web-' % NAMESPACE in x]
        assert line and '(Deployment/web): 3 pod(s) TopologyAffinityError' in line[0], out[-3000:]
        assert '%s: REFUSED - %s/pod smt: 1 pod(s) SMTAlignmentError' % (fleet.NODE, NAMESPACE) in out
        rc, out = fleet._playbook(inventory, 'audit.yml', '--check', '-e', 'colocation_audit_fail_on_drift=false',
                                  '-e', 'colocation_audit_fail_on_refusals=false', report_dir=str(tmp_path / 'reports'))
        assert rc == 0, out[-3000:]
        assert 'REFUSED - %s/ReplicaSet/web-' % NAMESPACE in out
    finally:
        remove_pods(core, apps)


def make_refusals(core, apps, node=NODE):
    """Deployment web's pods refused three times (the fourth waiting), a bare pod refused for SMT alignment with
    a hostile message, and a pod refused for node capacity (not NUMA alignment); the names of web's refused pods."""
    # a Guaranteed pod that fits the node but no single NUMA node of it (70 CPUs; 48 and 64 free per NUMA node)
    apps.create_namespaced_deployment(NAMESPACE, {
        'metadata': {'name': 'web'},
        'spec': {'replicas': 1, 'selector': {'matchLabels': {'app': 'web'}},
                 'template': {'metadata': {'labels': {'app': 'web'}},
                              'spec': {'nodeName': node, 'containers': [
                                  {'name': 'app', 'image': 'registry.invalid/app:1',
                                   'resources': guaranteed('70', '8Gi')}]}}}})
    refused = []
    for _round in range(3):
        pod = wait_for('a pod of Deployment web the kubelet has not refused yet', lambda: next(
            (p for p in core.list_namespaced_pod(NAMESPACE, label_selector='app=web').items
             if p.metadata.name not in refused and p.status.phase != 'Failed'), None))
        kubelet_rejects(core, pod.metadata.name, 'TopologyAffinityError', TOPOLOGY_MESSAGE)
        refused.append(pod.metadata.name)
    # the ReplicaSet controller replaced the third refused pod too: the loop goes on
    wait_for('the replacement of the third refused pod', lambda: len(
        core.list_namespaced_pod(NAMESPACE, label_selector='app=web').items) == 4)
    core.create_namespaced_pod(NAMESPACE, {'metadata': {'name': 'smt'}, 'spec': {
        'nodeName': node, 'containers': [{'name': 'app', 'image': 'registry.invalid/app:1',
                                          'resources': guaranteed('3', '1Gi')}]}})
    kubelet_rejects(core, 'smt', 'SMTAlignmentError', HOSTILE)
    # refused for node capacity, not NUMA alignment: not listed
    core.create_namespaced_pod(NAMESPACE, {'metadata': {'name': 'full'}, 'spec': {
        'nodeName': node, 'containers': [{'name': 'app', 'image': 'registry.invalid/app:1'}]}})
    kubelet_rejects(core, 'full', 'OutOfcpu', 'Pod was rejected: Node didn\'t have enough resource: cpu')
    return refused


def check_refused_pods(k8s_cluster, core, apps, tmp_path):
    refused = make_refusals(core, apps)
    textfile = tmp_path / 'textfile'
    textfile.mkdir()
    inventory = {'colocation_nodes': {'hosts': {NODE: {
        'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable, 'numa_report_become': False,
        'numa_report_root': tree('xeon8358-2s'), 'numa_report_textfile_dir': str(textfile),
        'numa_report_k8s_enabled': True, 'numa_report_kubeconfig': k8s_cluster.kubeconfig_path}}}}
    (tmp_path / 'inventory.json').write_text(json.dumps(inventory))
    proc = subprocess.run(['ansible-playbook', '-i', str(tmp_path / 'inventory.json'), 'numaops.colocation.numa_report',
                           '-e', 'numa_report_dir=%s' % (tmp_path / 'out')],
                          cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600, check=False,
                          env=dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR='1'))
    out = proc.stdout.decode()
    assert proc.returncode == 0, out
    assert 'Not read: none.' in out

    data = json.loads((tmp_path / 'out' / 'numa-report.json').read_text())
    found = data['nodes'][0]['refusals']
    web = [item for item in found if item['owner_kind'] == 'ReplicaSet']
    assert sorted(item['pod'] for item in web) == sorted(refused)
    assert set(item['owner_refusals'] for item in web) == {3}
    assert set(item['workload'] for item in web) == {'Deployment/web'}
    assert web[0]['reason'] == 'TopologyAffinityError'
    assert web[0]['message'] == 'Resources cannot be allocated with Topology locality'
    assert web[0]['units'][0]['aligned'] == {'cpu': '70', 'memory': '8Gi'}
    assert web[0]['units'][0]['fits_numa_nodes'] == []
    assert 'topology manager single-numa-node, scope container; container app asks cpu 70, memory 8Gi: no single ' \
           'NUMA node holds it now' in web[0]['why']
    smt = [item for item in found if item['pod'] == 'smt']
    assert len(found) == 4 and smt[0]['reason'] == 'SMTAlignmentError' and smt[0]['owner_refusals'] == 1

    html = (tmp_path / 'out' / 'numa-report.html').read_text()
    assert '<img src=x' not in html
    assert '&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot;' in html
    assert html.count('data-field="refusal"') == 4
    assert 'data-field="refused" data-count="4"' in html

    lines = (textfile / 'numaops_numa.prom').read_text().splitlines()
    assert 'numaops_kubelet_refused_pods{reason="TopologyAffinityError"} 3' in lines
    assert 'numaops_kubelet_refused_pods{reason="SMTAlignmentError"} 1' in lines
    rs = web[0]['owner']
    assert ('numaops_kubelet_refused_pods_by_owner{namespace="%s",owner_kind="ReplicaSet",owner="%s",'
            'reason="TopologyAffinityError"} 3' % (NAMESPACE, rs)) in lines
