# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What koordlet needs of a node (module_utils/koordlet_node.py): one vector per rule, each naming the Koordinator
file and function it follows (koordinator-sh/koordinator), and the kubelet-restart hazard of cpu.idle through the
pre-flight, the decision and the report."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import koordlet_node as kn
from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns as nc
from ansible_collections.numaops.colocation.plugins.module_utils import preflight
from ansible_collections.numaops.colocation.plugins.plugin_utils import fleet, node_prep_decision as nd

from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.test_node_prep_concerns import (
    SETTINGS as CONCERN_SETTINGS)

HOST = 'node-1'
CG = '/sys/fs/cgroup'
SYSTEMD = CG + '/kubepods.slice'
CGROUPFS = CG + '/kubepods'
BESTEFFORT = SYSTEMD + '/kubepods-besteffort.slice/cpu.idle'
CPUINFO_INTEL = 'processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu sse cat_l3 cdp_l3 mba rdt_a\n'
CPUINFO_AMD = 'processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu cat_l3 mba\n'
CPUINFO_NO_MBA = 'processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu cat_l3\n'
# /sys/fs/resctrl: the kernel's mount point (a directory), and what a mount of it shows
RESCTRL_DIR = ('/sys/fs/resctrl', None)
MOUNTED = (RESCTRL_DIR, ('/sys/fs/resctrl/info', None), ('/sys/fs/resctrl/info/L3/cbm_mask', 'fff\n'),
           ('/sys/fs/resctrl/info/MB', None))


def files(**texts):
    """Probes: {path: text} (None: exists, not a regular file)."""
    return dict((path, {'exists': True, 'text': text}) for path, text in texts.items())


def probes(*pairs):
    return dict((path, {'exists': True, 'text': text}) for path, text in pairs)


def verdict(feature, found, nri_enabled=None, core_probe=None, kernel='6.1.0-28-amd64'):
    result = kn.verdict(found, {'features': [feature], 'nri_enabled': nri_enabled}, HOST, kernel, core_probe)
    assert [item['feature'] for item in result['features']] == [feature]
    return result['features'][0], result


