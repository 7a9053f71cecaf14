# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep's performance profile (node_prep_perf_profile) folded into its pre-flight: what perf_profile found in
check mode on the node's topology feeds the kubelet concern (its CPU, topology and memory manager settings) and the
kernel concern (the isolation and boot-time huge page arguments, merged with node_prep_kernel_args). The profile's
own files (irqbalance, the huge pages unit) are concerns of their own (module_utils/node_prep_concerns.py).

Controller side only; standard library only.
"""
from __future__ import annotations

# the kubelet_config options the profile sets, and which role variables it replaces: those whose default is null
# must be left null or given the profile's value (a second answer to the same question is refused); the others
# (node_prep_cpu_manager_policy static, node_prep_topology_manager_policy best-effort) have a default, which the
# profile's value replaces
KUBELET_OPTIONS = ('cpu_manager_policy', 'cpu_manager_policy_options', 'reserved_system_cpus',
                   'topology_manager_policy', 'memory_manager_policy', 'reserved_memory')
EXCLUSIVE = ('cpu_manager_policy_options', 'reserved_system_cpus', 'memory_manager_policy', 'reserved_memory')
# kernel arguments that come in pairs or repeat: given by the profile or by node_prep_kernel_args, not both
HUGEPAGE_KEYS = ('hugepagesz', 'hugepages', 'default_hugepagesz')
VARIABLE = 'node_prep_perf_profile'


def _key(arg):
    return arg.split('=', 1)[0]


def merge_kernel_args(user_args, profile_args):
    """(merged, errors): node_prep_kernel_args (with the memory-sampling flags) and then the profile's arguments not
    among them. An argument both give with another value is refused, and huge pages given by both."""
    user_args = list(user_args or [])
    errors = []
    user = dict((_key(arg), arg) for arg in user_args)
    for arg in profile_args or []:
        key = _key(arg)
        if key in HUGEPAGE_KEYS:
            if any(_key(mine) in HUGEPAGE_KEYS for mine in user_args):
                errors.append('node_prep_kernel_args has %s and node_prep_perf_profile sets huge pages (%s): give '
                              'the huge pages in one of them' % (
                                  ' '.join(a for a in user_args if _key(a) in HUGEPAGE_KEYS), arg))
                break
        elif key in user and user[key] != arg:
            errors.append('node_prep_kernel_args has %s and node_prep_perf_profile gives %s: give %s in one of them'
                          % (user[key], arg, key))
    merged = user_args + [arg for arg in profile_args or [] if arg not in user_args]
    return merged, errors


def kubelet_options(profile_kubelet, variables):
    """(options, errors): the kubelet_config options of the profile, which the role gives in place of its own
    variables (``variables``: {option: value of node_prep_<option>}); a variable of EXCLUSIVE set to another
    value is refused."""
    options = dict((name, value) for name, value in (profile_kubelet or {}).items() if name in KUBELET_OPTIONS)
    errors = []
    for name in EXCLUSIVE:
        given = variables.get(name)
        if name in options and given not in (None, '', {}) and given != options[name]:
            errors.append('node_prep_%s=%s and node_prep_perf_profile gives %s: leave node_prep_%s null with a '
                          'profile' % (name, given, options[name], name))
    return options, errors


def fold(node, perf, variables, host):
    """node_preflight's result ``node`` with the profile's part: ``checks.kernel_args`` merged with the profile's,
    ``checks.profile`` ({kubelet: the options given in place of the role's, reserved_cpus, isolated_cpus,
    kernel_args, kernel_args_replacing, hugepages_drift, and whether the irqbalance and hugepages_unit concerns
    have something to plan}), the notes, and one error per problem, naming the host
    and the variable (then the plan does not run, and the pre-flight's assert names them with the others).

    ``perf``: perf_profile's result in check mode (failed: its message is the error); ``variables``: the role's
    kubelet variables (KUBELET_OPTIONS, without the node_prep_ prefix)."""
    node = dict(node or {})
    checks = dict(node.get('checks') or {})
    errors = list(checks.get('errors') or [])
    notes = list(checks.get('notes') or [])
    where = 'node_prep: %s: ' % host
    perf = perf or {}
    if perf.get('failed'):
        if perf.get('errors'):
            # the module's fields (profile.cpu.reserved, ...) named as the role's variable
            msg = '; '.join(VARIABLE + str(e)[len('profile'):] if str(e).startswith('profile') else str(e)
                            for e in perf['errors']) + '. Nothing was changed.'
        else:
            msg = str(perf.get('msg') or 'perf_profile failed')
            if msg.startswith('perf_profile: '):
                msg = msg[len('perf_profile: '):]
        errors.append('%s%s does not fit this node: %s' % (where, VARIABLE, msg))
        checks.update(errors=errors)
        node['checks'] = checks
        return node
    kernel_args, kernel_errors = merge_kernel_args(checks.get('kernel_args'), perf.get('kernel_args'))
    kubelet, kubelet_errors = kubelet_options(perf.get('kubelet'), variables or {})
    errors.extend(where + error + '. Nothing was changed.' for error in kernel_errors + kubelet_errors)
    replacing = list(perf.get('kernel_args_replacing') or [])
    if replacing:
        notes.append('node_prep_perf_profile replaces %s of the node\'s kernel command line.' % ' '.join(replacing))
    notes.extend('node_prep_perf_profile: %s.' % note.rstrip('.') for note in perf.get('notes') or [])
    checks.update(kernel_args=kernel_args, errors=errors, notes=notes, profile={
        'kubelet': kubelet, 'reserved_cpus': perf.get('reserved_cpus'), 'isolated_cpus': perf.get('isolated_cpus'),
        'kernel_args': list(perf.get('kernel_args') or []), 'kernel_args_replacing': replacing,
        'hugepages_drift': list(perf.get('hugepages_drift') or []),
        # the concerns of its own files to plan: irqbalance with isolated CPUs, the unit with pages on a NUMA node
        'irqbalance': (perf.get('irqbalance') or {}).get('banned_cpus') is not None,
        'hugepages_unit': any(page.get('node') is not None for page in perf.get('hugepages') or [])})
    node['checks'] = checks
    return node
