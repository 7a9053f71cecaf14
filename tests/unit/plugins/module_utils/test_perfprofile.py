# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""perfprofile.derive on sysfs trees with and without SMT, with one and two NUMA nodes: CPU sets, kubelet settings,
kernel arguments, huge pages per NUMA node, and every refusal."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import perfprofile, systemd_unit
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.perf_trees import facts

XEON_ISOLATED = '1-31,33-63,65-95,97-127'


@pytest.fixture(scope='module')
def xeon():
    return facts('xeon8358-2s')


@pytest.fixture(scope='module')
def tx2():
    return facts('thunderx2-2s')


@pytest.fixture(scope='module')
def one():
    return facts('one-node')


def refused(profile, topology):
    with pytest.raises(perfprofile.ProfileError) as err:
        perfprofile.derive(profile, topology)
    return err.value.errors


def test_auto_on_smt_two_nodes_reserves_one_whole_core_per_node(xeon):
    derived = perfprofile.derive({'cpu': {'reserved': 'auto'}}, xeon)
    assert derived['reserved_cpus'] == '0,32,64,96'
    assert derived['isolated_cpus'] == XEON_ISOLATED
    assert [d['cpus'] for d in derived['reserved_detail']] == ['0,64', '32,96']
    assert derived['kubelet'] == {'cpu_manager_policy': 'static', 'reserved_system_cpus': '0,32,64,96',
                                  'topology_manager_policy': 'best-effort'}
    assert derived['kernel_args'] == [
        'nohz=on', 'nohz_full=' + XEON_ISOLATED, 'rcu_nocbs=' + XEON_ISOLATED,
        'isolcpus=managed_irq,' + XEON_ISOLATED, 'irqaffinity=0,32,64,96', 'systemd.cpu_affinity=0,32,64,96',
        'skew_tick=1']
    assert derived['irqbalance_banned_cpus'] == XEON_ISOLATED
    assert derived['hugepages'] == [] and derived['node_hugepages'] == []


def test_auto_uneven_cores_take_nodes_in_turn(tx2):
    derived = perfprofile.derive({'cpu': {'reserved': 'auto', 'reserved_cores': 3}}, tx2)
    assert derived['reserved_cpus'] == '0-1,28'
    assert derived['isolated_cpus'] == '2-27,29-55'


def test_auto_on_one_node(one):
    derived = perfprofile.derive({'cpu': {'reserved': 'auto'}}, one)
    assert derived['reserved_cpus'] == '0,4' and derived['isolated_cpus'] == '1-3,5-7'


def test_no_smt_any_cpu_can_be_reserved(tx2):
    derived = perfprofile.derive({'cpu': {'reserved': '0', 'isolated': '1-27'}}, tx2)
    # CPUs in neither set stay in the kubelet's shared pool, and are housekeeping CPUs of the kernel
    assert derived['kernel_args'][4] == 'irqaffinity=0,28-55'
    assert derived['kubelet']['reserved_system_cpus'] == '0'


def test_single_numa_node_policy_sets_memory_manager_and_full_pcpus(xeon):
    derived = perfprofile.derive({'cpu': {'reserved': '0,64'}, 'numa': {'topology_policy': 'single-numa-node'}},
                                 xeon)
    assert derived['kubelet'] == {
        'cpu_manager_policy': 'static', 'reserved_system_cpus': '0,64', 'topology_manager_policy': 'single-numa-node',
        'memory_manager_policy': 'Static', 'reserved_memory': 'auto',
        'cpu_manager_policy_options': {'full-pcpus-only': 'true'}}


def test_restricted_policy_sets_memory_manager_only(xeon):
    kubelet = perfprofile.derive({'cpu': {'reserved': '0,64'}, 'numa': {'topology_policy': 'restricted'}},
                                 xeon)['kubelet']
    assert kubelet['memory_manager_policy'] == 'Static' and 'cpu_manager_policy_options' not in kubelet


def test_balance_isolated_false_removes_scheduler_domains(xeon):
    args = perfprofile.derive({'cpu': {'reserved': 'auto', 'balance_isolated': False}}, xeon)['kernel_args']
    assert 'isolcpus=domain,managed_irq,' + XEON_ISOLATED in args


def test_isolation_off_only_reserves(xeon):
    derived = perfprofile.derive({'cpu': {'reserved': 'auto'}, 'isolation': False}, xeon)
    assert derived['kernel_args'] == [] and derived['irqbalance_banned_cpus'] is None
    assert derived['kubelet']['reserved_system_cpus'] == '0,32,64,96'