# ------------------------------------------------------------------------------------------- one vector per rule
# (feature, probes, core_probe, nri_enabled, ok, words of why/fix/note, the Koordinator source it follows)
VECTORS = [
    # pkg/koordlet/util/system/cgroup_resource.go, MemoryMinV2: no support check; written in the kubepods cgroups
    ('memory_qos', probes((SYSTEMD + '/memory.min', '0\n')), None, None, True, SYSTEMD + '/memory.min exists',
     'cgroup_resource.go MemoryMinV2'),
    ('memory_qos', probes((CGROUPFS + '/memory.min', '0\n')), None, None, True, CGROUPFS + '/memory.min exists',
     'cgroup_resource.go MemoryMinV2 (cgroupfs driver: pkg/koordlet/util/system/cgroup_driver.go)'),
    ('memory_qos', {}, None, None, False, 'boot with cgroup v2 and the memory controller',
     'cgroup_resource.go MemoryMinV2'),
    # cgroup_resource.go, CPUIdleV2 ... WithCheckSupported(SupportedIfFileExistsInKubepods); resource.go
    ('cpu_idle', probes((SYSTEMD + '/cpu.idle', '0\n')), None, None, True, 'cpu.idle exists',
     'cgroup_resource.go CPUIdleV2; resource.go SupportedIfFileExistsInKubepods'),
    ('cpu_idle', probes((CG + '/cpu.idle', '0\n')), None, None, False, 'upstream Linux has it since 5.15',
     'resource.go SupportedIfFileExistsInKubepods: the kubepods cgroup, not the root'),
    # cgroup_resource.go, CPUAcctCPUPressureV2 ... SupportedIfFileExistsInKubepods
    ('psi', probes((SYSTEMD + '/cpu.pressure', 'some avg10=0.00\n')), None, None, True, 'cpu.pressure exists',
     'cgroup_resource.go CPUAcctCPUPressureV2'),
    ('psi', probes(('/proc/cmdline', 'BOOT_IMAGE=/vmlinuz psi=0 quiet\n')), None, None, False,
     'remove psi=0 from the kernel command line', 'cgroup_resource.go CPUAcctCPUPressureV2'),
    ('psi', probes(('/proc/cmdline', 'BOOT_IMAGE=/vmlinuz quiet\n')), None, None, False,
     'add psi=1 to the kernel command line', 'cgroup_resource.go CPUAcctCPUPressureV2'),
    # pkg/koordlet/runtimehooks/hooks/groupidentity/bvt.go, SystemSupported: the bvt file in the Guaranteed (kubepods)
    # cgroup, or the sysctl (system_file.go, IsGroupIdentitySysctlSupported)
    ('group_identity', probes((SYSTEMD + '/cpu.bvt_warp_ns', '0\n')), None, None, True, 'cpu.bvt_warp_ns exists',
     'bvt.go SystemSupported'),
    ('group_identity', probes(('/proc/sys/kernel/sched_group_identity_enabled', '1\n')), None, None, True,
     'sched_group_identity_enabled exists', 'bvt.go SystemSupported; system_file.go IsGroupIdentitySysctlSupported'),
    ('group_identity', probes(('/proc/sys/kernel/sched_group_identity_enabled', '0\n'),
                              ('/proc/sys/kernel/sched_core', '1\n')), None, None, True,
     'koordlet sets it to 1 when a class enables group identity, and sets /proc/sys/kernel/sched_core to 0 first',
     'bvt.go initSysctl / tryDisableCoreSched'),
    ('group_identity', {}, None, None, False, 'a feature of Anolis OS kernels', 'bvt.go SystemSupported'),
    # pkg/koordlet/util/system/core_sched.go, IsCoreSchedSupported; version.go isAnolisOS
    ('core_sched', probes((CG + '/cpu.bvt_warp_ns', '0\n'), ('/proc/sys/kernel/sched_core', '0\n')), None, None, True,
     'sched_core exists (Anolis OS kernel)', 'core_sched.go IsCoreSchedSupported (sysctl); version.go isAnolisOS'),
    ('core_sched', dict(probes(('/sys/kernel/debug/sched_features', 'GENTLE_FAIR_SLEEPERS NO_CORE_SCHED\n')),
                        **{CG + '/*/memory.wmark_ratio': {'exists': True, 'text': None}}), None, None, True,
     'lists NO_CORE_SCHED (Anolis OS kernel)', 'core_sched.go IsCoreSchedSupported (sched_features); version.go '
     'isSupportBvtOrWmarRatio (memory.wmark_ratio)'),
    ('core_sched', probes((CG + '/cpu.bvt_warp_ns', '0\n')), None, None, False,
     'Anolis OS kernel without /proc/sys/kernel/sched_core', 'core_sched.go IsCoreSchedSupported'),
    ('core_sched', {}, {'supported': True, 'error': ''}, None, True, 'prctl(PR_SCHED_CORE_GET) answers',
     'core_sched_linux.go ProbeCoreSchedIfEnabled'),
    ('core_sched', {}, {'supported': False, 'error': 'EINVAL: Invalid argument'}, None, False,
     'upstream Linux has it since 5.14, built with CONFIG_SCHED_CORE', 'core_sched.go: "only 5.14 and later"'),
    # pkg/koordlet/util/system/resctrl.go, IsSupportResctrl / isCPUSupportResctrl: cat_l3 and mba, both
    ('resctrl', probes(('/proc/cpuinfo', CPUINFO_INTEL), ('/proc/cmdline', 'quiet rdt=l3cat,mba\n'),
                       *MOUNTED), None, None, True,
     'the CPU flags cat_l3 and mba are there and /sys/fs/resctrl exists', 'resctrl.go isCPUSupportResctrl'),
    ('resctrl', probes(('/proc/cpuinfo', CPUINFO_INTEL), RESCTRL_DIR), None, None, True,
     'resctrl is not mounted; koordlet mounts it itself', 'resctrl.go CheckAndTryEnableResctrlCat'),
    ('resctrl', probes(('/proc/cpuinfo', CPUINFO_INTEL), *MOUNTED), None, None,
     True, 'no rdt=l3cat,mba (koordlet only logs it', 'resctrl.go isKernelSupportResctrl / isResctrlAvailableByKernelCmd'),
    ('resctrl', probes(('/proc/cpuinfo', CPUINFO_NO_MBA)), None, None, False, 'lack mba',
     'resctrl.go isResctrlAvailableByCpuInfo'),
    ('resctrl', {}, None, None, False, '/proc/cpuinfo cannot be read', 'resctrl.go isCPUSupportResctrl (error)'),
    # the kernel decides what koordlet's mount shows (resctrl.go CheckAndTryEnableResctrlCat fails without
    # info/L3/cbm_mask): rdt=!name turns a resource off (the kernel's resctrl/core.c, rdt_cpu_has), no mount point
    # means no resctrl in this kernel, and a mount without info/L3 or info/MB names the rdt= to add
    ('resctrl', probes(('/proc/cpuinfo', CPUINFO_INTEL), ('/proc/cmdline', 'quiet rdt=cmt,!mba\n'), *MOUNTED), None,
     None, False, 'take !mba out of rdt=', 'the kernel resctrl/core.c set_rdt_options / rdt_cpu_has'),
    ('resctrl', probes(('/proc/cpuinfo', CPUINFO_INTEL), ('/proc/cmdline', 'rdt=!l3cat rdt=l3cat,mba\n'), *MOUNTED),
     None, None, True, 'and /sys/fs/resctrl exists', 'rdt_cpu_has: a resource forced on and off is on'),
    ('resctrl', probes(('/proc/cpuinfo', CPUINFO_INTEL)), None, None, False,
     'built with CONFIG_X86_CPU_RESCTRL', 'resctrl.go MountResctrlSubsystem: the mount point must exist'),
    ('resctrl', probes(('/proc/cpuinfo', CPUINFO_INTEL), RESCTRL_DIR, ('/sys/fs/resctrl/info', None),
                       ('/sys/fs/resctrl/info/L3/cbm_mask', 'fff\n')), None, None, False,
     'add rdt=mba to the kernel command line', 'resctrl.go CheckAndTryEnableResctrlCat; schemata MB lines'),
    # pkg/koordlet/runtimehooks/nri/option.go, Validate; config.go RuntimeHooksNRISocketPath; system/config.go
    ('nri', probes(('/var/run/nri/nri.sock', None)), None, None, True, '/var/run/nri/nri.sock exists',
     'nri/option.go Validate'),
    ('nri', {}, None, True, True, 'this run enables NRI in containerd', 'nri/option.go Validate, after this run'),
    ('nri', {}, None, False, False, 'run koordlet with --runtime-hooks-nri=false', 'runtimehooks/config.go'),
]


