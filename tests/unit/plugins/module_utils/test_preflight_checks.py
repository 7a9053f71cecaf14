# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/preflight.checks: node_prep's pre-flight verdict from node_preflight's read and the role's
variables. Every check, note and derived value, with the exact sentences the role prints."""
from __future__ import annotations

import copy

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import preflight

HOST = 'node-1'
V2 = 'systemd.unified_cgroup_hierarchy=1'
SAMPLING = ['mem_sampling_on', 'numa_icon=enable']

# what node_preflight reads on a healthy Debian node
NODE = {
    'cgroup': {'path': '/sys/fs/cgroup/cgroup.controllers', 'controllers': ['cpuset', 'cpu', 'memory'], 'error': ''},
    'cmdline': {'path': '/proc/cmdline', 'text': 'BOOT_IMAGE=/vmlinuz root=/dev/vda1 quiet\n', 'error': ''},
    'containerd': {'binary': 'containerd', 'version': '1.7.24', 'output': 'containerd v1.7.24 abc', 'error': ''},
    'kubelet': {'config_path': '/var/lib/kubelet/config.yaml', 'exists': True},
    'online_cpus': {'text': '0-7\n', 'ids': [0, 1, 2, 3, 4, 5, 6, 7]},
    'online_numa_nodes': {'text': '0-1\n', 'ids': [0, 1]},
    'os': {'release': {'NAME': 'Debian GNU/Linux', 'VERSION_ID': '12', 'VERSION': '12 (bookworm)',
                       'PRETTY_NAME': 'Debian GNU/Linux 12 (bookworm)'}, 'machine': 'x86_64'},
}
OPENEULER = {'release': {'NAME': 'openEuler', 'VERSION_ID': '22.03', 'VERSION': '22.03 (LTS-SP4)',
                         'PRETTY_NAME': 'openEuler 22.03 (LTS-SP4)'}, 'machine': 'aarch64'}
# the role's defaults, as the role passes them
ASKED = {
    'facts': {'distribution': None, 'distribution_version': None, 'distribution_release': None, 'architecture': None},
    'kernel_args': [], 'mem_sampling': 'auto', 'mem_sampling_args': SAMPLING, 'memory_qos_enabled': False,
    'reboot_allowed': False, 'manage_services': True, 'containerd_version': '', 'containerd_binary': 'containerd',
    'nri_enabled': True, 'kubelet_enabled': True, 'kubelet_config_path': '', 'kubelet_service': 'kubelet',
    'kubelet_unit_dirs': ['/etc/systemd/system', '/usr/lib/systemd/system'],
    'kubelet_env_files': ['/var/lib/kubelet/kubeadm-flags.env'],
    'kubelet_config_candidates': ['/var/lib/kubelet/config.yaml', '/etc/kubernetes/kubelet-config.yaml'],
    'reserved_system_cpus': None, 'reserved_memory': None, 'k8s_enabled': True, 'node_name': 'node-1',
    'cgroup_root': '/sys/fs/cgroup', 'proc_cmdline_path': '/proc/cmdline', 'sysfs_cpu_dir': '/sys/devices/system/cpu',
    'sysfs_node_dir': '/sys/devices/system/node', 'unknown': [], 'allow_unknown': False, 'invalid': [],
}
OPENEULER_X86_NOTE = ('mem_sampling_on numa_icon=enable skipped: these kernel flags are for openEuler 22.03 SP4 '
                      'aarch64 only, and this host is openEuler 22.03 (LTS-SP4) x86_64. Set '
                      'node_prep_mem_sampling=enabled to add them anyway.')


def run(node=None, **asked):
    node = copy.deepcopy(NODE if node is None else node)
    return preflight.checks(node, dict(copy.deepcopy(ASKED), **asked), HOST)


def edit(**parts):
    node = copy.deepcopy(NODE)
    for key, value in parts.items():
        if isinstance(value, dict) and isinstance(node.get(key), dict):
            node[key].update(value)
        else:
            node[key] = value
    return node


def test_a_node_that_fits():
    assert run() == {
        'kernel_args': [], 'mem_sampling_wanted': False, 'cgroup_v2_memory': None, 'cgroup_v2_args': [],
        'cgroup_v2_after_reboot': False, 'containerd_version': '1.7.24',
        'kubelet_config': '/var/lib/kubelet/config.yaml', 'notes': [], 'errors': [],
        'kubelet_target': {'write_to': 'main', 'config_dir': '', 'drop_in_file': '', 'unit_drop_in': '',
                           'why': 'node_prep_kubelet_write_to=auto: the kubelet runs without --config-dir'},
        'settings': {'kubelet_enabled': True, 'memory_qos_enabled': False, 'lock_enabled': True, 'k8s_enabled': True,
                     'manage_services': True, 'reboot_allowed': False, 'nri_enabled': True},
        'koordlet': {'features': [], 'hazard': [], 'warnings': [], 'notes': [], 'pending': []},
    }


def _with_config_dir(config_dir):
    return {'kubelet': {'config_path': '/var/lib/kubelet/config.yaml', 'exists': True, 'config_dir': config_dir}}


def test_auto_writes_a_drop_in_where_the_kubelet_reads_a_drop_in_directory():
    node = copy.deepcopy(NODE)
    node.update(_with_config_dir('/etc/kubernetes/kubelet.conf.d'))
    target = run(node)['kubelet_target']
    assert target == {'write_to': 'dropin', 'config_dir': '/etc/kubernetes/kubelet.conf.d',
                      'drop_in_file': '/etc/kubernetes/kubelet.conf.d/90-numaops-colocation.conf', 'unit_drop_in': '',
                      'why': 'node_prep_kubelet_write_to=auto: the kubelet runs with '
                             '--config-dir=/etc/kubernetes/kubelet.conf.d'}
    # main: the main file, the drop-ins still merged over it (a key of ours they override is refused)
    target = run(node, kubelet_write_to='main')['kubelet_target']
    assert (target['write_to'], target['config_dir'], target['drop_in_file']) == (
        'main', '/etc/kubernetes/kubelet.conf.d', '')


def test_a_drop_in_without_a_drop_in_directory_is_refused_unless_one_is_enabled():
    checks = run(kubelet_write_to='dropin')
    assert checks['kubelet_target']['write_to'] == 'main'
    assert checks['errors'] == [
        'node_prep: %s: node_prep_kubelet_write_to=dropin: the kubelet runs without a drop-in directory (no '
        '--config-dir in its unit, its drop-ins or environment files) and node_prep_kubelet_config_dir is empty. Set '
        'node_prep_kubelet_enable_config_dir=true (kubelet 1.30 or later, node_prep_kubelet_version) to give it one, '
        'node_prep_kubelet_config_dir to the directory it reads, or node_prep_kubelet_write_to=main. Nothing was '
        'changed.' % HOST]
    target = run(kubelet_write_to='auto', kubelet_enable_config_dir=True, root='/r')['kubelet_target']
    assert target == {'write_to': 'dropin', 'config_dir': '/r/etc/kubernetes/kubelet.conf.d',
                      'drop_in_file': '/r/etc/kubernetes/kubelet.conf.d/90-numaops-colocation.conf',
                      'unit_drop_in': '/etc/systemd/system/kubelet.service.d/90-numaops-config-dir.conf',
                      'why': 'node_prep_kubelet_write_to=auto: node_prep_kubelet_config_dir='
                             '/r/etc/kubernetes/kubelet.conf.d'}
    target = run(kubelet_write_to='dropin', kubelet_config_dir='/d/', kubelet_drop_in_name='50-x.conf')['kubelet_target']
    assert (target['config_dir'], target['drop_in_file'], target['why']) == (
        '/d', '/d/50-x.conf', 'node_prep_kubelet_write_to=dropin')


@pytest.mark.parametrize('asked, fragment', [
    ({'kubelet_write_to': 'dropin', 'kubelet_config_dir': '/d', 'kubelet_drop_in_name': '../x.conf'},
     "node_prep_kubelet_drop_in_name='../x.conf' is not a file name ending in .conf"),
    ({'kubelet_write_to': 'dropin', 'kubelet_config_dir': '/d', 'kubelet_drop_in_name': 'x.yaml'},
     "node_prep_kubelet_drop_in_name='x.yaml' is not a file name ending in .conf"),
    ({'kubelet_write_to': 'main', 'kubelet_enable_config_dir': True},
     'node_prep_kubelet_enable_config_dir=true needs node_prep_kubelet_write_to=dropin or auto'),
    ({'kubelet_write_to': 'both'}, "node_prep_kubelet_write_to='both' is not one of auto, main, dropin"),
])
def test_drop_in_choices_that_cannot_be_refused_naming_the_variable(asked, fragment):
    errors = run(**asked)['errors']
    assert len(errors) == 1 and fragment in errors[0] and errors[0].endswith('Nothing was changed.')


def test_no_kubelet_target_without_the_kubelet_concern():
    assert run(kubelet_enabled=False, kubelet_write_to='dropin')['kubelet_target'] == {}


def test_the_settings_asked_come_back_typed_and_decide_what_is_read():
    assert run(kubelet_enabled='no', nri_enabled=None, reboot_allowed='yes')['settings'] == {
        'kubelet_enabled': False, 'memory_qos_enabled': False, 'lock_enabled': True, 'k8s_enabled': True,
        'manage_services': True, 'reboot_allowed': True, 'nri_enabled': None}
    args = {'lock': {'path': '/l', 'state': 'query'}, 'root': '', 'cgroup_root': '/sys/fs/cgroup',
            'proc_cmdline_path': '/proc/cmdline', 'kubelet': 'yes', 'read_kubelet_config': True,
            'sysfs_cpu_dir': '/c', 'sysfs_node_dir': '/n', 'proc_meminfo_path': '/m'}
    # the kubepods QoS cgroups' cpu.idle (both drivers) with the kubelet concern; nothing of koordlet without it
    idle = sorted('/sys/fs/cgroup%s/%s/cpu.idle' % (prefix, rel) for prefix in ('', '/cpu') for rel in (
        'kubepods.slice', 'kubepods.slice/kubepods-besteffort.slice', 'kubepods.slice/kubepods-burstable.slice',
        'kubepods/besteffort', 'kubepods/burstable', 'kubepods'))
    assert preflight.read_args(args, dict(ASKED, memory_qos_enabled=True)) == dict(
        args, kubelet=True, probe_files=idle, probe_core_sched=False)
    assert preflight.read_args(args, dict(ASKED, kubelet_enabled=False, lock_enabled=False)) == {
        'root': '', 'kubelet': False, 'read_kubelet_config': False, 'probe_files': [], 'probe_core_sched': False}


def test_defaults_fill_missing_keys_and_unknown_keys_are_refused():
    result = preflight.checks(NODE, {}, HOST)
    assert result['errors'] == [] and result['containerd_version'] == ''
    with pytest.raises(ValueError, match=r'unknown key\(s\) bogus, kernel_arg \(allowed: allow_unknown, cgroup_root'):
        preflight.checks(NODE, {'bogus': 1, 'kernel_arg': []}, HOST)


# ------------------------------------------------------------------------------- kernel arguments, mem sampling
@pytest.mark.parametrize('mem_sampling, node_os, facts, wanted', [
    ('auto', OPENEULER, {}, True),
    ('auto', NODE['os'], {}, False),
    ('enabled', NODE['os'], {}, True),
    ('disabled', OPENEULER, {}, False),
    # the gathered facts win over os-release
    ('auto', NODE['os'], {'distribution': 'openEuler', 'distribution_version': '22.03',
                          'distribution_release': 'LTS-SP4', 'architecture': 'aarch64'}, True),
    ('auto', OPENEULER, {'distribution': 'openEuler', 'distribution_version': '22.03',
                         'distribution_release': 'LTS-SP3', 'architecture': 'aarch64'}, False),
    ('auto', dict(OPENEULER, machine='x86_64'), {}, False),
    ('auto', {'release': dict(OPENEULER['release'], VERSION_ID='24.03'), 'machine': 'aarch64'}, {}, False),
])
def test_mem_sampling_flags(mem_sampling, node_os, facts, wanted):
    result = run(edit(os=node_os), mem_sampling=mem_sampling, kernel_args=['numa_icon=enable', 'quiet'],
                 facts=dict(ASKED['facts'], **facts))
    assert result['mem_sampling_wanted'] is wanted
    # unique, in order: the sampling flag already among node_prep_kernel_args is not repeated
    assert result['kernel_args'] == (['numa_icon=enable', 'quiet', 'mem_sampling_on'] if wanted
                                     else ['numa_icon=enable', 'quiet'])
    skipped_note = [note for note in result['notes'] if 'skipped: these kernel flags' in note]
    # the note only where it applies: an openEuler host that is not 22.03 SP4 aarch64
    openeuler = (facts.get('distribution') or node_os['release'].get('NAME')) == 'openEuler'
    assert bool(skipped_note) is (mem_sampling == 'auto' and not wanted and openeuler)


def test_sampling_note_names_the_host_from_the_facts_or_os_release():
    x86 = edit(os=dict(OPENEULER, machine='x86_64'))
    assert run(x86)['notes'] == [OPENEULER_X86_NOTE]
    facts = {'distribution': 'openEuler', 'distribution_version': '24.03', 'distribution_release': 'LTS',
             'architecture': 'aarch64'}
    assert run(facts=facts)['notes'][0] == OPENEULER_X86_NOTE.replace('openEuler 22.03 (LTS-SP4) x86_64',
                                                                      'openEuler 24.03 LTS aarch64')
    bare = edit(os={'release': {'NAME': 'openEuler', 'VERSION_ID': '20.03'}, 'machine': 'riscv64'})
    assert 'this host is openEuler 20.03 riscv64.' in run(bare)['notes'][0]


def test_no_sampling_note_on_other_distributions():
    """auto means: where the flags apply. A Debian, Ubuntu or unknown host gets no note on every run."""
    ubuntu = {'distribution': 'Ubuntu', 'distribution_version': '24.04', 'distribution_release': 'noble',
              'architecture': 'x86_64'}
    assert run(facts=ubuntu)['notes'] == []
    assert run(edit(os={'release': {}, 'machine': ''}))['notes'] == []
    assert run(mem_sampling='disabled')['notes'] == []


# ------------------------------------------------------------------------------- cgroup v2
def test_memory_qos_on_cgroup_v2_with_memory():
    result = run(memory_qos_enabled=True, kernel_args=[V2, 'quiet'])
    assert result['cgroup_v2_memory'] is True and result['cgroup_v2_args'] == [V2] and result['errors'] == []


@pytest.mark.parametrize('arg, is_v2', [
    ('systemd.unified_cgroup_hierarchy', True), ('systemd.unified_cgroup_hierarchy=yes', True),
    ('systemd.unified_cgroup_hierarchy=on', True), ('systemd.unified_cgroup_hierarchy=true', True),
    ('systemd.unified_cgroup_hierarchy=0', False), ('systemd.unified_cgroup_hierarchy=1x', False),
    ('xsystemd.unified_cgroup_hierarchy=1', False),
])
def test_which_arguments_bring_cgroup_v2(arg, is_v2):
    assert run(memory_qos_enabled=True, kernel_args=[arg])['cgroup_v2_args'] == ([arg] if is_v2 else [])


def test_memory_qos_off_checks_nothing_of_cgroups():
    result = run(edit(cgroup={'controllers': None, 'error': 'No such file'}), kernel_args=[V2])
    assert result['cgroup_v2_memory'] is None and result['cgroup_v2_args'] == [] and result['errors'] == []


V1_NODE = {'cgroup': {'controllers': None, 'error': 'No such file or directory'}}
CGROUP_HEAD = ('node_prep: node-1 is not on the unified cgroup v2 hierarchy with the memory controller, which memory '
               'QoS (node_prep_memory_qos_enabled=true) needs: /sys/fs/cgroup/cgroup.controllers ')


def test_no_memory_controller():
    result = run(edit(cgroup={'controllers': ['cpu', 'io']}), memory_qos_enabled=True)
    assert result['cgroup_v2_memory'] is False
    assert result['errors'] == [CGROUP_HEAD + 'lists cpu io. The memory controller is not enabled (cgroup_disable='
                                'memory on the kernel command line?): enable it, or set '
                                'node_prep_memory_qos_enabled=false. Nothing was changed.']
    empty = run(edit(cgroup={'controllers': []}), memory_qos_enabled=True)['errors'][0]
    assert 'cgroup.controllers lists nothing. The memory' in empty


def test_cgroup_v1_without_the_argument():
    assert run(edit(**V1_NODE), memory_qos_enabled=True, reboot_allowed=True)['errors'] == [
        CGROUP_HEAD + 'cannot be read (No such file or directory). Boot with systemd.unified_cgroup_hierarchy=1: add '
        'it to node_prep_kernel_args and allow the reboot with node_prep_reboot_allowed=true (node_prep then reboots '
        'and checks cgroup v2 again), or set node_prep_memory_qos_enabled=false. Nothing was changed.']
    assert 'cannot be read (missing).' in run(edit(cgroup={'controllers': None, 'error': ''}),
                                              memory_qos_enabled=True)['errors'][0]


def test_cgroup_v1_already_booted_with_the_argument():
    node = edit(cmdline={'text': 'root=/dev/vda1 %s\n' % V2}, **V1_NODE)
    assert run(node, memory_qos_enabled=True, kernel_args=[V2], reboot_allowed=True)['errors'] == [
        CGROUP_HEAD + 'cannot be read (No such file or directory). The running kernel was already booted with '
        'systemd.unified_cgroup_hierarchy=1 (/proc/cmdline), so a reboot would not help: check the systemd version '
        'and the cgroup_no_v1/cgroup_disable kernel arguments, or set node_prep_memory_qos_enabled=false. Nothing '
        'was changed.']


@pytest.mark.parametrize('reboot_allowed, manage_services, why', [
    (False, True, 'node_prep_reboot_allowed=false): allow the role to reboot with node_prep_reboot_allowed=true'),
    (True, False, 'node_prep_manage_services=false): let the role manage the services and reboot with '
                  'node_prep_manage_services=true'),
    ('no', 'yes', 'node_prep_reboot_allowed=false): allow the role to reboot with node_prep_reboot_allowed=true'),
])
def test_cgroup_v1_with_the_argument_but_no_reboot(reboot_allowed, manage_services, why):
    result = run(edit(**V1_NODE), memory_qos_enabled=True, kernel_args=[V2], reboot_allowed=reboot_allowed,
                 manage_services=manage_services)
    assert result['cgroup_v2_after_reboot'] is False
    assert result['errors'] == [
        CGROUP_HEAD + 'cannot be read (No such file or directory). node_prep_kernel_args carries '
        'systemd.unified_cgroup_hierarchy=1, but this run will not reboot (' + why + ', or run once with '
        'node_prep_memory_qos_enabled=false and reboot the node yourself. Nothing was changed.']


@pytest.mark.parametrize('truth', [True, 'yes', 'true', 'True', 1, 'on'])
def test_cgroup_v2_comes_with_this_runs_reboot(truth):
    result = run(edit(**V1_NODE), memory_qos_enabled=truth, kernel_args=[V2], reboot_allowed=truth,
                 manage_services=truth)
    assert result['errors'] == [] and result['cgroup_v2_after_reboot'] is True
    assert result['cgroup_v2_memory'] is False
    assert ('node-1 is not on the unified cgroup v2 hierarchy yet (/sys/fs/cgroup/cgroup.controllers cannot be '
            'read), which memory QoS (node_prep_memory_qos_enabled=true) needs. node_prep_kernel_args carries '
            'systemd.unified_cgroup_hierarchy=1 and node_prep_reboot_allowed is true: memory QoS becomes possible '
            "after this run's reboot. cgroup v2 with the memory controller is checked again after the reboot; if it "
            'is still missing, the run fails and is rolled back.') in result['notes']


# ------------------------------------------------------------------------------- containerd
@pytest.mark.parametrize('read, given, ok, found', [
    ('1.7.24', '', True, '1.7.24'),
    ('2.1.0', '', True, '2.1.0'),
    ('1.7', '', True, '1.7'),
    ('1.6.33', '', False, '1.6.33'),
    ('1.6.33', '1.7.0', True, '1.7.0'),  # node_prep_containerd_version wins over the read
    ('', 'v2.0.4', True, 'v2.0.4'),
    ('', '', False, ''),
    ('', None, False, ''),
    ('1.10.0', '', True, '1.10.0'),
    ('0.9', '', False, '0.9'),
])
def test_containerd_version(read, given, ok, found):
    result = run(edit(containerd={'version': read}), containerd_version=given)
    assert result['containerd_version'] == found
    assert (result['errors'] == []) is ok


def test_containerd_messages():
    old = run(edit(containerd={'version': '1.6.33'}))['errors']
    assert old == ['node_prep: node-1: containerd 1.6.33 has no NRI v0.3+; NRI (node_prep_nri_enabled=true) needs '
                   'containerd 1.7 or later. Upgrade containerd first, or set node_prep_nri_enabled=false. Nothing '
                   'was changed.']
    unknown = run(edit(containerd={'version': '', 'error': 'rc=127: containerd: not found', 'output': ''}),
                  containerd_binary='/usr/bin/containerd')['errors']
    assert unknown == ['node_prep: node-1: the containerd version could not be determined (`/usr/bin/containerd '
                       '--version`: rc=127: containerd: not found). Set node_prep_containerd_version, or set '
                       'node_prep_nri_enabled=false. Nothing was changed.']
    odd = run(edit(containerd={'version': '', 'error': '', 'output': 'containerd weird'}))['errors'][0]
    assert '(`containerd --version`: containerd weird).' in odd
    silent = run(edit(containerd={'version': '', 'error': '', 'output': ''}))['errors'][0]
    assert '(`containerd --version`: no output).' in silent


@pytest.mark.parametrize('nri, version_kept', [(None, ''), (False, '1.6.33')])
def test_containerd_not_checked_unless_nri_is_enabled(nri, version_kept):
    result = run(edit(containerd={'version': '1.6.33'}), nri_enabled=nri)
    assert result['errors'] == [] and result['containerd_version'] == version_kept


# ------------------------------------------------------------------------------- kubelet file
KUBELET_TAIL = (' Set node_prep_kubelet_config_path to the file the kubelet reads (its --config), or '
                'node_prep_kubelet_enabled=false to leave the kubelet alone. Nothing was changed.')
LOOKED = ('Looked for --config in kubelet.service and its drop-ins under /etc/systemd/system, /usr/lib/systemd/system '
          'and in /var/lib/kubelet/kubeadm-flags.env, then at /var/lib/kubelet/config.yaml, '
          '/etc/kubernetes/kubelet-config.yaml.')


def test_kubelet_file_named_by_the_user_is_missing():
    node = edit(kubelet={'config_path': '/etc/k/kc.yaml', 'exists': False})
    assert run(node, kubelet_config_path='/etc/k/kc.yaml')['errors'] == [
        'node_prep: node-1: no kubelet configuration file found. node_prep_kubelet_config_path=/etc/k/kc.yaml does '
        'not exist.' + KUBELET_TAIL]


def test_kubelet_file_named_by_the_unit_is_missing():
    node = edit(kubelet={'config_path': '/etc/kubelet.yaml', 'exists': False})
    assert run(node)['errors'] == [
        'node_prep: node-1: no kubelet configuration file found. /etc/kubelet.yaml (named by --config in the kubelet '
        'unit) does not exist. ' + LOOKED + KUBELET_TAIL]
    assert run(node)['kubelet_config'] == '/etc/kubelet.yaml'


def test_no_kubelet_file_anywhere():
    result = run(edit(kubelet={'config_path': '', 'exists': False}))
    assert result['errors'] == ['node_prep: node-1: no kubelet configuration file found. ' + LOOKED + KUBELET_TAIL]
    assert result['kubelet_config'] == ''


def test_kubelet_left_alone_checks_no_kubelet_file_cpus_or_nodes():
    node = edit(kubelet={}, online_cpus={'text': None, 'ids': None})
    assert run(node, kubelet_enabled=False, reserved_system_cpus='99', reserved_memory=[{'numaNode': 7}])['errors'] == []


# ------------------------------------------------------------------------------- reserved CPUs and NUMA nodes
CPU_HEAD = 'node_prep: node-1: node_prep_reserved_system_cpus='


@pytest.mark.parametrize('cpus, message', [
    ('0-1', None), ('0,7', None), (3, None), ('auto', None), ('', None), (None, None), (0, None),
    ('6-9', '"6-9" names CPUs this node does not have online: 8,9 (online: 0-7, from /sys/devices/system/cpu/online)'),
    ('0-x', '"0-x" is not a CPU list (allowed: comma-separated CPU numbers and ranges, e.g. "0-1" or "0,32")'),
    (12, '12 names CPUs this node does not have online: 12 (online: 0-7, from /sys/devices/system/cpu/online)'),
])
def test_reserved_cpus(cpus, message):
    errors = run(reserved_system_cpus=cpus)['errors']
    assert errors == ([] if message is None else [CPU_HEAD + message + '. Nothing was changed.'])


def test_reserved_cpus_cannot_be_checked_without_the_online_list():
    node = edit(online_cpus={'text': None, 'ids': None})
    assert run(node, reserved_system_cpus='0-1')['errors'] == [
        CPU_HEAD + '"0-1" cannot be checked: /sys/devices/system/cpu/online is unreadable. Nothing was changed.']


NODES_TAIL = ', from /sys/devices/system/node/online). Use only numaNode values of this node. Nothing was changed.'


@pytest.mark.parametrize('memory, node, message', [
    ([{'numaNode': 0, 'limits': {'memory': '1Gi'}}, {'numaNode': 1}], None, None),
    ('auto', None, None),
    ([], None, None),
    (None, None, None),
    ([{'numaNode': 3}, {'numaNode': 0}, {'numaNode': 3}], None,
     'node_prep: node-1: node_prep_reserved_memory names NUMA node(s) 3 that this node does not have (online NUMA '
     'nodes: 0-1' + NODES_TAIL),
    ([{'numaNode': 0}], {'text': None, 'ids': None},
     'node_prep: node-1: node_prep_reserved_memory names NUMA node(s) 0 that this node does not have (online NUMA '
     'nodes: unreadable' + NODES_TAIL),
    ([{'numaNode': 1}, {'limits': {}}], None,
     'node_prep: node-1: node_prep_reserved_memory names NUMA node(s) None that this node does not have (online NUMA '
     'nodes: 0-1' + NODES_TAIL),
])
def test_reserved_memory_nodes(memory, node, message):
    errors = run(edit(online_numa_nodes=node) if node else None, reserved_memory=memory)['errors']
    assert errors == ([] if message is None else [message])


# ------------------------------------------------------------------------------- unknown variables, Kubernetes
UNKNOWN = ['host node-1: node_prep_cpu_manager_polcy (did you mean node_prep_cpu_manager_policy?)']


def test_unknown_variables_fail_unless_allowed():
    assert run(unknown=UNKNOWN)['errors'] == [
        'node_prep: host node-1: node_prep_cpu_manager_polcy (did you mean node_prep_cpu_manager_policy?). These are '
        'host/group variables or extra vars (-e, AWX survey or extra variables) that no role or playbook of '
        'numaops.colocation reads, so they would be ignored. Fix the name, or set '
        'colocation_allow_unknown_variables=true to allow them. Nothing was changed.']
    allowed = run(unknown=UNKNOWN, allow_unknown='true')
    assert allowed['errors'] == []
    assert allowed['notes'][0] == 'WARNING (colocation_allow_unknown_variables=true): ' + UNKNOWN[0]


def test_invalid_role_variables_fail_and_are_named_with_what_is_allowed():
    invalid = ['host node-1: value of node_prep_nri_mode must be one of: inline, dropin, got: sideways']
    assert run(invalid=invalid)['errors'] == [
        'node_prep: host node-1: value of node_prep_nri_mode must be one of: inline, dropin, got: sideways (the types '
        'and values roles/node_prep/meta/argument_specs.yml allows). Nothing was changed.']
    # colocation_allow_unknown_variables is about names, not values: still an error
    assert len(run(invalid=invalid, unknown=UNKNOWN, allow_unknown=True)['errors']) == 1


def test_without_the_kubernetes_api_the_run_says_so():
    notes = run(k8s_enabled=False, node_name='worker-7', mem_sampling='disabled')['notes']
    assert notes == ['The Kubernetes API is not used (node_prep_k8s_enabled is false; it is true by default when '
                     'node_prep_k8s_kubeconfig/node_prep_k8s_host or K8S_AUTH_KUBECONFIG/K8S_AUTH_HOST on the '
                     'controller is set): worker-7 will NOT be cordoned/drained before a kubelet change, and neither '
                     'Node Ready nor the kubelet\'s /configz is checked (only /healthz).']


def test_every_problem_is_named_at_once_in_order():
    node = edit(cgroup={'controllers': ['cpu']}, containerd={'version': '1.6.0'},
                kubelet={'config_path': '', 'exists': False}, online_numa_nodes={'text': '0\n', 'ids': [0]})
    errors = run(node, unknown=UNKNOWN, memory_qos_enabled=True, reserved_system_cpus='8',
                 reserved_memory=[{'numaNode': 1}])['errors']
    assert [error.split(':')[1].strip().split(' ')[0] for error in errors] == [
        'host', 'node-1', 'node-1', 'node-1', 'node-1', 'node-1']
    assert ['unknown' in errors[0], 'cgroup v2' in errors[1], 'containerd 1.6.0' in errors[2],
            'no kubelet configuration' in errors[3], 'reserved_system_cpus' in errors[4],
            'reserved_memory' in errors[5]] == [True] * 6


@pytest.mark.parametrize('text, ok', [
    ('1.7', True), ('1.7.0', True), ('v1.7.24', True), ('1.6.99', False), ('2', True), ('1', False), ('', False),
    (None, False), ('unknown', False), ('1.10', True), (' 1.7 ', True),
])
def test_version_at_least(text, ok):
    assert preflight.version_at_least(text, (1, 7)) is ok
