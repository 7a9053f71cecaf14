# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The colocation classes of a pod, as the NUMA placement view names them beside its Kubernetes QoS class:
Koordinator's QoS class (module_utils/koordinator.py) and Volcano's qos-level (memqos_flavours/volcano.py).

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils import koordinator
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours.volcano import QOS_LEVEL_ANNOTATION

KEYS = ('koordinator_class', 'koordinator_class_from_label', 'volcano_qos_level')


def pods_by_uid(pods, mirror_annotation):
    """{kubelet pod UID: API pod}: each pod under its metadata.uid, a mirror pod also under the static pod's UID
    (its ``mirror_annotation``), as the kubelet names the pod's cgroup."""
    found = {}
    for pod in pods or []:
        meta = (pod or {}).get('metadata') or {}
        for uid in (meta.get('uid'), (meta.get('annotations') or {}).get(mirror_annotation)):
            if uid:
                found[uid] = pod
    return found


def classes(pod, kube_qos):
    """{koordinator_class, koordinator_class_from_label, volcano_qos_level} of an API ``pod``.

    koordinator_class: koordinator.class_of its labels and its status.qosClass, or ``kube_qos`` (the QoS cgroup
    its containers are in) when the pod has no status.qosClass; volcano_qos_level: its ``volcano.sh/qos-level``
    annotation, None without one. All None when ``pod`` is None (a cgroup whose pod the pods given do not have)."""
    if pod is None:
        return dict((key, None) for key in KEYS)
    meta = pod.get('metadata') or {}
    klass, from_label = koordinator.class_of(meta.get('labels') or {},
                                             (pod.get('status') or {}).get('qosClass') or kube_qos)
    level = (meta.get('annotations') or {}).get(QOS_LEVEL_ANNOTATION)
    return {'koordinator_class': klass, 'koordinator_class_from_label': from_label,
            'volcano_qos_level': level if isinstance(level, str) and level else None}