@pytest.mark.parametrize('feature, found, core_probe, nri_enabled, ok, words, source', VECTORS,
                         ids=['%s-%d' % (v[0], i) for i, v in enumerate(VECTORS)])
def test_each_feature_as_koordlet_decides_it(feature, found, core_probe, nri_enabled, ok, words, source):
    item, result = verdict(feature, found, nri_enabled, core_probe)
    assert item['ok'] is ok, source
    assert words in ' '.join((item['why'], item['fix'], item['note'])), source
    if ok:
        assert result['warnings'] == []
    else:
        # one warning per "no", naming host, feature, why and what to change
        assert result['warnings'] == ['%s: koordlet cannot do %s: %s. %s.' % (
            HOST, kn.TITLES[feature], item['why'], item['fix'][0].upper() + item['fix'][1:])]


def test_resctrl_on_amd_needs_no_kernel_argument():
    # resctrl.go, isKernelSupportResctrl: AMD CPUs skip the command-line check
    item, _result = verdict('resctrl', probes(('/proc/cpuinfo', CPUINFO_AMD), *MOUNTED))
    assert item['ok'] and item['note'] == ''


def test_group_identity_and_core_scheduling_exclude_each_other():
    # bvt.go, initSysctl: "core scheduling is strictly excluded with the group identity's bvt=-1"
    result = kn.verdict(probes((SYSTEMD + '/cpu.bvt_warp_ns', '0\n')), {'features': ['group_identity', 'core_sched']},
                        HOST, '', {'supported': True, 'error': ''})
    assert result['warnings'] == ['node-1: group identity and core scheduling exclude each other: koordlet switches '
                                  'core scheduling off to enable group identity. Choose one CPU policy in the NodeSLO.']


