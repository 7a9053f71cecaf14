# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reservations: merge by key, and the pre-flight fit against online CPUs and MemTotal."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import reservation_merge as r

HAS = {'cpu': '1', 'memory': '2Gi', 'ephemeral-storage': '1Gi'}


def test_merge_keeps_other_entries():
    assert r.merge_reservation(HAS, {'cpu': '500m'}) == (dict(HAS, cpu='500m'), [])
    assert r.merge_reservation(None, {'cpu': '500m'}) == ({'cpu': '500m'}, [])
    assert r.merge_reservation(HAS, {'memory': None}) == ({'cpu': '1', 'ephemeral-storage': '1Gi'}, [('memory', '2Gi')])


def test_replace_names_what_it_drops():
    new, removed = r.merge_reservation(HAS, {'cpu': '500m'}, 'replace')
    assert new == {'cpu': '500m'} and removed == [('ephemeral-storage', '1Gi'), ('memory', '2Gi')]
    assert r.describe_removed('systemReserved', removed) == [
        'systemReserved.ephemeral-storage=1Gi', 'systemReserved.memory=2Gi']


def test_none_leaves_alone_and_empty_removes_the_key():
    assert r.merge_reservation(HAS, None) == (None, [])
    assert r.merge_reservation({'memory': '1Gi'}, {}) == ({}, [('memory', '1Gi')])
    with pytest.raises(ValueError):
        r.merge_reservation(HAS, {}, 'sideways')


def test_cpu_amounts_at_or_above_online_cpus_are_refused_naming_both_numbers():
    config = {'systemReserved': {'cpu': '12'}, 'kubeReserved': {'cpu': '12'}}
    errors, notes = r.check_fit(config, 16, None, host='n1', cpu_source='/sys/devices/system/cpu/online')
    assert errors == ['n1: systemReserved.cpu=12 + kubeReserved.cpu=12 reserve 24 CPU(s) (the static CPU manager '
                      'takes 24 whole CPU(s)), but the node has 16 online CPU(s) (/sys/devices/system/cpu/online): '
                      'no CPU would be left for pods. Lower the cpu reservations. Nothing was changed.']
    assert notes == []
    # 15.5 rounds up to 16 whole CPUs: refused; 15 leaves one
    assert r.check_fit({'systemReserved': {'cpu': '15500m'}}, 16, None)[0]
    assert r.check_fit({'systemReserved': {'cpu': '15'}}, 16, None) == ([], [])


def test_reserved_system_cpus_count_and_which_one_the_kubelet_uses():
    errors, notes = r.check_fit({'reservedSystemCPUs': '0-15', 'systemReserved': {'cpu': '1'}}, 16, None)
    assert errors and '0-15 reserves 16 CPU(s), but the node has 16 online CPU(s)' in errors[0]
    assert notes and 'the kubelet reserves exactly the CPUs 0-15' in notes[0]
    errors, notes = r.check_fit({'reservedSystemCPUs': '0-1', 'kubeReserved': {'cpu': '12'}}, 16, None)
    assert errors == [] and 'systemReserved' not in notes[0] and 'kubeReserved.cpu=12' in notes[0]


def test_memory_above_memtotal_is_refused_naming_both():
    config = {'systemReserved': {'memory': '10Gi'}, 'kubeReserved': {'memory': '7Gi'}}
    errors, _notes = r.check_fit(config, None, 16 * 2 ** 30)
    assert errors == ['systemReserved.memory=10Gi + kubeReserved.memory=7Gi reserve 17Gi of memory, more than the '
                      'node has (MemTotal 16Gi). Lower the memory reservations. Nothing was changed.']
    assert r.check_fit({'systemReserved': {'memory': '16Gi'}}, None, 16 * 2 ** 30) == ([], [])


def test_unknown_node_sizes_skip_and_bad_quantity_is_named():
    assert r.check_fit({'systemReserved': {'cpu': '99'}}, None, None) == ([], [])
    errors = r.check_fit({'systemReserved': {'cpu': 'lots'}}, 4, None)[0]
    assert 'systemReserved.cpu' in errors[0]


@pytest.mark.parametrize('value, online, refused', [
    ('0,0', 2, False),        # one CPU named twice: the kubelet reserves one
    ('0-1,1', 3, False),
    ('0-1,1', 2, True),
    (' 0-1 ', 2, True),       # the kubelet's value as read from YAML, surrounding blanks dropped
    ('3-1', 2, False),        # not a CPU list: the kubelet rules refuse it; the fit check counts nothing
    ('0, 1', 2, False),
    (1, 2, False),            # an integer in the YAML: CPU 1 alone
])
def test_reserved_system_cpus_are_counted_as_the_kubelet_reads_them(value, online, refused):
    errors, _notes = r.check_fit({'reservedSystemCPUs': value}, online, None)
    assert bool(errors) == refused, errors
