# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The CPU and memory manager checkpoint files (``cpu_manager_state``, ``memory_manager_state``): whether the kubelet
can restore one (its checksum), and which must be removed for the kubelet to start with the new configuration."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re
from fractions import Fraction

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import (
    CPU_STATE_FILE, DEFAULT_STATE_DIR, MEMORY_STATE_FILE, effective, parse_go_bool, pretty)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.plan import normal_reserved_memory
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import QuantityError, parse_quantity


def _cpu_reservation(config):
    """What determines the reserved CPU set: an explicit set, or the count the kubelet derives."""
    explicit = config.get('reservedSystemCPUs')
    if explicit not in (None, ''):
        try:
            return ('cpus', parse_cpuset(explicit))
        except ValueError:
            return ('raw', explicit)
    total = Fraction(0)
    for key in ('systemReserved', 'kubeReserved'):
        section = config.get(key)
        if isinstance(section, dict) and section.get('cpu') is not None:
            try:
                total += parse_quantity(section['cpu'])
            except QuantityError:
                return ('raw', repr(section))
    count = -(-total.numerator // total.denominator)  # ceil, like math.Ceil(MilliValue()/1000)
    return ('count', int(count))


def _strict(config):
    options = config.get('cpuManagerPolicyOptions')
    if not isinstance(options, dict):
        return False
    try:
        return parse_go_bool(options.get('strict-cpu-reservation', 'false'))
    except ValueError:
        return False


def _describe_reservation(reservation):
    kind, value = reservation
    if kind == 'cpus':
        return 'CPUs %s' % (format_cpuset(value) or '(none)')
    if kind == 'count':
        return '%d CPU(s) chosen by the kubelet from systemReserved/kubeReserved cpu' % value
    return repr(value)


# The kubelet's checkpoint files (pkg/kubelet/checkpointmanager, cm/cpumanager/state, cm/memorymanager/state) are
# JSON with a checksum: the 32-bit FNV-1a hash of the go-spew dump (k8s.io/utils/dump.ForHash, "%#v") of the
# checkpoint struct with its checksum field set to 0, printed under the legacy struct name. Kubelets from 1.37 add a
# "data" string (the authoritative copy) with "dataChecksum", the hash of the dump of that string. A file that does
# not parse, or whose checksum does not match, makes the kubelet refuse to start ("could not restore state from
# checkpoint"), whatever the configuration.
_CPU_V2_DUMP = ('(*state.CPUManagerCheckpoint){PolicyName:(string)%s DefaultCPUSet:(string)%s '
                'Entries:(%s)%s Checksum:(checksum.Checksum)0}')
_MEMORY_V1_DUMP = ('(*state.MemoryManagerCheckpoint){PolicyName:(string)%s MachineState:(state.NUMANodeMap)%s '
                   'Entries:(state.ContainerMemoryAssignments)%s Checksum:(checksum.Checksum)0}')
_MEMORY_TABLE_FIELDS = (('TotalMemSize', 'total'), ('SystemReserved', 'systemReserved'),
                        ('Allocatable', 'allocatable'), ('Reserved', 'reserved'), ('Free', 'free'))


def fnv32a(text):
    """hash/fnv New32a over the UTF-8 bytes of ``text``."""
    value = 0x811c9dc5
    for byte in bytearray(text.encode('utf-8')):
        value = ((value ^ byte) * 0x01000193) & 0xffffffff
    return value


class _BadCheckpoint(ValueError):
    pass


def _want(value, kind, where):
    if kind == 'uint':
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 2 ** 64:
            raise _BadCheckpoint('%s is not an unsigned integer' % where)
    elif kind == 'int':
        if isinstance(value, bool) or not isinstance(value, int):
            raise _BadCheckpoint('%s is not an integer' % where)
    elif not isinstance(value, kind):
        raise _BadCheckpoint('%s has the wrong type' % where)
    return value


def _spew_map(value, item, keys=None):
    """go-spew's %#v of a map inside a struct: map[k:v k:v] (keys sorted), <nil> for null."""
    if value is None:
        return '<nil>'
    _want(value, dict, 'a map')
    ordered = sorted(value, key=keys) if keys else sorted(value)
    return 'map[%s]' % ' '.join('%s:%s' % (key, item(value[key])) for key in ordered)


def _spew_ints(value):
    if value is None:
        return '<nil>'
    _want(value, list, 'a list')
    return '[%s]' % ' '.join(str(_want(v, 'int', 'a list item')) for v in value)


def _cpu_dump(doc, nested):
    entries = doc.get('entries', {})
    if nested:
        dump = _spew_map(entries, lambda pod: _spew_map(pod, lambda cpus: _want(cpus, str, 'a CPU set')))
        kind = 'map[string]map[string]string'
    else:
        dump = _spew_map(entries, lambda cpus: _want(cpus, str, 'a CPU set'))
        kind = 'map[string]string'
    return _CPU_V2_DUMP % (doc.get('policyName', ''), _want(doc.get('defaultCpuSet', ''), str, 'defaultCpuSet'),
                           kind, dump)


def _memory_table(table):
    if table is None:
        return '<nil>'
    _want(table, dict, 'a memory table')
    return '<*>{%s}' % ' '.join('%s:(uint64)%d' % (field, _want(table.get(key, 0), 'uint', key))
                                for field, key in _MEMORY_TABLE_FIELDS)


def _numa_state(state):
    if state is None:
        return '<nil>'
    _want(state, dict, 'a NUMA node state')
    return ('<*>{NumberOfAssignments:(int)%d MemoryMap:(map[v1.ResourceName]*state.MemoryTable)%s Cells:([]int)%s}'
            % (_want(state.get('numberOfAssignments', 0), 'int', 'numberOfAssignments'),
               _spew_map(state.get('memoryMap'), _memory_table), _spew_ints(state.get('cells'))))


def _block(block):
    _want(block, dict, 'a memory block')
    return '{NUMAAffinity:([]int)%s Type:(v1.ResourceName)%s Size:(uint64)%d}' % (
        _spew_ints(block.get('numaAffinity')), _want(block.get('type', ''), str, 'type'),
        _want(block.get('size', 0), 'uint', 'size'))


def _memory_dump(doc):
    machine = doc.get('machineState', {})
    if isinstance(machine, dict):
        for key in machine:
            if not re.match(r'^-?[0-9]+$', key):
                raise _BadCheckpoint('machineState key "%s" is not a NUMA node number' % key)
    machine_dump = _spew_map(machine, _numa_state, keys=int)
    entries = _spew_map(doc.get('entries', {}), lambda pod: _spew_map(
        pod, lambda blocks: '<nil>' if blocks is None else '[%s]' % ' '.join(_block(b) for b in _want(blocks, list, 'blocks'))))
    return _MEMORY_V1_DUMP % (doc.get('policyName', ''), machine_dump, entries)


def checkpoint_problem(kind, text):
    """Why the kubelet cannot restore the checkpoint ``text`` (kind 'cpu' or 'memory'), or None when it can."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        return 'it is not JSON (%s)' % err
    if not isinstance(doc, dict):
        return 'it is not a JSON object'
    if not isinstance(doc.get('policyName'), str):
        return 'it records no policyName'
    try:
        if not isinstance(doc.get('checksum', 0), int) or isinstance(doc.get('checksum'), bool) or doc.get('checksum', 0) < 0:
            return 'its checksum %s is not an unsigned integer' % pretty(doc.get('checksum'))
        if 'data' in doc or 'dataChecksum' in doc:
            data = doc.get('data', '')
            if not isinstance(data, str):
                return 'its data is not a string'
            if fnv32a('(string)' + data) != doc.get('dataChecksum'):
                return 'the checksum of its data does not match (dataChecksum %s)' % pretty(doc.get('dataChecksum'))
            try:
                inner = json.loads(data)
            except ValueError as err:
                return 'its data is not JSON (%s)' % err
            if not isinstance(inner, dict) or not isinstance(inner.get('policyName'), str):
                return 'its data records no policyName'
            if inner['policyName'] != doc['policyName']:
                return 'its data records policy "%s" but the file "%s"' % (inner['policyName'], doc['policyName'])
            doc = dict(inner, checksum=doc.get('checksum', 0))
        elif 'podEntries' in doc:
            # Written by kubelet 1.36 (a pod-level assignment format whose checksum this module does not reproduce).
            return None
        else:
            checksum = doc.get('checksum', 0)
            if kind == 'cpu':
                if checksum != 0:
                    dumps = []
                    entries = doc.get('entries', {})
                    if isinstance(entries, dict) and all(isinstance(v, str) for v in entries.values()):
                        dumps.append(_cpu_dump(doc, False))
                    if not isinstance(entries, dict) or all(isinstance(v, dict) or v is None for v in entries.values()):
                        dumps.append(_cpu_dump(doc, True))
                    if not dumps:
                        return 'its entries are neither of the v1 nor of the v2 checkpoint format'
                    if checksum not in [fnv32a(dump) for dump in dumps]:
                        return 'its checksum %d does not match its content' % checksum
            elif fnv32a(_memory_dump(doc)) != checksum:
                return 'its checksum %d does not match its content' % checksum
        if kind == 'cpu':
            try:
                parse_cpuset(doc.get('defaultCpuSet', ''))
            except ValueError:
                return 'its default CPU set %s cannot be parsed' % pretty(doc.get('defaultCpuSet'))
            for pod, containers in (doc.get('entries') or {}).items():
                for container, cpus in (containers or {}).items() if isinstance(containers, dict) else ():
                    try:
                        parse_cpuset(cpus)
                    except ValueError:
                        return 'the CPU set %s of container "%s" in pod "%s" cannot be parsed' % (pretty(cpus), container, pod)
    except _BadCheckpoint as err:
        return 'it cannot be read as a checkpoint (%s)' % err
    return None


def checkpoint_text(kind, doc):
    """A checkpoint file's text for ``doc`` with the checksum the kubelet expects (v1/v2 format; tests use it)."""
    body = dict(doc, checksum=0)
    dump = _cpu_dump(body, not any(isinstance(v, str) for v in (body.get('entries') or {}).values())) \
        if kind == 'cpu' else _memory_dump(body)
    body['checksum'] = fnv32a(dump)
    return json.dumps(body, separators=(',', ':'))


def recorded_policy(text):
    """The policyName recorded in a checkpoint file's JSON, or None when it cannot be read."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get('policyName'), str):
        return data['policyName']
    return None


def _cpu_records(text):
    """(default CPU set, [(pod, container, CPU set)]) of a CPU manager checkpoint the kubelet can restore (v1, v2 and
    the 1.37 ``data`` format), or None when it records pod-level assignments (``podEntries``), which the kubelet
    counts only under a feature gate."""
    doc = json.loads(text)
    if 'data' in doc:
        doc = json.loads(doc['data'])
    if doc.get('podEntries'):
        return None
    assigned = []
    for key, value in sorted((doc.get('entries') or {}).items()):
        if isinstance(value, dict):
            assigned.extend((key, name, parse_cpuset(cpus)) for name, cpus in sorted(value.items()))
        elif isinstance(value, str):
            assigned.append(('', key, parse_cpuset(value)))
    return parse_cpuset(doc.get('defaultCpuSet', '')), assigned


def cpu_state_refusal(text, config, online_cpus):
    """Why the kubelet, started with ``config`` under the static CPU manager policy, refuses the CPU manager
    checkpoint ``text`` (one it can read: see checkpoint_problem), or None when it starts with it.

    The checks of the static policy's validateState (k8s.io/kubernetes pkg/kubelet/cm/cpumanager/policy_static.go,
    1.31 to 1.38): assignments beside an empty default set, reserved CPUs missing from the default set (or, with
    strict-cpu-reservation, present in it), an assignment overlapping the default set, and the CPUs the checkpoint
    records (default set and assignments) against the node's ``online_cpus`` (a set; None when unknown: that check
    is skipped). A kubelet stopped between the two writes of a container's removal leaves such a file: the entry
    gone, its CPUs not yet back in the default set."""
    records = _cpu_records(text)
    if records is None:
        return None
    default, assigned = records
    refuses = 'the kubelet would refuse to start with "%s"; it asks for the file to be removed'
    if not default:
        if assigned:
            return ('its default CPU set is empty while it records CPU assignments; ' + refuses
                    % 'default cpuset cannot be empty')
        return None
    kind, reserved = _cpu_reservation(config)
    strict = _strict(config)
    if kind == 'cpus':
        if strict and reserved & default:
            return ('the strictly reserved CPUs %s are in its default CPU set %s; ' % (
                format_cpuset(reserved & default), format_cpuset(default)) + refuses
                % 'some of strictly reserved cpus ... are present in defaultCpuSet')
        if not strict and not reserved <= default:
            return ('the reserved CPUs %s are not all in its default CPU set %s; ' % (
                format_cpuset(reserved), format_cpuset(default)) + refuses
                % 'not all reserved cpus ... are present in defaultCpuSet')
    for pod, container, cpus in assigned:
        if cpus & default:
            return ('the CPUs %s of container "%s"%s overlap its default CPU set %s; ' % (
                format_cpuset(cpus), container, ' in pod "%s"' % pod if pod else '', format_cpuset(default))
                + refuses % 'overlaps with default cpuset')
    if online_cpus is None:
        return None
    expected = frozenset(online_cpus)
    if strict:
        if kind != 'cpus':
            # which CPUs the kubelet reserves for a count is its own choice
            return None
        expected = expected - reserved
    known = frozenset(default).union(*[cpus for _pod, _container, cpus in assigned])
    if known != expected:
        return ('it records CPUs %s (default set %s%s) but the node has CPUs %s%s; ' % (
            format_cpuset(known) or '(none)', format_cpuset(default),
            ''.join(', %s: %s' % (container, format_cpuset(cpus)) for _pod, container, cpus in assigned),
            format_cpuset(expected) or '(none)', ' besides the strictly reserved ones' if strict else '')
            + refuses % "current set of available CPUs ... doesn't match with CPUs in state")
    return None


_CORRUPT = ('the %s manager checkpoint is corrupt: %s; the kubelet refuses to start with it ("could not restore '
            'state from checkpoint"), whatever the configuration')


def _state_path(base, name):
    return '%s/%s' % (base, name) if base != '/' else '/' + name


def _checkpoint_reason(kind, state, before, after, key, static, holds, static_changes):
    """Why the ``kind`` ('cpu' or 'memory') checkpoint ``state`` must go, or None: corrupt, recording another
    policy than the new configuration's, or (under the ``static`` policy) made before it or with a reservation
    that ``static_changes`` (reasons, first one wins) says has changed."""
    label = 'CPU' if kind == 'cpu' else 'memory'
    old_policy = effective(before, key)
    new_policy = effective(after, key)
    recorded = recorded_policy(state)
    problem = checkpoint_problem(kind, state)
    if problem:
        return _CORRUPT % (label, problem)
    if recorded != new_policy:
        return ('it records %s manager policy "%s" but the configuration now says "%s"; the kubelet '
                'would refuse to start with: configured policy "%s" differs from state checkpoint policy '
                '"%s"' % (label, recorded, new_policy, new_policy, recorded))
    if new_policy != static:
        return None
    if old_policy != static:
        return ('the %s manager policy changes from "%s" to "%s" and the checkpoint holds an older %s %s made '
                'with an unknown reservation' % (label, old_policy, static, static, holds))
    return next(static_changes, None)


def state_files_to_remove(before, after, cpu_state, memory_state, state_dir=DEFAULT_STATE_DIR, online_cpus=None):
    """Decide which checkpoint files must go for the kubelet to start with ``after``.

    ``cpu_state`` / ``memory_state`` are the files' text (None when absent); ``online_cpus`` the node's online CPUs
    (a set, None when unknown), against which a static CPU manager checkpoint is checked as the kubelet checks it
    (cpu_state_refusal). Returns ``(removals, warnings)`` where removals is a list of ``{'path', 'reason'}``.
    """
    removals = []
    warnings = []
    base = state_dir.rstrip('/') or '/'

    if cpu_state is not None:
        def cpu_static_changes():
            if _cpu_reservation(before) != _cpu_reservation(after):
                yield ('the reserved CPU set changes (%s -> %s); the kubelet would refuse to start with '
                       '"not all reserved cpus ... are present in defaultCpuSet"'
                       % (_describe_reservation(_cpu_reservation(before)),
                          _describe_reservation(_cpu_reservation(after))))
            if _strict(before) != _strict(after):
                yield ('strict-cpu-reservation is turned %s; the checkpoint\'s default CPU set %s the '
                       'reserved CPUs, which the kubelet refuses'
                       % ('on' if _strict(after) else 'off', 'includes' if _strict(after) else 'excludes'))
        reason = _checkpoint_reason('cpu', cpu_state, before, after, 'cpuManagerPolicy', 'static',
                                    'CPU assignment', cpu_static_changes())
        if not reason and effective(after, 'cpuManagerPolicy') == 'static':
            reason = cpu_state_refusal(cpu_state, after, online_cpus)
        if reason:
            removals.append({'path': _state_path(base, CPU_STATE_FILE), 'reason': reason})

    if memory_state is not None:
        def memory_static_changes():
            if (normal_reserved_memory(before.get('reservedMemory') or [])
                    != normal_reserved_memory(after.get('reservedMemory') or [])):
                yield ('reservedMemory changes; the kubelet would refuse to start with "the expected machine '
                       'state is different from the real one"')
        reason = _checkpoint_reason('memory', memory_state, before, after, 'memoryManagerPolicy', 'Static',
                                    'machine state', memory_static_changes())
        if reason:
            removals.append({'path': _state_path(base, MEMORY_STATE_FILE), 'reason': reason})
    return removals, warnings