def test_the_probed_paths_follow_what_is_asked():
    idle = sorted(CG + prefix + '/' + rel + '/cpu.idle' for prefix in ('', '/cpu')
                  for driver in kn.QOS_DIRS for rel in kn.QOS_DIRS[driver])
    assert kn.probe_paths({}) == idle
    assert kn.probe_paths({'kubelet_enabled': False}) == []
    assert kn.probe_paths({'kubelet_enabled': False, 'features': ['nri'], 'nri_socket': '/run/x.sock'}) == ['/run/x.sock']
    assert kn.probe_paths({'kubelet_enabled': False, 'features': ['resctrl'], 'proc_root': '/t/proc',
                           'sys_root': '/t/sys'}) == ['/t/proc/cmdline', '/t/proc/cpuinfo', '/t/sys/fs/resctrl',
                                                      '/t/sys/fs/resctrl/info', '/t/sys/fs/resctrl/info/L3/cbm_mask',
                                                      '/t/sys/fs/resctrl/info/MB']
    assert kn.unknown_features(['psi', 'rdt', 'cpu-idle']) == ['cpu-idle', 'rdt']


def test_the_roles_paths_place_proc_and_sys():
    asked = preflight.koordlet_asked({'proc_cmdline_path': '/t/proc/cmdline', 'sysfs_cpu_dir': '/t/sys/devices/system/cpu',
                                      'cgroup_root': '/t/sys/fs/cgroup', 'koordlet_features': ['psi'],
                                      'nri_enabled': 'true', 'kubelet_enabled': 'no'})
    assert asked == {'features': ['psi'], 'cgroup_root': '/t/sys/fs/cgroup', 'proc_root': '/t/proc',
                     'sys_root': '/t/sys', 'nri_socket': '/var/run/nri/nri.sock', 'nri_enabled': True,
                     'kubelet_enabled': False}


# ------------------------------------------------------------------------------------------- the hazard
@pytest.mark.parametrize('path', [BESTEFFORT, SYSTEMD + '/kubepods-burstable.slice/cpu.idle', SYSTEMD + '/cpu.idle',
                                  CGROUPFS + '/besteffort/cpu.idle',
                                  # cgroup v1 (the hierarchy of the tracker's report): cpu.shares refused instead
                                  CG + '/cpu/kubepods.slice/kubepods-besteffort.slice/cpu.idle',
                                  CG + '/cpu/kubepods/besteffort/cpu.idle'])
def test_cpu_idle_at_1_on_a_cgroup_the_kubelet_writes_is_the_hazard(path):
    # pkg/koordlet/runtimehooks/hooks/coresched/core_sched.go, SetKubeQOSCPUIdle (KubeQOSLevel reconciler); rule.go
    # newParam: IsCPUIdle = coreSched policy and schedIdle == 1
    assert kn.hazard(probes((path, '1\n')), {}) == [path]
    assert kn.hazard(probes((path, '0\n')), {}) == []
    assert kn.hazard(probes((path, '1\n')), {'kubelet_enabled': False}) == []


def test_a_pod_cgroup_with_cpu_idle_is_no_hazard():
    # the kubelet never writes the CPU weight of a pod's cgroup at its start
    assert kn.hazard(probes((SYSTEMD + '/kubepods-besteffort.slice/kubepods-besteffort-pod1.slice/cpu.idle', '1\n')),
                     {}) == []


def test_the_hazard_messages_name_host_file_and_what_to_do():
    error = kn.hazard_message(HOST, [BESTEFFORT], True)
    assert error.startswith('node_prep: node-1: /sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/cpu.idle has '
                            'cpu.idle set to 1')
    assert ('and this run restarts the kubelet. Set schedIdle to 0 for the class in the NodeSLO '
            '(resourceQOSStrategy.beClass.cpuQOS.schedIdle, ' in error)
    # rule.go, parseRuleForNodeSLO: Burstable follows lsClass, Guaranteed (kubepods) lsrClass or lsClass
    both = kn.hazard_message(HOST, [SYSTEMD + '/cpu.idle', SYSTEMD + '/kubepods-burstable.slice/cpu.idle'], True)
    assert ('(resourceQOSStrategy.lsrClass.cpuQOS.schedIdle, resourceQOSStrategy.lsClass.cpuQOS.schedIdle, '
            'through') in both
    assert error.endswith('or leave the kubelet alone with node_prep_kubelet_enabled=false. Nothing was changed.')
    warning = kn.hazard_message(HOST, [BESTEFFORT], False)
    assert 'the next kubelet restart will fail' in warning and 'Nothing was changed' not in warning