def test_huge_pages_only_uneven_split(xeon):
    derived = perfprofile.derive({'hugepages': {'pages': [{'size': '2M', 'count': 1024, 'node': 0},
                                                          {'size': '2M', 'count': 256, 'node': 1}]}}, xeon)
    assert derived['reserved_cpus'] is None and derived['kubelet'] == {} and derived['kernel_args'] == []
    assert derived['irqbalance_banned_cpus'] is None
    assert [(p['node'], p['count']) for p in derived['node_hugepages']] == [(0, 1024), (1, 256)]
    # node 0 has 1024 2M pages already, node 1 1024 where 256 are wanted
    assert perfprofile.hugepages_drift(derived['node_hugepages'], xeon) == [
        {'node': 1, 'size': '2M', 'wanted': 256, 'allocated': 1024}]


def test_one_gig_pages_per_node_are_boot_arguments_too(xeon):
    derived = perfprofile.derive({'hugepages': {'default_size': '1G', 'pages': [
        {'size': '1G', 'count': 2, 'node': 1}, {'size': '1G', 'count': 4, 'node': 0},
        {'size': '2M', 'count': 64, 'node': 0}]}}, xeon)
    assert derived['kernel_args'] == ['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=0:4,1:2']
    assert len(derived['node_hugepages']) == 3


def test_pages_without_node_are_reserved_at_boot(one):
    derived = perfprofile.derive({'hugepages': {'pages': [{'size': '2M', 'count': 512}]}}, one)
    assert derived['kernel_args'] == ['hugepagesz=2M', 'hugepages=512'] and derived['node_hugepages'] == []


def test_unit_sets_each_node_before_the_kubelet():
    pages = [{'size': '2M', 'kib': 2048, 'count': 256, 'node': 1},
             {'size': '1G', 'kib': 1048576, 'count': 4, 'node': 0}]
    entries = systemd_unit.parse_unit(perfprofile.huge_pages_unit(pages))
    values = [(section, key, value) for section, key, value, _line in entries]
    assert ('Unit', 'Before', 'kubelet.service') in values
    assert ('Service', 'Type', 'oneshot') in values and ('Install', 'WantedBy', 'multi-user.target') in values
    execs = [value for section, key, value in values if key == 'ExecStart']
    assert execs == [
        "/bin/sh -c 'echo 4 > /sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages && test "
        "\"$$(cat /sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages)\" -eq 4'",
        "/bin/sh -c 'echo 256 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages && test "
        "\"$$(cat /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages)\" -eq 256'"]


def test_drift_unknown_count(one):
    pages = [{'size': '1G', 'kib': 1048576, 'count': 1, 'node': 0}]
    assert perfprofile.hugepages_drift(pages, one) == [{'node': 0, 'size': '1G', 'wanted': 1, 'allocated': None}]


