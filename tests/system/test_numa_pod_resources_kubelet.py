# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""numa_facts against the real kubelet: its pod-resources API and its checkpoint files give the same placement.

The real kubelets of the oldest and the newest release the collection supports (``scripts/upstream.sh`` components
``kubelet-1.31`` and ``kubelet-1.37``, the ones the test VM runs) run standalone on this machine with the static
CPU manager (``reservedSystemCPUs: "0"``), the memory manager's ``Static`` policy and the ``single-numa-node``
topology manager, a real containerd (``scripts/upstream.sh`` component ``containerd``) as their CRI endpoint, and
one static pod: a Guaranteed pod of one container asking for one CPU and 64 MiB. The kubelet admits it and gives it
an exclusive CPU and a memory block at admission, before its sandbox is made; the sandbox never starts here (the
pause image cannot be pulled: no registry is reachable), which the allocation does not depend on, and the pod
stays Pending with its resources. The pods come from the kubelet's own ``/pods`` endpoint.

numa_facts then runs (a real ansible-playbook run) with ``kubelet_source=checkpoints`` and
``kubelet_source=pod_resources`` (gRPC through ``grpcio``, tests/requirements-dev.txt) and both must give the same
exclusive CPUs, the same memory blocks and the same free exclusive CPUs and free memory per NUMA node.

The kubelet sets six kernel tunables at start (``vm.overcommit_memory``, ``kernel.panic``, ...; container manager
``setupKernelTunables``). It runs in its own mount namespace, where files holding the values it wants are mounted
over those six ``/proc/sys`` files, so this machine's settings are left alone. Its cgroups live under a cgroup
root of their own, removed afterwards.

Needs root (the kubelet builds its container manager) and fails, never skips, when a binary or grpcio is missing,
naming the command that provides it.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import ssl
import subprocess
import urllib.request

import pytest

from ansible_collections.numaops.colocation.tests.system.polling import wait_for
from ansible_collections.numaops.colocation.tests.system.prometheus_live import free_port
from ansible_collections.numaops.colocation.tests.unit.playbooks import run_tasks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KUBELETS = ('kubelet-1.31', 'kubelet-1.37')
TUNABLES = {'vm/overcommit_memory': 1, 'vm/panic_on_oom': 0, 'kernel/panic': 10, 'kernel/panic_on_oops': 1,
            'kernel/keys/root_maxkeys': 1000000, 'kernel/keys/root_maxbytes': 25000000}
CGROUP = '/sys/fs/cgroup'
MIB = 1024 * 1024
POD = '''apiVersion: v1
kind: Pod
metadata:
  name: guaranteed
  namespace: default
spec:
  hostNetwork: true
  containers:
  - name: app
    image: registry.invalid/numaops/none:1
    resources:
      limits: {cpu: "1", memory: 64Mi}
'''


def component(name, binary):
    proc = subprocess.run([os.path.join(ROOT, 'scripts', 'upstream.sh'), 'path', name], capture_output=True,
                          text=True, check=False)
    path = os.path.join(proc.stdout.strip(), binary)
    if proc.returncode != 0 or not proc.stdout.strip() or not os.access(path, os.X_OK):
        pytest.fail('%s of %s is not built: run scripts/upstream.sh build %s' % (binary, name, name), pytrace=False)
    return path


@pytest.fixture(scope='module')
def preconditions():
    if os.geteuid() != 0:
        pytest.fail('the real kubelet needs root to build its container manager', pytrace=False)
    try:
        import grpc  # noqa: F401 pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        pytest.fail('grpcio is not installed: scripts/lib.sh ensure_venv installs it (tests/requirements-dev.txt)',
                    pytrace=False)
    for tool in ('unshare', 'mount'):
        if not shutil.which(tool):
            pytest.fail('%s is not installed (Debian package util-linux / mount)' % tool, pytrace=False)