# ------------------------------------------------------------------------------------------- through node_prep
# the decision's settings as the registry's tests keep them (every concern's), NRI left alone
SETTINGS = dict(CONCERN_SETTINGS, nri_enabled=None)


def _node(found, features=()):
    node = {'online_cpus': {'ids': list(range(4))}, 'meminfo': {'text': 'MemTotal: 8000000 kB\n'},
            'lock': {'outcome': 'absent'}, 'probes': found, 'os': {'kernel': '6.1.0'},
            'kubelet': {'config_path': '/var/lib/kubelet/config.yaml', 'exists': True}}
    node['checks'] = preflight.checks(node, {'koordlet_features': list(features), 'nri_enabled': None}, HOST)
    return node


def _plan(kubelet_changes):
    return {'kubelet': {'changed': kubelet_changes, 'config': {}, 'previous': {},
                        'changed_fields': ['cpuManagerPolicy'] if kubelet_changes else []},
            'containerd': {'changed': False, 'skipped': True}, 'kernel': {'changed': False, 'skipped': True}}


def test_a_run_that_restarts_the_kubelet_over_cpu_idle_stops_before_its_lock():
    d = nd.decide(_plan(True), _node(probes((BESTEFFORT, '1\n'))), SETTINGS, False, HOST, 's', 1)
    assert d['plan_errors'] == [kn.hazard_message(HOST, [BESTEFFORT], True)]
    assert d['plan_koordlet']['hazard'] == [BESTEFFORT] and not d['koordlet_changing']
    # check mode (the audit) stops the same way, saying what a real run would do
    checked = nd.decide(_plan(True), _node(probes((BESTEFFORT, '1\n'))), SETTINGS, True, HOST, 's', 1)
    assert checked['plan_errors'] == [kn.hazard_message(HOST, [BESTEFFORT], True, True)]
    assert ', and a real run of this play restarts the kubelet.' in checked['plan_errors'][0]


@pytest.mark.parametrize('kubelet_changes, manage', [(False, True), (True, False)])
def test_a_run_that_does_not_restart_the_kubelet_warns(kubelet_changes, manage):
    d = nd.decide(_plan(kubelet_changes), _node(probes((BESTEFFORT, '1\n'))), dict(SETTINGS, manage_services=manage),
                  False, HOST, 's', 1)
    assert d['plan_errors'] == []
    assert d['notes'][-1] == 'WARNING: ' + kn.hazard_message(HOST, [BESTEFFORT], False)


def test_the_report_the_summary_the_fleet_plan_and_the_audit_name_koordlet():
    node = _node(probes((SYSTEMD + '/memory.min', '0\n'), (BESTEFFORT, '1\n')), ['memory_qos', 'cpu_idle'])
    assert node['checks']['notes'][-1].startswith('node-1: koordlet cannot do cpu.idle')
    d = nd.decide(_plan(False), node, SETTINGS, True, HOST, 's', 1)
    assert d['plan']['koordlet'] == ['cpu_idle']
    assert fleet.fleet_plan({HOST: d['plan']})[1:] == ['1 node(s) koordlet cannot do cpu_idle: node-1']
    variables = {'node_prep__plan': d, 'node_prep__run': {}}
    report = fleet.node_report(variables)
    assert report['koordlet']['hazard'] == [BESTEFFORT]
    assert [item['ok'] for item in report['koordlet']['features']] == [True, False]
    lines = fleet.node_summary(HOST, report, variables)
    assert ('koordlet: memory_qos ok, cpu_idle NO, cpu.idle=1 on %s (the kubelet cannot start)' % BESTEFFORT) in lines
    audit = fleet.audit_summary({HOST: {'node_prep': report}}, {}, [HOST])
    assert any('koordlet cannot do cpu_idle' in line and 'cpu.idle=1 on ' + BESTEFFORT in line
               for line in audit['lines']), audit


