# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubelet_config's drop-in mode against the real kubelets 1.31 and 1.37 (built from their Go modules by
scripts/upstream.sh; a missing one fails the test, naming the command that builds it).

The same task runs in main-file mode (write_to: main) on one copy of a node and in drop-in mode (write_to: dropin)
on another, through the action plugin with the real node_files, find and stat modules in-process. The real kubelet
is then started on each copy with --config and --config-dir, and the effective configuration it reports is
compared: it must be the same, and hold the values asked.

How the kubelet reports its merged configuration here: at start-up, after the drop-ins are merged and the result
validated, kubelet 1.37 logs it as "Effective KubeletConfiguration" (the same conversion /configz serves) and
kubelet 1.31 logs it at --v 5 as "KubeletConfiguration" (its internal form, as JSON). /configz itself cannot be
asked here: the kubelet's HTTP server starts only once it is connected to a container runtime (RunKubelet creates
the kubelet, which checks the CRI connection, before ListenAndServe), and there is no runtime in this test; the
kubelet stops at that check, after the log line.

The unit drop-in that enable_config_dir writes is checked by the real systemd (``systemd-analyze verify`` with the
unit, kubeadm's drop-in and ours): it loads, and its command replaces kubeadm's instead of adding a second one."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import systemd_unit
from ansible_collections.numaops.colocation.tests.system.test_dropin_merge_upstream import (
    _unmount_under, kubelet_binary)
from ansible_collections.numaops.colocation.tests.system.test_perf_profile_unit import systemd_analyze
from ansible_collections.numaops.colocation.tests.unit.plugins.action.test_dropin_mode_action import KUBEADM_DROPIN
from ansible_collections.numaops.colocation.tests.unit.plugins.action.test_dropin_action import (  # noqa: F401 pylint: disable=unused-import
    HEAD, run_action)

MAIN = HEAD + '''authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://@TOP@/no-runtime.sock
cpuManagerPolicy: none
cpuManagerReconcilePeriod: 5s
failCgroupV1: false
failSwapOn: false
featureGates:
  CPUManagerPolicyBetaOptions: true
healthzPort: 0
kubeReserved:
  memory: 512Mi
port: 0
readOnlyPort: 0
systemReserved:
  cpu: 500m
'''
SITE = HEAD + 'maxPods: 50\nsystemReserved:\n  memory: 1Gi\n'
TASK = dict(cpu_manager_policy='static', reserved_system_cpus='0', cpu_manager_policy_options={'full-pcpus-only': True},
            topology_manager_policy='best-effort', topology_manager_scope='pod', memory_manager_policy='Static',
            reserved_memory=[{'numaNode': 0, 'limits': {'memory': '1636Mi'}}],   # 512Mi + 1Gi + 100Mi eviction
            feature_gates={'CPUManagerPolicyAlphaOptions': True}, system_reserved={'memory': '1Gi'},
            reservations='merge')
# what only 1.32 and later can do from a drop-in: remove what the main file sets
LATER = dict(cpu_manager_reconcile_period='', kube_reserved={'memory': '512Mi'}, reservations='replace',
             system_reserved={'memory': '1Gi'})
# the log line that carries the merged configuration, and where it ends
DUMP = {'1.31': re.compile(r'"KubeletConfiguration" configuration=<\n(.*?)\n \>', re.S),
        '1.37': re.compile(r'"Effective KubeletConfiguration" config=<\n(.*?)\n \>', re.S)}
EXPECT = {
    '1.31': ['"CPUManagerPolicy": "static"', '"full-pcpus-only": "true"', '"TopologyManagerPolicy": "best-effort"',
             '"TopologyManagerScope": "pod"', '"MemoryManagerPolicy": "Static"', '"ReservedSystemCPUs": "0"',
             '"CPUManagerPolicyAlphaOptions": true', '"CPUManagerPolicyBetaOptions": true'],
    '1.37': ['cpuManagerPolicy: static', 'full-pcpus-only: "true"', 'topologyManagerPolicy: best-effort',
             'topologyManagerScope: pod', 'memoryManagerPolicy: Static', 'reservedSystemCPUs: "0"',
             'CPUManagerPolicyAlphaOptions: true', 'CPUManagerPolicyBetaOptions: true', 'cpuManagerReconcilePeriod: 10s'],
}


def node(top):
    """A node tree: the main file, the drop-in directory with a site drop-in, an empty kubelet root."""
    os.makedirs(os.path.join(top, 'conf.d'))
    os.makedirs(os.path.join(top, 'root'))
    with open(os.path.join(top, 'config.yaml'), 'w') as handle:
        handle.write(MAIN.replace('@TOP@', top))
    with open(os.path.join(top, 'conf.d', '10-site.conf'), 'w') as handle:
        handle.write(SITE)


def effective(binary, release, top):
    """The merged configuration the kubelet logs for the node at ``top``, with ``top`` replaced by @TOP@."""
    proc = subprocess.run([binary, '--config', os.path.join(top, 'config.yaml'), '--config-dir',
                           os.path.join(top, 'conf.d'), '--root-dir', os.path.join(top, 'root'), '--cert-dir',
                           os.path.join(top, 'pki'), '--hostname-override', 'dropin', '--v', '5'],
                          capture_output=True, text=True, timeout=120, check=False)
    out = proc.stdout + proc.stderr
    match = DUMP[release].search(out)
    assert match and 'failed to run Kubelet' in out, 'the kubelet did not get past its configuration:\n' + out[-3000:]
    return match.group(1).replace(top, '@TOP@')


@pytest.mark.parametrize('release', ['1.31', '1.37'])
def test_drop_in_mode_gives_the_kubelet_the_configuration_of_main_file_mode(release, tmp_path, run_action):
    binary = kubelet_binary(release)
    task = dict(TASK, kubelet_version=release, **(LATER if release != '1.31' else {}))
    dumps = {}
    for mode in ('main', 'dropin'):
        top = str(tmp_path / mode)
        node(top)
        try:
            result = run_action(path=os.path.join(top, 'config.yaml'), config_dir=os.path.join(top, 'conf.d'),
                                state_dir=os.path.join(top, 'root'), write_to=mode, **task)
            assert not result.get('failed') and result['changed'], result
            again = run_action(path=os.path.join(top, 'config.yaml'), config_dir=os.path.join(top, 'conf.d'),
                               state_dir=os.path.join(top, 'root'), write_to=mode, **task)
            assert not again['changed'], again
            if mode == 'dropin':
                assert open(os.path.join(top, 'config.yaml')).read() == MAIN.replace('@TOP@', top)
            dumps[mode] = effective(binary, release, top)
        finally:
            _unmount_under(top)
    for fragment in EXPECT[release]:
        assert fragment in dumps['dropin'], (fragment, dumps['dropin'])
    if release != '1.31':
        # removed from a drop-in by null: the main file's systemReserved.cpu and cpuManagerReconcilePeriod are gone
        assert '500m' not in dumps['dropin'] and 'cpuManagerReconcilePeriod: 5s' not in dumps['dropin']
    assert dumps['dropin'] == dumps['main']
    shutil.rmtree(str(tmp_path), ignore_errors=True)


def verify_unit(top, ours):
    """``systemd-analyze verify`` of kubelet.service in ``top`` with its drop-ins (kubeadm's, and ``ours``)."""
    kubelet = kubelet_binary('1.37')
    unit_dir = os.path.join(top, 'system')
    os.makedirs(os.path.join(unit_dir, 'kubelet.service.d'))
    texts = {os.path.join(unit_dir, 'kubelet.service'): '[Unit]\nDescription=kubelet\n[Service]\nExecStart=%s\n' % kubelet,
             os.path.join(unit_dir, 'kubelet.service.d', '10-kubeadm.conf'): KUBEADM_DROPIN.replace(
                 '/usr/bin/kubelet', kubelet)}
    path = os.path.join(unit_dir, 'kubelet.service.d', systemd_unit.DEFAULT_CONFIG_DIR_UNIT_DROPIN)
    plan = systemd_unit.config_dir_dropin(texts, [unit_dir], 'kubelet', path, '/etc/kubernetes/kubelet.conf.d')
    assert plan['errors'] == [] and plan['content'], plan
    texts[path] = ours(plan['content'])
    for name, text in texts.items():
        with open(name, 'w') as handle:
            handle.write(text)
    proc = subprocess.run([systemd_analyze(), 'verify', '--man=no', 'kubelet.service'], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=60, check=False, cwd=unit_dir,
                          env=dict(os.environ, SYSTEMD_UNIT_PATH=unit_dir + ':'))
    return proc.returncode, proc.stdout.decode()


def test_systemd_takes_the_unit_drop_in_that_adds_config_dir(tmp_path):
    code, out = verify_unit(str(tmp_path / 'ours'), lambda content: content)
    assert code == 0 and out == '', out
    # without emptying ExecStart= first, the kubelet would get a second command, which systemd refuses
    code, out = verify_unit(str(tmp_path / 'without-reset'), lambda content: content.replace('ExecStart=\n', '', 1))
    assert code != 0 and 'more than one ExecStart=' in out, out
