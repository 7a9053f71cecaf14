# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kubelet resource reservations (``systemReserved`` / ``kubeReserved``): merging what is asked into what a node
already has, and checking that the result fits the node.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import (
    QuantityError, format_bytes, parse_quantity)

RESERVATION_KEYS = ('systemReserved', 'kubeReserved')
MODES = ('merge', 'replace')


def merge_reservation(current, wanted, mode='merge'):
    """The reservation dictionary to write, and the entries of ``current`` it drops.

    ``current``: the file's dictionary (or None); ``wanted``: what is asked - a dictionary whose None values
    mean "remove this entry", or None (leave the key alone), or {} (remove the key).
    ``mode``: ``merge`` keeps every entry of ``current`` that ``wanted`` does not name; ``replace`` writes
    ``wanted`` as it is. Returns (new value or None for "leave alone" / {} for "remove the key",
    [(name, old value)] removed, sorted).
    """
    if mode not in MODES:
        raise ValueError('mode must be one of %s, not %r' % (', '.join(MODES), mode))
    if wanted is None:
        return None, []
    current = current if isinstance(current, dict) else {}
    if not wanted:
        return {}, sorted((str(k), current[k]) for k in current)
    if mode == 'replace':
        new = dict((k, v) for k, v in wanted.items() if v is not None)
    else:
        new = dict(current)
        for name, value in wanted.items():
            if value is None:
                new.pop(name, None)
            else:
                new[name] = value
    removed = sorted((str(k), current[k]) for k in current if k not in new)
    return (new if new else {}), removed


def describe_removed(key, removed):
    """'systemReserved.memory=2Gi' strings for ``removed`` entries of ``key``."""
    return ['%s.%s=%s' % (key, name, value) for name, value in removed]


def _amount(config, key, resource):
    section = config.get(key) if isinstance(config, dict) else None
    if not isinstance(section, dict) or section.get(resource) in (None, ''):
        return None
    return parse_quantity(section[resource], '%s.%s' % (key, resource))


def _cpus(value):
    return ('%g' % float(value)) if value != int(value) else str(int(value))


def check_fit(config, online_cpus, mem_total, host='', cpu_source='', mem_source=''):
    """Problems and notes of the kubelet reservations in ``config`` (a KubeletConfiguration dictionary) on a
    node with ``online_cpus`` CPUs (a count, or None when unknown) and ``mem_total`` bytes of memory (None when
    unknown).

    Refused: CPU reservations (``reservedSystemCPUs``, or ``systemReserved.cpu`` + ``kubeReserved.cpu``
    rounded up to whole CPUs, as the static CPU manager takes them) that leave no CPU to run pods, and memory
    reservations (``systemReserved.memory`` + ``kubeReserved.memory``) above MemTotal.
    A note says which CPU reservation the kubelet uses when ``reservedSystemCPUs`` and cpu amounts are both set.
    Returns (errors, notes): lists of sentences.
    """
    errors = []
    notes = []
    where = ('%s: ' % host) if host else ''
    try:
        system_cpu = _amount(config, 'systemReserved', 'cpu')
        kube_cpu = _amount(config, 'kubeReserved', 'cpu')
        system_mem = _amount(config, 'systemReserved', 'memory')
        kube_mem = _amount(config, 'kubeReserved', 'memory')
    except QuantityError as err:
        return ['%s%s' % (where, err)], []
    cpu_amount = (system_cpu or 0) + (kube_cpu or 0)
    reserved_set = config.get('reservedSystemCPUs') if isinstance(config, dict) else None
    amounts = ' + '.join('%s.cpu=%s' % (key, config[key]['cpu']) for key, value in
                         (('systemReserved', system_cpu), ('kubeReserved', kube_cpu)) if value is not None)
    if reserved_set not in (None, '') and (system_cpu is not None or kube_cpu is not None):
        notes.append('%sreservedSystemCPUs=%s and %s are both set: the kubelet reserves exactly the CPUs %s for '
                     'the system and kube daemons (the static CPU manager never gives them to pods); the cpu '
                     'amounts only lower the node allocatable CPU.' % (where, reserved_set, amounts, reserved_set))
    if online_cpus:
        source = (' (%s)' % cpu_source) if cpu_source else ''
        if reserved_set not in (None, ''):
            count = _count_cpuset(reserved_set)
            if count is not None and count >= online_cpus:
                errors.append('%sreservedSystemCPUs=%s reserves %d CPU(s), but the node has %d online CPU(s)%s: '
                              'no CPU would be left for pods. Reserve fewer CPUs. Nothing was changed.'
                              % (where, reserved_set, count, online_cpus, source))
        elif cpu_amount:
            whole = int(math.ceil(cpu_amount))
            if whole >= online_cpus:
                errors.append('%s%s reserve %s CPU(s) (the static CPU manager takes %d whole CPU(s)), but the '
                              'node has %d online CPU(s)%s: no CPU would be left for pods. Lower the cpu '
                              'reservations. Nothing was changed.'
                              % (where, amounts, _cpus(cpu_amount), whole, online_cpus, source))
    if mem_total:
        memory = (system_mem or 0) + (kube_mem or 0)
        if memory > mem_total:
            named = ' + '.join('%s.memory=%s' % (key, config[key]['memory']) for key, value in
                               (('systemReserved', system_mem), ('kubeReserved', kube_mem)) if value is not None)
            source = (' (%s)' % mem_source) if mem_source else ''
            errors.append('%s%s reserve %s of memory, more than the node has (MemTotal %s%s). Lower the memory '
                          'reservations. Nothing was changed.'
                          % (where, named, format_bytes(int(math.ceil(memory))), format_bytes(mem_total), source))
    return errors, notes


def _count_cpuset(text):
    """How many CPUs the kubelet reserves for a reservedSystemCPUs value (cpuset.parse_cpuset, the kubelet's own
    reading: a CPU named twice counts once); None when the value is not a CPU list (the kubelet rules say so)."""
    try:
        return len(parse_cpuset(str(text).strip()))
    except ValueError:
        return None