def test_a_node_without_koordlet_has_no_koordlet_line():
    d = nd.decide(_plan(False), _node({}), SETTINGS, True, HOST, 's', 1)
    assert 'koordlet' not in d['plan']
    variables = {'node_prep__plan': d, 'node_prep__run': {}}
    report = fleet.node_report(variables)
    assert not any(line.startswith('koordlet') for line in fleet.node_summary(HOST, report, variables))
    assert nc.KOORDLET.drift_parts(report) == []


def test_unknown_features_are_refused_by_the_pre_flight():
    checks = preflight.checks({'kubelet': {'config_path': '/k', 'exists': True}},
                              {'koordlet_features': ['psi', 'rdt'], 'nri_enabled': None}, HOST)
    assert checks['errors'] == ['node_prep: node-1: node_prep_koordlet_features names rdt (allowed: memory_qos, '
                                'cpu_idle, core_sched, group_identity, psi, resctrl, nri, cpuset). Nothing was changed.']


# ------------------------------------------------------------------- cpuset: the kubelet's CPU manager policy
# pkg/koordlet/statesinformer/impl/states_noderesourcetopology.go, calcNodeTopo (koordlet takes over the cpusets
# and advises cpuManagerPolicy none) and calGuaranteedCpu (pods koord-scheduler gave CPUs are not reported as the
# kubelet's, which its static policy pins all the same); judged on the kubelet configuration the plan leaves
CPUSET_VECTORS = [
    ({'changed': False, 'config': {}}, True, 'cpuManagerPolicy none now'),
    ({'changed': True, 'config': {'cpuManagerPolicy': 'none'}}, True, 'cpuManagerPolicy none after this run'),
    ({'changed': True, 'config': {'cpuManagerPolicy': 'static'}}, False, 'set node_prep_cpu_manager_policy to none'),
    # the drop-in mode: what the kubelet runs is the main file with the drop-ins merged over it
    ({'changed': False, 'config': {}, 'effective_config': {'cpuManagerPolicy': 'static'}}, False,
     'cpuManagerPolicy static now'),
    ({'changed': False, 'skipped': True}, False, 'node_prep_kubelet_enabled is false'),
    (None, False, 'its cpuManagerPolicy is not known'),
    ({'changed': False, 'config': {'cpuManagerPolicy': 'pinned'}}, False, 'which koordlet does not know'),
]


@pytest.mark.parametrize('kubelet, ok, words', CPUSET_VECTORS)
def test_cpuset_is_judged_on_the_kubelet_configuration_the_plan_leaves(kubelet, ok, words):
    checked = kn.verdict({}, {'features': ['memory_qos', 'cpuset']}, HOST)
    assert checked['pending'] == ['cpuset'] and [i['feature'] for i in checked['features']] == ['memory_qos']
    settled = kn.settle(checked, kubelet, HOST)
    item = settled['features'][-1]
    assert [i['feature'] for i in settled['features']] == ['memory_qos', 'cpuset'] and settled['pending'] == []
    assert item['ok'] is ok and words in item['why'] + ' ' + item['fix']
    assert settled['settled_warnings'] == ([] if ok else [kn._warning(HOST, item)])
    assert settled['warnings'] == checked['warnings'] + settled['settled_warnings']
    assert checked['pending'] == ['cpuset'], 'settle() leaves its argument alone'
    assert kn.settle(settled, {'config': {'cpuManagerPolicy': 'static'}}, HOST) == settled, 'settled once'


def test_a_static_kubelet_is_named_in_the_decision_the_report_and_the_audit():
    node = _node({}, ['cpuset'])
    plan = _plan(True)
    plan['kubelet']['config'] = {'cpuManagerPolicy': 'static'}
    d = nd.decide(plan, node, SETTINGS, True, HOST, 's', 1)
    warning = d['plan_koordlet']['settled_warnings'][0]
    assert warning.startswith('node-1: koordlet cannot do LSR/LSE CPU binding') and warning in d['notes']
    assert 'cpuManagerPolicy static after this run' in warning and d['plan']['koordlet'] == ['cpuset']
    variables = {'node_prep__plan': d, 'node_prep__run': {}}
    report = fleet.node_report(variables)
    assert 'koordlet: cpuset NO' in fleet.node_summary(HOST, report, variables)
    assert nc.KOORDLET.drift_parts(report) == ['koordlet cannot do cpuset']
    # the kubelet left at none: no warning
    fine = nd.decide(_plan(False), node, SETTINGS, True, HOST, 's', 1)
    assert fine['plan_koordlet']['features'][0]['ok'] and fine['plan_koordlet']['settled_warnings'] == []


