# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's CPU, topology and memory manager settings, as plain Python.

Used by the ``numaops.colocation.kubelet_config`` action plugin (the YAML text itself is edited in
``plugins/plugin_utils/kubelet_yaml.py``). Everything here works on plain values (dicts, lists,
strings) and is standard library only, Python 3.8+. One job per module:

* ``options``: the module's options, one table for the argument spec and the values requested of the file;
* ``releases`` (with the generated ``release_data``): feature gates, policy options and their maturity per
  kubelet release;
* ``rules``: what the kubelet refuses, as a list of small named rules (configuration validation of
  ``apis/config/validation``, what ``cm/cpumanager``, ``cm/memorymanager`` and ``cm/topologymanager`` refuse at
  start-up, the feature gates of the release the caller names); ``validate()`` runs them;
* ``plan``: the new configuration and the keys whose meaning changes;
* ``checkpoints``: when the CPU and memory manager checkpoint files (``cpu_manager_state``,
  ``memory_manager_state``) would make the kubelet refuse to start after the change, so that they must go.

This module names what callers use, so that ``from ...module_utils import kubelet`` keeps one entry point.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

# CPU lists live in cpuset.py (the node's pre-flight needs them without the kubelet rules); named here as well
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_cpuset  # noqa: F401
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import (  # noqa: F401
    API_VERSION, CPU_POLICIES, CPU_STATE_FILE, DEFAULT_EVICTION_MEMORY, DEFAULT_PATH, DEFAULT_STATE_DIR, DEFAULTS,
    IGNORED_EVICTION_PERCENTAGES, KIND, MEMORY_POLICIES, MEMORY_STATE_FILE, MIN_MAX_ALLOWABLE_NUMA_NODES, REMOVE,
    RESERVABLE, TOPOLOGY_POLICIES, TOPOLOGY_SCOPES, KubeletConfigError, near_names, parse_duration, parse_go_bool)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.options import (  # noqa: F401
    ARGUMENT_SPEC, MANAGED_KEYS, OPTION_FOR_KEY, OPTION_KEYS, OPTIONS, empty_string_errors, plain_value,
    requested_values)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.releases import (  # noqa: F401
    FEATURE_GATES, NEWEST_KNOWN_MINOR, OLDEST_KNOWN_MINOR, RELEASES, gate_default, gate_history, gate_spec,
    parse_kubelet_version, table_minor)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.releases import (  # noqa: F401
    CPU_MANAGER_OPTIONS as CPU_OPTIONS, TOPOLOGY_MANAGER_OPTIONS as TOPOLOGY_OPTIONS)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.check import eviction_memory  # noqa: F401
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.rules import (  # noqa: F401
    CPU_OPTION_CONFLICTS, RULE_NAMES, RULES, validate)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.plan import (  # noqa: F401
    check_document, managed_view, nested_value_equal, plan_values, value_equal)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.checkpoints import (  # noqa: F401
    checkpoint_problem, checkpoint_text, cpu_state_refusal, fnv32a, recorded_policy, state_files_to_remove)
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import (  # noqa: F401
    online_cpus_path, parse_online_cpus)

# The name reservations.py has used for eviction_memory.
_eviction_memory = eviction_memory
