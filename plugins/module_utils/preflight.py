# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What node_prep's pre-flight needs to know about a node, gathered in one module call (node_preflight).

Pure functions over what was read (texts, listings, command output); the module does the reading. No Ansible
import, Python 3.8+ standard library only (this runs on the managed node).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import posixpath
import re

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet, systemd_unit

_CONTAINERD_VERSION_RE = re.compile(r'\bv?([0-9]+\.[0-9]+(\.[0-9]+)?)')


def cpu_list(text):
    """A Linux CPU or NUMA node list ("0-3,8,10-11") as a sorted list of integers (kubelet.parse_cpuset, which the
    kubelet's reservedSystemCPUs follows too); None when ``text`` is None or not such a list. Blank is []."""
    if text is None:
        return None
    try:
        return sorted(kubelet.parse_cpuset(str(text).strip()))
    except ValueError:
        return None


def containerd_version(output):
    """The version in ``containerd --version`` output ("containerd github.com/containerd/containerd v1.7.24 ..."),
    or '' when there is none."""
    match = _CONTAINERD_VERSION_RE.search(output or '')
    return match.group(1) if match else ''


def os_release(text):
    """The KEY=value pairs of /etc/os-release (quotes removed)."""
    values = {}
    for line in (text or '').splitlines():
        line = line.strip()
        if not line or line.startswith('#') or '=' not in line:
            continue
        key, value = line.split('=', 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
            value = value[1:-1]
        values[key.strip()] = value
    return values


def unit_candidates(unit_dirs, service):
    """The directories to list for the kubelet unit and its drop-ins: each unit directory and its
    ``<service>.service.d``, in priority order."""
    name = systemd_unit.unit_name(service)
    return list(unit_dirs) + [posixpath.join(directory, name + '.d') for directory in unit_dirs]


def unit_files(listing, unit_dirs, service):
    """Of ``listing`` ({directory: [names]}), the files to read: the unit file and the drop-ins systemd uses for
    ``service`` (systemd_unit.unit_sources), sorted."""
    paths = [posixpath.join(directory, entry) for directory in sorted(listing) for entry in listing[directory]]
    unit, drop_ins = systemd_unit.unit_sources(paths, list(unit_dirs), service)
    return sorted(([unit] if unit else []) + drop_ins)


def choose_kubelet_config(given, unit_texts, env_texts, unit_dirs, service, root, existing_candidates):
    """The kubelet configuration file node_prep edits, and why that one.

    ``given``: node_prep_kubelet_config_path ('' when not set); ``unit_texts``/``env_texts``: {path: text} of the
    unit files, drop-ins and environment files read; ``existing_candidates``: the kubeadm/kubespray default
    locations that exist, in order. Returns {path, source, unit, drop_ins}.
    """
    if given:
        return {'path': given, 'source': 'node_prep_kubelet_config_path', 'unit': None, 'drop_ins': []}
    texts = dict(unit_texts)
    texts.update(env_texts)
    found = systemd_unit.kubelet_config_path(texts, list(unit_dirs), service, dict(env_texts), root)
    if found['config']:
        return {'path': (root or '') + found['config'],
                'source': 'the effective ExecStart of %s (--config)' % ', '.join([found['unit']] + found['drop_ins']),
                'unit': found['unit'], 'drop_ins': found['drop_ins']}
    if existing_candidates:
        return {'path': existing_candidates[0], 'source': 'the kubeadm/kubespray default location',
                'unit': found['unit'], 'drop_ins': found['drop_ins']}
    return {'path': '', 'source': 'nowhere', 'unit': found['unit'], 'drop_ins': found['drop_ins']}


def cgroup_controllers(text):
    """The controllers listed in cgroup.controllers, or None when the file could not be read (``text`` None)."""
    return None if text is None else text.split()