# ------------------------------------------------------------------- one "no" per feature, on fixture trees
def _grow(root, entries):
    for rel, text in entries.items():
        path = root / rel
        if text is None:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


# a node where koordlet can do everything (a directory stands in for the NRI socket: only its existence is read)
FINE_TREE = {
    'sys/fs/cgroup/kubepods.slice/memory.min': '0\n', 'sys/fs/cgroup/kubepods.slice/cpu.idle': '0\n',
    'sys/fs/cgroup/kubepods.slice/cpu.pressure': 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n',
    'sys/fs/cgroup/kubepods.slice/cpu.bvt_warp_ns': '0\n',
    'proc/cpuinfo': CPUINFO_INTEL, 'proc/cmdline': 'BOOT_IMAGE=/vmlinuz rdt=l3cat,mba quiet\n',
    'sys/fs/resctrl/info/L3/cbm_mask': 'fff\n', 'sys/fs/resctrl/info/MB': None, 'var/run/nri/nri.sock': None,
}
# per feature: what the tree loses or gets instead (path: None to remove), the core scheduling probe, the kubelet
# plan; and the words of what to change
NO_TREES = {
    'memory_qos': ({'sys/fs/cgroup/kubepods.slice/memory.min': None}, 'boot with cgroup v2 and the memory controller'),
    'cpu_idle': ({'sys/fs/cgroup/kubepods.slice/cpu.idle': None}, 'or set schedIdle to 0 in the NodeSLO'),
    'core_sched': ({}, 'move to a kernel built with core scheduling'),
    'group_identity': ({'sys/fs/cgroup/kubepods.slice/cpu.bvt_warp_ns': None}, 'move to one, or use the coreSched'),
    'psi': ({'sys/fs/cgroup/kubepods.slice/cpu.pressure': None}, 'add psi=1 to the kernel command line'),
    'resctrl': ({'proc/cmdline': 'BOOT_IMAGE=/vmlinuz rdt=!l3cat\n'}, 'take !l3cat out of rdt='),
    'nri': ({'var/run/nri/nri.sock': None}, 'enable NRI in containerd (node_prep_nri_enabled=true'),
    'cpuset': ({}, 'set node_prep_cpu_manager_policy to none'),
}


@pytest.mark.parametrize('feature', kn.FEATURES)
def test_one_no_per_feature_on_a_fixture_tree(tmp_path, feature):
    from ansible_collections.numaops.colocation.plugins.modules.node_preflight import probe
    assert sorted(NO_TREES) == sorted(kn.FEATURES)
    changes, words = NO_TREES[feature]
    _grow(tmp_path, FINE_TREE)
    for rel, text in changes.items():
        if text is None and (tmp_path / rel).is_dir():
            (tmp_path / rel).rmdir()
        elif text is None:
            (tmp_path / rel).unlink()
        else:
            (tmp_path / rel).write_text(text)
    asked = {'features': list(kn.FEATURES), 'cgroup_root': str(tmp_path / 'sys/fs/cgroup'),
             'proc_root': str(tmp_path / 'proc'), 'sys_root': str(tmp_path / 'sys'),
             'nri_socket': str(tmp_path / 'var/run/nri/nri.sock')}
    found = dict((path, probe(path)) for path in kn.probe_paths(asked))   # node_preflight's own read
    core = {'supported': feature != 'core_sched', 'error': 'EINVAL' if feature == 'core_sched' else ''}
    kubelet = {'changed': False, 'config': {'cpuManagerPolicy': 'static' if feature == 'cpuset' else 'none'}}
    result = kn.settle(kn.verdict(found, asked, HOST, '6.1.0-28-amd64', core), kubelet, HOST)
    assert [item['feature'] for item in result['features'] if not item['ok']] == [feature]
    item = [item for item in result['features'] if item['feature'] == feature][0]
    assert words in item['fix'] and kn._warning(HOST, item) in result['warnings']