@pytest.mark.parametrize('profile, message', [
    ({'cpu': {'reserved': '0', 'isolated': '1-64'}},
     'profile.cpu: SMT siblings split between reserved and isolated: core 0 of NUMA node 0 (CPUs 0,64: reserved 0, '
     'isolated 64); put every sibling of a core on the same side (reserved 0 as whole cores: 0,64)'),
    ({'cpu': {'reserved': '0-1,64-65', 'isolated': '1-3'}},
     'profile.cpu: reserved 0-1,64-65 and isolated 1-3 overlap on 1; a CPU is either reserved or isolated'),
    ({'cpu': {'reserved': '0,200'}},
     'profile.cpu.reserved: 0,200 names CPUs 200 that are not online on this node (online: 0-127)'),
    ({'cpu': {'reserved': ''}}, 'profile.cpu.reserved: the CPU list is empty; give at least one CPU or auto'),
    ({'cpu': {'reserved': '0,64', 'isolated': 'x'}},
     'profile.cpu.isolated: "x" is not a CPU list like "0-1" or "0,2,4-7": bad element "x"; allowed: a CPU list '
     'or auto'),
    ({'cpu': {'isolated': '1-3'}}, 'profile.cpu.reserved: missing; allowed: a CPU list such as 0-1 or auto'),
    ({'cpu': {'reserved': '0,64', 'reserved_cores': 2}},
     'profile.cpu.reserved_cores: 2 is only used with reserved: auto'),
    ({'cpu': {'reserved': 'auto', 'reserved_cores': 0}},
     'profile.cpu.reserved_cores: 0 is not a number of whole cores (1, 2, ...)'),
    ({'cpu': {'reserved': 'auto', 'reserved_cores': 64}},
     'profile.cpu.reserved: auto: reserved_cores=64 reserves every core of the node (64 cores, 128 CPUs), leaving '
     'no CPU for pods'),
    ({'cpu': {'reserved': '0,64', 'balance_isolated': 'no'}},
     "profile.cpu.balance_isolated: 'no' is not a boolean (true or false)"),
    ({'cpu': {'reserved': '0,64', 'shared': '1'}},
     'profile.cpu.shared: unknown field; allowed: reserved, isolated, reserved_cores, balance_isolated'),
    ({'realtime': True, 'cpu': {'reserved': 'auto'}},
     'profile.realtime: True; only false is allowed: the real-time kernel and its hints are not set by this '
     'collection'),
    ({'isolation': 'yes', 'cpu': {'reserved': 'auto'}}, "profile.isolation: 'yes' is not a boolean (true or false)"),
    ({}, 'profile: sets nothing; give cpu, hugepages or numa'),
    ({'cpu': '0-1'}, "profile.cpu: '0-1' is not a mapping"),
    ({'numa': {'topology_policy': 'single-numa-node'}},
     'profile.numa.topology_policy: single-numa-node needs profile.cpu (the memory manager Static and the static '
     'CPU manager need reserved CPUs)'),
    ({'numa': {'topology_policy': 'strict'}},
     "profile.numa.topology_policy: 'strict'; allowed: none, best-effort, restricted, single-numa-node"),
    ({'hugepages': {'pages': [{'size': '1G', 'count': 200, 'node': 0}]}},
     'profile.hugepages.pages: 214748364800 bytes of huge pages on NUMA node 0, which has 135828340736 bytes '
     '(MemTotal of /sys/devices/system/node/node0/meminfo); lower the counts of NUMA node 0 below its memory (at most '
     '64767 2M pages or 126 1G pages)'),
    ({'hugepages': {'pages': [{'size': '2M', 'count': 1, 'node': 2}]}},
     'profile.hugepages.pages[0].node: 2 is not a NUMA node of this node; allowed: 0, 1'),
    ({'hugepages': {'pages': [{'size': '2Mi', 'count': 1, 'node': 0}]}},
     "profile.hugepages.pages[0].size: '2Mi' is not a huge page size; allowed: 2M, 1G"),
    ({'hugepages': {'pages': [{'size': '2M', 'count': -1}]}},
     'profile.hugepages.pages[0].count: -1 is not a number of pages (0, 1, ...)'),
    ({'hugepages': {'pages': [{'size': '2M', 'count': True}]}},
     'profile.hugepages.pages[0].count: True is not a number of pages (0, 1, ...)'),
    ({'hugepages': {'pages': [{'size': '2M', 'count': 1, 'node': 0}, {'size': '2M', 'count': 2, 'node': 0}]}},
     'profile.hugepages.pages[1]: size 2M on NUMA node 0 is given twice (also pages[0]); give one count per size '
     'and node'),
    ({'hugepages': {'pages': [{'size': '1G', 'count': 1}, {'size': '1G', 'count': 2, 'node': 0}]}},
     'profile.hugepages.pages[0]: 1G pages without a node and 1G pages on named NUMA nodes; give every 1G entry a '
     'node, or one entry without a node'),
    ({'hugepages': {'default_size': '4M'}}, "profile.hugepages.default_size: '4M' is not a huge page size; allowed: "
                                            "2M, 1G"),
    ({'hugepages': {'pages': {'size': '2M'}}},
     "profile.hugepages.pages: {'size': '2M'} is not a list of {size, count, node}"),
])
def test_refusals_name_field_value_and_what_is_allowed(xeon, profile, message):
    assert message in refused(profile, xeon)


def test_page_size_the_node_does_not_offer(one):
    assert refused({'hugepages': {'pages': [{'size': '1G', 'count': 1, 'node': 0}]}}, one) == [
        'profile.hugepages.pages[0].size: NUMA node 0 offers no 1G pages '
        '(/sys/devices/system/node/node0/hugepages/hugepages-1048576kB is missing); sizes it offers: 2Mi']