@pytest.fixture(scope='module')
def containerd(tmp_path_factory, preconditions):
    top = str(tmp_path_factory.mktemp('ctd'))
    sock = os.path.join(top, 'containerd.sock')
    with open(os.path.join(top, 'config.toml'), 'w') as handle:
        handle.write('version = 2\nroot = "%s/root"\nstate = "%s/state"\n[grpc]\n  address = "%s"\n'
                     '[ttrpc]\n  address = "%s.ttrpc"\n[debug]\n  address = ""\n[metrics]\n  address = ""\n'
                     '[plugins."io.containerd.grpc.v1.cri"]\n  disable_tcp_service = true\n'
                     '  stream_server_address = "127.0.0.1"\n  stream_server_port = "0"\n' % (top, top, sock, sock))
    log = open(os.path.join(top, 'containerd.log'), 'w')
    proc = subprocess.Popen([component('containerd', 'containerd'), '--config', os.path.join(top, 'config.toml')],
                            stdout=log, stderr=log, start_new_session=True)
    wait_for('containerd serves %s' % sock, lambda: os.path.exists(sock), timeout=30, detail='the log: ' + log.name)
    yield sock
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)
    log.close()


def cgroup_root(name):
    """A cgroup root of the kubelet's own (cgroup v2, or each v1 hierarchy with cpuset's CPUs and memory nodes)."""
    made = []
    if os.path.exists(os.path.join(CGROUP, 'cgroup.controllers')):
        made.append(os.path.join(CGROUP, name))
        os.mkdir(made[0])
        return made
    for hierarchy in sorted(os.listdir(CGROUP)):
        base = os.path.join(CGROUP, hierarchy)
        if hierarchy == 'unified' or not os.path.isdir(base) or os.path.islink(base):
            continue
        os.mkdir(os.path.join(base, name))
        made.append(os.path.join(base, name))
        if hierarchy == 'cpuset':
            for knob in ('cpuset.cpus', 'cpuset.mems'):
                with open(os.path.join(base, knob)) as src, open(os.path.join(base, name, knob), 'w') as dst:
                    dst.write(src.read())
    return made


def remove_cgroups(made):
    # the kubelet makes its cgroups in cgroup v1's unified hierarchy too, when there is one
    unified = os.path.join(CGROUP, 'unified', os.path.basename(made[0])) if made else None
    for top in made + ([unified] if unified and unified not in made and os.path.isdir(unified) else []):
        for directory, _subdirs, _files in sorted(os.walk(top), key=lambda entry: -len(entry[0])):
            try:
                os.rmdir(directory)
            except OSError:
                pass


def kubelet_config(top, sock, port, cgroup_name):
    # YAML scalars at the top (numa_facts reads those without a YAML library), the maps in JSON flow style
    return '\n'.join([
        'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
        'containerRuntimeEndpoint: unix://%s' % sock, 'failSwapOn: false', 'failCgroupV1: false',
        'port: %d' % port, 'healthzPort: 0', 'readOnlyPort: 0', 'cgroupDriver: cgroupfs',
        'cgroupRoot: /%s' % cgroup_name, 'staticPodPath: %s/manifests' % top, 'podLogsDir: %s/logs' % top,
        'cpuManagerPolicy: static', 'reservedSystemCPUs: "0"', 'memoryManagerPolicy: Static',
        'topologyManagerPolicy: single-numa-node',
        'evictionHard: {"memory.available": "100Mi"}', 'systemReserved: {"memory": "100Mi"}',
        'reservedMemory: [{"numaNode": 0, "limits": {"memory": "200Mi"}}]',
        'authentication: {"anonymous": {"enabled": true}, "webhook": {"enabled": false}}',
        'authorization: {"mode": "AlwaysAllow"}', ''])


def kubelet_pods(port):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE   # the kubelet's self-signed serving certificate
    try:
        with urllib.request.urlopen('https://127.0.0.1:%d/pods' % port, context=context, timeout=5) as answer:
            return json.load(answer).get('items') or []
    except OSError:
        return []


def run_kubelet(binary, top, sock, cgroup_name):
    """The kubelet in its own mount namespace with the kernel tunables it wants mounted over /proc/sys."""
    os.makedirs(os.path.join(top, 'manifests'))
    os.makedirs(os.path.join(top, 'tunables'))
    mounts = []
    for name, value in sorted(TUNABLES.items()):
        path = os.path.join(top, 'tunables', name.replace('/', '.'))
        with open(path, 'w') as handle:
            handle.write('%d\n' % value)
        mounts.append('mount --bind %s /proc/sys/%s' % (path, name))
    port = free_port()
    with open(os.path.join(top, 'config.yaml'), 'w') as handle:
        handle.write(kubelet_config(top, sock, port, cgroup_name))
    with open(os.path.join(top, 'manifests', 'pod.yaml'), 'w') as handle:
        handle.write(POD)
    script = ' && '.join(mounts + ['exec "$@"'])
    log = open(os.path.join(top, 'kubelet.log'), 'w')
    proc = subprocess.Popen(['unshare', '--mount', '--propagation', 'private', 'sh', '-c', script, 'kubelet', binary,
                             '--config', os.path.join(top, 'config.yaml'), '--root-dir', os.path.join(top, 'root'),
                             '--cert-dir', os.path.join(top, 'pki'), '--hostname-override', 'podres', '--v', '2'],
                            stdout=log, stderr=log, start_new_session=True)
    return proc, port, log


