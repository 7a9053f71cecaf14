# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""reserved_system_cpus / reserved_memory: auto, derived from the recorded trees."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import numa, reservations
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import SANDBOX, facts_of

MIB = 1024 ** 2
GIB = 1024 ** 3


@pytest.fixture(scope='module')
def xeon():
    return facts_of('xeon8358-2s')


@pytest.fixture(scope='module')
def tx2():
    return facts_of('thunderx2-2s')


@pytest.mark.parametrize('cores, placement, expected', [
    (1, 'numa0', '0,64'),                 # a whole core: CPU 0 and its SMT sibling 64
    (2, 'numa0', '0-1,64-65'),
    (1, 'spread', '0,64'),                # fewer cores than NUMA nodes: node 0 first
    (2, 'spread', '0,32,64,96'),          # one core per NUMA node
    (3, 'spread', '0-1,32,64-65,96'),     # round and round, lowest cores first
    (32, 'numa0', '0-31,64-95'),          # all of NUMA node 0
])
def test_whole_cores_on_smt_xeon(xeon, cores, placement, expected):
    cpus, detail = reservations.derive_cpus(xeon, cores, placement)
    assert cpus == expected
    assert len(detail) == cores and all(len(item['cpus'].split(',')) == 2 for item in detail)


def test_no_smt_thunderx2(tx2):
    assert reservations.derive_cpus(tx2, 2, 'spread')[0] == '0,28'
    assert reservations.derive_cpus(tx2, 3, 'numa0')[0] == '0-2'


def test_8_numa_spread():
    facts = facts_of('synthetic-8numa')
    cpus, detail = reservations.derive_cpus(facts, 8, 'spread')
    assert [item['numa_node'] for item in detail] == list(range(8))
    assert cpus == '0,12,24,36,48,60,72,84,96,108,120,132,144,156,168,180'


def test_refusals_name_both_numbers(xeon, tx2):
    with pytest.raises(reservations.ReservationError) as err:
        reservations.derive_cpus(xeon, 33, 'numa0')
    assert 'reserved_cores=33 whole cores on NUMA node 0, which has 32 cores (64 CPUs: 0-31,64-95)' in str(err.value)
    with pytest.raises(reservations.ReservationError) as err:
        reservations.derive_cpus(tx2, 57, 'spread')
    assert 'reserved_cores=57 whole cores, but the node has 56 cores (56 CPUs) on 2 NUMA nodes' in str(err.value)
    with pytest.raises(reservations.ReservationError) as err:
        reservations.derive_cpus(tx2, 56, 'spread')
    assert 'reserves every core of the node (56 cores, 56 CPUs)' in str(err.value)
    with pytest.raises(reservations.ReservationError) as err:
        reservations.derive_cpus(xeon, 0, 'middle')
    assert len(err.value.errors) == 2


def test_unknown_topology_is_refused_not_guessed():
    with pytest.raises(reservations.ReservationError) as err:
        reservations.derive_cpus(numa.collect(SANDBOX), 1)
    assert 'SMT siblings of every CPU of NUMA node 0 (CPUs 0-7)' in str(err.value)
    assert 'thread_siblings_list' in str(err.value)


def test_memory_sum_rule():
    config = {'kubeReserved': {'memory': '500Mi', 'cpu': '1'}, 'systemReserved': {'memory': '1Gi'},
              'evictionHard': {'memory.available': '100Mi'}}
    total, parts = reservations.memory_sum(config)
    assert total == 1624 * MIB
    assert parts == {'kubeReserved': 500 * MIB, 'systemReserved': GIB, 'evictionHard': 100 * MIB}
    # no evictionHard at all: the kubelet's default 100Mi; evictionHard without memory.available: 0
    assert reservations.memory_sum({'kubeReserved': {'memory': '1Gi'}})[0] == GIB + 100 * MIB
    assert reservations.memory_sum({'evictionHard': {'nodefs.available': '10%'}})[0] == 0


def test_memory_percentage_of_the_node(xeon):
    total, parts = reservations.memory_sum({'evictionHard': {'memory.available': '1%'}}, xeon)
    node_total = sum(n['memory_total_bytes'] for n in xeon['numa_nodes'])
    assert parts['evictionHard'] == -(-node_total // 100) and total == parts['evictionHard']
    with pytest.raises(reservations.ReservationError):
        reservations.memory_sum({'evictionHard': {'memory.available': '1%'}}, numa.collect(SANDBOX))


def test_memory_split(xeon):
    assert reservations.derive_memory(1100 * MIB, xeon, 'numa0') == [{'numaNode': 0, 'limits': {'memory': '1100Mi'}}]
    assert reservations.derive_memory(1101 * MIB, xeon, 'even') == [
        {'numaNode': 0, 'limits': {'memory': '551Mi'}}, {'numaNode': 1, 'limits': {'memory': '550Mi'}}]
    items = reservations.derive_memory(1001, xeon, 'even')
    assert [i['limits']['memory'] for i in items] == ['501', '500']


def test_memory_refusals(xeon):
    with pytest.raises(reservations.ReservationError) as err:
        reservations.derive_memory(200 * GIB, xeon, 'numa0')
    assert ('puts 200Gi (214748364800 bytes) on NUMA node 0, which has 129536Mi (135828340736 bytes'
            in str(err.value))
    with pytest.raises(reservations.ReservationError) as err:
        reservations.derive_memory(0, xeon)
    assert 'greater than zero' in str(err.value)
    with pytest.raises(reservations.ReservationError) as err:
        reservations.derive_memory(GIB, numa.collect(SANDBOX))
    assert 'whose memory is unknown' in str(err.value)


def test_explicit_cpus_against_the_node(xeon):
    assert reservations.check_cpus_on_node('0,64', xeon) == []
    assert 'CPUs 128-129 that the node does not have online (online: 0-127, 128 CPUs)' in \
        reservations.check_cpus_on_node('0,128-129', xeon)[0]
    assert 'all 128 CPUs' in reservations.check_cpus_on_node('0-127', xeon)[0]
