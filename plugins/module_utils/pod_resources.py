# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a pod requests, every resource, as Kubernetes adds its containers up: one aggregation for every user.

k8s.io/component-helpers resource/helpers.go (Kubernetes 1.32 and later; pkg/api/v1/resource/helpers.go in 1.31,
the same rule without pod-level resources), ``PodRequests`` and ``aggregateContainerResourcesByFn``:

* the app containers (``spec.containers``) are summed;
* a restartable init container (``restartPolicy: Always``, a sidecar; feature gate SidecarContainers, on by
  default since 1.29, GA 1.33) runs beside them: it adds to that sum;
* any other init container runs alone, beside the sidecars started before it: it needs itself plus them;
* per resource the pod needs the larger of the sum and each init container's need;
* pod-level requests (``spec.resources.requests``, feature gate PodLevelResources: alpha 1.32, beta and on by
  default since 1.34) replace that for the resources they name that are supported at pod level (cpu, memory,
  ``hugepages-*``); an API server with the gate off drops the field, so a pod that has it was admitted with it;
* ``spec.overhead`` is added (PodRequests without ``ExcludeOverhead``).

The kubelet's hint providers add containers up the same way for the topology manager's ``pod`` scope (the CPU
manager's ``podGuaranteedCPUs``, the memory manager's ``getPodRequestedResources``), each with its own view of
one container and without the overhead: :func:`aggregate` is that rule for any view of a container.

A quantity that is not one (or is negative) is handed to the caller's ``bad`` callback as
``bad(field, value, error)`` (``error`` a :class:`QuantityError`, or None for a negative value); the callback
raises to refuse the pod, or returns to leave the value out. :func:`describe` words it.
The resource status of a running pod (in-place resize: ``UseStatusResources``) is not read: the spec only.

Runs on managed nodes: Python 3.8+, standard library only.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils.quantity import QuantityError, parse_quantity

POD_LEVEL_RESOURCES = ('cpu', 'memory')
HUGEPAGES_PREFIX = 'hugepages-'


def describe(field, value, error, allowed='a non-negative quantity'):
    """The message of a bad quantity: the parser's (naming field and value), or that it is negative."""
    if error is not None:
        return str(error)
    return '%s is %r; allowed: %s' % (field, value, allowed)


def skip(field, value, error):
    """The ``bad`` policy that leaves a bad quantity out."""
    return None


def is_hugepages(name):
    """A huge pages resource (``hugepages-<size>``: IsHugePageResourceName)."""
    return str(name).startswith(HUGEPAGES_PREFIX)


def is_pod_level_resource(name):
    """IsSupportedPodLevelResource: cpu, memory and huge pages may be set at pod level."""
    return name in POD_LEVEL_RESOURCES or is_hugepages(name)


def pod_level_set(pod):
    """IsPodLevelResourcesSet: spec.resources requests or limits name a resource supported at pod level."""
    resources = (((pod or {}).get('spec') or {}).get('resources')) or {}
    if not isinstance(resources, dict):
        return False
    return any(isinstance(part, dict) and any(is_pod_level_resource(name) for name in part)
               for part in (resources.get('requests'), resources.get('limits')))


def resource_list(values, where, names=None, bad=skip):
    """{name: Fraction} of a ResourceList (``where`` names it: ``spec.overhead``); absent and null values are
    left out, ``names`` (None: all) limits what is read, a bad quantity goes to ``bad``."""
    out = {}
    if values is None:
        return out
    if not isinstance(values, dict):
        bad(where, values, QuantityError('%s is %r; allowed: a mapping of resource names to quantities'
                                         % (where, values)))
        return out
    for name, value in values.items():
        name = str(name)
        if value is None or (names is not None and name not in names):
            continue
        field = '%s[%s]' % (where, name)
        try:
            number = parse_quantity(value, field)
        except QuantityError as exc:
            bad(field, value, exc)
            continue
        if number < 0:
            bad(field, value, None)
            continue
        out[name] = number
    return out


def requirements(resources, where, names=None, bad=skip, limits_default=False):
    """The requests of a ResourceRequirements (``where``: ``spec.containers[0].resources``). ``limits_default``:
    a resource with a limit and no request requests its limit, as the API server's defaulting makes it (a pod
    read from the API already has it; a pod written by hand may not)."""
    if resources is None:
        return {}
    if not isinstance(resources, dict):
        bad(where, resources, QuantityError('%s is %r; allowed: a mapping with requests and limits'
                                            % (where, resources)))
        return {}
    requests = resources.get('requests')
    out = resource_list(requests, where + '.requests', names, bad)
    limits = resources.get('limits')
    if limits_default and isinstance(limits, dict):
        given = requests if isinstance(requests, dict) else {}
        defaults = dict((name, value) for name, value in limits.items() if given.get(name) is None)
        out.update(resource_list(defaults, where + '.limits', names, bad))
    return out


def add(total, more):
    for name, value in more.items():
        total[name] = total.get(name, 0) + value
    return total


def _containers(spec, kind):
    items = spec.get(kind) or []
    return [(index, item) for index, item in enumerate(items) if isinstance(item, dict)] \
        if isinstance(items, list) else []


def aggregate(pod, view, app_resources_only=False):
    """aggregateContainerResourcesByFn over ``view(container, where)`` -> {name: number}: the app containers'
    sum plus the sidecars, at least each other init container plus the sidecars before it.
    ``app_resources_only``: only the resources an app container has (the memory manager's
    getPodRequestedResources iterates over those)."""
    spec = (pod or {}).get('spec') or {}
    total = {}
    for index, container in _containers(spec, 'containers'):
        add(total, view(container, 'spec.containers[%d]' % index))
    app_names = set(total)
    sidecars = {}
    init_need = {}
    for index, container in _containers(spec, 'initContainers'):
        own = view(container, 'spec.initContainers[%d]' % index)
        if container.get('restartPolicy') == 'Always':
            add(total, own)
            add(sidecars, own)
            need = sidecars
        else:
            need = add(dict(sidecars), own)
        for name, value in need.items():
            init_need[name] = max(init_need.get(name, 0), value)
    for name, value in init_need.items():
        total[name] = max(total.get(name, 0), value)
    if app_resources_only:
        total = dict((name, value) for name, value in total.items() if name in app_names)
    return total


def pod_requests(pod, names=None, bad=skip, overhead=True, pod_level=True, limits_default=False):
    """{resource: Fraction} the pod requests (PodRequests): the containers' aggregate, pod-level requests in its
    place for the resources they set, plus ``spec.overhead`` (``overhead=False``: ExcludeOverhead;
    ``pod_level=False``: SkipPodLevelResources). ``names`` (None: every resource) limits what is read."""
    spec = (pod or {}).get('spec') or {}

    def view(container, where):
        return requirements(container.get('resources'), where + '.resources', names, bad, limits_default)

    total = aggregate(pod, view)
    if pod_level:
        resources = spec.get('resources')
        if resources is not None:
            level = requirements(resources, 'spec.resources', names, bad, limits_default)
            for name, value in level.items():
                if is_pod_level_resource(name):
                    total[name] = value
    if overhead:
        add(total, resource_list(spec.get('overhead'), 'spec.overhead', names, bad))
    return total
