# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``reserved_system_cpus: auto`` / ``reserved_memory: auto`` for the kubelet_config action plugin.

The action takes the ``auto`` values and the options that shape them out of the task arguments before it
validates them, reads the node's NUMA facts with numaops.colocation.numa_facts once it has the current
configuration, and puts the derived values in their place (module_utils/reservations.py does the deriving).
"""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.module_utils import reservations

AUTO_OPTIONS = tuple(reservations.AUTO_ARGUMENT_SPEC)


def take_auto(args):
    """Remove the auto values and their options from ``args`` (a copy is returned) -> (args, request or None)."""
    args = dict(args)
    request = dict((name, args.pop(name)) for name in AUTO_OPTIONS if name in args and args[name] is not None)
    for name, spec in reservations.AUTO_ARGUMENT_SPEC.items():
        request.setdefault(name, spec['default'])
    cpus = args.get('reserved_system_cpus') == reservations.AUTO
    memory = args.get('reserved_memory') == reservations.AUTO
    if cpus:
        del args['reserved_system_cpus']
    if memory:
        del args['reserved_memory']
    if not (cpus or memory):
        return args, None
    request.update(cpus=cpus, memory=memory)
    return args, request


def check_request(request):
    errors = []
    cores = request['reserved_cores']
    if isinstance(cores, str) and cores.isdigit():
        request['reserved_cores'] = cores = int(cores)
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        errors.append('reserved_cores: %r is not a number of whole cores (1, 2, ...)' % (cores,))
    for name, allowed in (('reserved_cores_placement', reservations.CPU_PLACEMENTS),
                          ('reserved_memory_split', reservations.MEMORY_SPLITS)):
        if request[name] not in allowed:
            errors.append('%s: %r is not one of %s' % (name, request[name], ', '.join(allowed)))
    return errors


def derive(request, planned_config, facts):
    """-> (module parameters with the derived values, a description for the result). Raises ReservationError."""
    params = {}
    derived = {}
    errors = []
    if request['cpus']:
        try:
            cpus, cores = reservations.derive_cpus(facts, request['reserved_cores'], request['reserved_cores_placement'])
            params['reserved_system_cpus'] = cpus
            derived['reserved_system_cpus'] = {'value': cpus, 'cores': cores,
                                               'placement': request['reserved_cores_placement']}
        except reservations.ReservationError as err:
            errors.extend(err.errors)
    if request['memory']:
        try:
            total, parts = reservations.memory_sum(planned_config, facts)
            items = reservations.derive_memory(total, facts, request['reserved_memory_split'])
            params['reserved_memory'] = items
            derived['reserved_memory'] = {'value': items, 'sum_bytes': total, 'parts_bytes': parts,
                                          'split': request['reserved_memory_split']}
        except reservations.ReservationError as err:
            errors.extend(err.errors)
    if errors:
        raise reservations.ReservationError(errors)
    return params, derived