def test_huge_pages_as_large_as_the_node_are_refused(one):
    # 4096 pages of 2M are all 8 GiB of the node
    errors = refused({'hugepages': {'pages': [{'size': '2M', 'count': 4096, 'node': 0}]}}, one)
    assert errors == ['profile.hugepages.pages: 8589934592 bytes of huge pages on NUMA node 0, which has 8589934592 '
                      'bytes (MemTotal of /sys/devices/system/node/node0/meminfo); lower the counts of NUMA node 0 '
                      'below its memory (at most 4095 2M pages or 7 1G pages)']


def test_every_refusal_at_once(xeon):
    errors = refused({'cpu': {'reserved': '0,200'}, 'hugepages': {'pages': [{'size': '3M', 'count': 1}]},
                      'realtime': True}, xeon)
    assert len(errors) == 3


def test_unknown_topology_is_refused():
    assert refused({'cpu': {'reserved': '0'}}, {'online_cpus': None, 'numa_nodes': []}) == [
        "profile.cpu: the node's online CPUs are unknown (/sys/devices/system/cpu/online)"]


def test_not_a_mapping():
    assert refused(['cpu'], {}) == ["profile: ['cpu'] is not a mapping"]


def test_drift_of_pages_without_a_node_is_the_sum_over_the_nodes(xeon):
    # 1024 2M pages on each of the two NUMA nodes of the Xeon tree
    pages = perfprofile.derive({'hugepages': {'pages': [{'size': '2M', 'count': 2048}]}}, xeon)['hugepages']
    assert perfprofile.hugepages_drift(pages, xeon) == []
    pages[0]['count'] = 512
    assert perfprofile.hugepages_drift(pages, xeon) == [{'node': None, 'size': '2M', 'wanted': 512,
                                                         'allocated': 2048}]


def test_two_sizes_at_boot_are_pairs_in_order(xeon):
    # kernel_cmdline merges them as pairs keyed by size, so both sizes may be reserved at boot
    derived = perfprofile.derive({'hugepages': {'pages': [{'size': '2M', 'count': 512},
                                                          {'size': '1G', 'count': 2, 'node': 0}]}}, xeon)
    assert derived['kernel_args'] == ['hugepagesz=2M', 'hugepages=512', 'hugepagesz=1G', 'hugepages=0:2']


OURS = ['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=0:4']


@pytest.mark.parametrize('running', [
    'ro quiet',                                           # nothing of the node's own
    'ro hugepagesz=1G hugepages=0:4 quiet',               # the profile's already
    'ro default_hugepagesz=1G hugepagesz=1G hugepages=16 quiet',   # the same size, replaced in place
    # pairs of another size are kept, the 1G count replaced in place
    'ro hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=512',
    'ro hugepagesz=2M hugepages=16',
])
def test_running_pairs_kernel_cmdline_merges(running):
    assert perfprofile.running_pairs_error(OURS, running.split()) is None


@pytest.mark.parametrize('running, theirs, why', [
    # a count of the default size would become a count of 1G pages
    ('ro hugepages=16 quiet', 'hugepages=16', "the node has 'hugepages=16': a hugepages= of the default size"),
    # the default size changes under the node's count of it
    ('ro default_hugepagesz=2M hugepages=512', 'default_hugepagesz=2M hugepages=512',
     'the count of the default size 2M'),
])
def test_running_pairs_kernel_cmdline_would_refuse_are_refused(running, theirs, why):
    error = perfprofile.running_pairs_error(OURS, running.split(), '/proc/cmdline')
    assert error.startswith("/proc/cmdline: the node booted with %s, and kernel_cmdline would refuse the profile's "
                            "default_hugepagesz=1G hugepagesz=1G hugepages=0:4: " % theirs)
    assert why in error


@pytest.mark.parametrize('running, replaced', [
    ('ro hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=512', ['hugepagesz=1G', 'hugepages=16']),
    ('ro hugepagesz=1G hugepages=0:4', []),                        # the profile's count already
    ('ro hugepagesz=2M hugepages=512', []),                        # another size: kept, not replaced
    ('ro hugepagesz=1G quiet', ['hugepagesz=1G']),                 # the size without a count gets one
])
def test_replaced_pairs_name_the_node_pairs_whose_count_changes(running, replaced):
    assert perfprofile.replaced_pairs(running.split(), OURS) == replaced
