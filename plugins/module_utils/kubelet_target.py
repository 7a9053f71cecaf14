# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where node_prep's kubelet concern writes: the kubelet's main configuration file, or a drop-in file of its own in
the kubelet's drop-in directory (``--config-dir``), from the role's variables and what the pre-flight found; and
kubelet_config's options for it.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils.values import truthy as _truthy

# node_prep_kubelet_write_to: where the kubelet concern writes its keys
WRITE_TO = ('auto', 'main', 'dropin')
DEFAULT_DROP_IN_NAME = '90-numaops-colocation.conf'
DEFAULT_UNIT_DROP_IN_NAME = '90-numaops-config-dir.conf'
# the drop-in directory node_prep_kubelet_enable_config_dir gives a kubelet that has none (under node_prep_root)
DEFAULT_CONFIG_DIR = '/etc/kubernetes/kubelet.conf.d'


def target(write_to, given_dir, discovered_dir, enable_config_dir, drop_in_name, unit_dirs, service,
           root='', host=''):
    """Where the kubelet concern writes: the main file or a drop-in of its own, from what is asked
    (node_prep_kubelet_write_to, node_prep_kubelet_config_dir, node_prep_kubelet_enable_config_dir,
    node_prep_kubelet_drop_in_name) and the --config-dir the kubelet unit starts the kubelet with
    (``discovered_dir``, '' when none; under ``root``).

    Returns {write_to ('main' or 'dropin'), config_dir (the drop-in directory kubelet_config merges over the main
    file, in either mode; '' when the kubelet has none), drop_in_file ('' in main-file mode), unit_drop_in (''
    unless the unit drop-in that adds --config-dir is asked for), why, errors}."""
    target = {'write_to': 'main', 'config_dir': '', 'drop_in_file': '', 'unit_drop_in': '', 'why': '', 'errors': []}
    where = ('node_prep: %s: ' % host) if host else 'node_prep: '
    if write_to not in WRITE_TO:
        target['errors'].append('%snode_prep_kubelet_write_to=%r is not one of %s. Nothing was changed.'
                                % (where, write_to, ', '.join(WRITE_TO)))
        return target
    config_dir = (given_dir or discovered_dir or '').rstrip('/') or ''
    enable = _truthy(enable_config_dir)
    if write_to == 'main':
        # the drop-ins there are still merged over the main file: a key of ours that one overrides is refused
        target.update(config_dir=config_dir, why='node_prep_kubelet_write_to=main')
        if enable:
            target['errors'].append('%snode_prep_kubelet_enable_config_dir=true needs node_prep_kubelet_write_to='
                                    'dropin or auto (the drop-in directory is for the drop-in node_prep writes). '
                                    'Nothing was changed.' % where)
        return target
    if not config_dir and enable:
        config_dir = (root or '').rstrip('/') + DEFAULT_CONFIG_DIR
    if not config_dir:
        if write_to == 'auto':
            target['why'] = 'node_prep_kubelet_write_to=auto: the kubelet runs without --config-dir'
            return target
        target['errors'].append(
            '%snode_prep_kubelet_write_to=dropin: the kubelet runs without a drop-in directory (no --config-dir in '
            'its unit, its drop-ins or environment files) and node_prep_kubelet_config_dir is empty. Set '
            'node_prep_kubelet_enable_config_dir=true (kubelet 1.30 or later, node_prep_kubelet_version) to give it '
            'one, node_prep_kubelet_config_dir to the directory it reads, or node_prep_kubelet_write_to=main. '
            'Nothing was changed.' % where)
        return target
    name = drop_in_name or DEFAULT_DROP_IN_NAME
    if '/' in name or not name.endswith('.conf') or name.startswith('.'):
        target['errors'].append('%snode_prep_kubelet_drop_in_name=%r is not a file name ending in .conf (the kubelet '
                                'reads only those from its drop-in directory). Nothing was changed.' % (where, name))
        return target
    target.update(write_to='dropin', config_dir=config_dir, drop_in_file=config_dir + '/' + name)
    if enable and unit_dirs:
        unit = service if service.endswith('.service') else service + '.service'
        target['unit_drop_in'] = '%s/%s.d/%s' % (unit_dirs[0].rstrip('/'), unit, DEFAULT_UNIT_DROP_IN_NAME)
    if write_to == 'dropin':
        target['why'] = 'node_prep_kubelet_write_to=dropin'
    elif discovered_dir and not given_dir:
        target['why'] = 'node_prep_kubelet_write_to=auto: the kubelet runs with --config-dir=%s' % discovered_dir
    else:
        target['why'] = 'node_prep_kubelet_write_to=auto: node_prep_kubelet_config_dir=%s' % (
            given_dir or config_dir)
    return target


def target_options(target):
    """kubelet_config's options for where it writes, from target()'s answer ({} when there is none)."""
    if not target:
        return {}
    options = {'write_to': target['write_to']}
    if target.get('config_dir'):
        options['config_dir'] = target['config_dir']
    if target.get('drop_in_file'):
        options['drop_in_name'] = target['drop_in_file'].rsplit('/', 1)[-1]
    if target.get('unit_drop_in'):
        options['enable_config_dir'] = True
    return options