@pytest.mark.parametrize('release', KUBELETS)
def test_pod_resources_and_checkpoints_agree_on_the_real_kubelet(release, containerd, tmp_path):
    binary = component(release, 'kubelet')
    top = str(tmp_path / 'kubelet')
    cgroup_name = 'numaops-podres-%d-%s' % (os.getpid(), release)
    made = cgroup_root(cgroup_name)
    proc = log = None
    try:
        proc, port, log = run_kubelet(binary, top, containerd, cgroup_name)
        state = os.path.join(top, 'root')
        the_log = 'the log: ' + log.name
        wait_for('the kubelet gives the Guaranteed pod an exclusive CPU',
                 lambda: '"app":"1"' in open(os.path.join(state, 'cpu_manager_state')).read()
                 if os.path.exists(os.path.join(state, 'cpu_manager_state')) else None, detail=the_log)
        pods = wait_for('the kubelet lists its static pod on /pods', lambda: kubelet_pods(port), detail=the_log)
        sock_path = os.path.join(state, 'pod-resources', 'kubelet.sock')
        wait_for('the kubelet serves %s' % sock_path, lambda: os.path.exists(sock_path), detail=the_log)
        args = {'kubelet_config': os.path.join(top, 'config.yaml'), 'state_dir': state, 'pods': pods}
        results = run_tasks(tmp_path, [
            {'name': source, 'numaops.colocation.numa_facts': dict(args, kubelet_source=source)}
            for source in ('checkpoints', 'pod_resources', 'auto')])
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            log.close()
        remove_cgroups(made)
    assert [path for path in made if os.path.exists(path)] == []
    facts = [result['ansible_facts']['numaops_numa'] for result in results]
    assert [result.get('failed', False) for result in results] == [False] * 3, results
    checkpoints, api, auto = [item['kubelet'] for item in facts]
    assert [k['source']['used'] for k in (checkpoints, api, auto)] == ['checkpoints', 'pod_resources', 'pod_resources']

    uid = pods[0]['metadata']['uid']
    assert checkpoints['cpu_manager']['exclusive'] == api['cpu_manager']['exclusive'] == [{
        'pod_uid': uid, 'namespace': 'default', 'pod': 'guaranteed-podres', 'container': 'app', 'cpus': '1',
        'cpu_ids': [1], 'cpu_count': 1, 'numa_nodes': [0], 'stale': False}]
    assert checkpoints['memory_manager']['containers'] == api['memory_manager']['containers'] == [{
        'pod_uid': uid, 'namespace': 'default', 'pod': 'guaranteed-podres', 'container': 'app', 'numa_nodes': [0],
        'stale': False, 'blocks': [{'resource': 'memory', 'bytes': 64 * MIB, 'numa_nodes': [0]}]}]
    for key in ('policy', 'default_cpus'):
        assert checkpoints['cpu_manager'][key] == api['cpu_manager'][key]
    assert api['cpu_manager']['allocatable_cpus'] == '1'
    assert checkpoints['memory_manager']['policy'] == api['memory_manager']['policy'] == 'Static'
    from_file = checkpoints['memory_manager']['machine_state']
    from_api = api['memory_manager']['machine_state']
    assert sorted(from_api) == sorted(from_file)
    for node, entry in from_api.items():
        for resource, table in entry['resources'].items():
            assert dict((k, table[k]) for k in ('allocatable', 'reserved', 'free')) == dict(
                (k, from_file[node]['resources'][resource][k]) for k in ('allocatable', 'reserved', 'free'))
        # the checkpoint lists huge page sizes with nothing allocatable; the API lists what is allocatable only
        assert set(entry['resources']) == set(name for name, table in from_file[node]['resources'].items()
                                              if table['allocatable'])
    assert [node['free_exclusive_cpus'] for node in facts[0]['numa_nodes']] == \
        [node['free_exclusive_cpus'] for node in facts[1]['numa_nodes']]
