# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Koordinator's QoS class of a pod, in one place: the memory-QoS flavour (memqos_flavours/koordinator.py) and the
NUMA placement view (numa.py, the report and the textfile) read it from here.

From the Koordinator sources (github.com/koordinator-sh/koordinator): apis/extension/qos.go (the classes,
GetPodQoSClassByName) and apis/extension/qos_utils.go (GetPodQoSClassRaw, GetPodQoSClassWithDefault,
GetPodQoSClassWithKubeQoS).

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

LABEL_QOS = 'koordinator.sh/qosClass'
# apis/extension/qos.go: QoSLSE, QoSLSR, QoSLS, QoSBE, QoSSystem
CLASSES = ('SYSTEM', 'LSE', 'LSR', 'LS', 'BE')
# apis/extension/qos_utils.go, GetPodQoSClassWithKubeQoS: the class of a pod without (a known) label.
KUBE_QOS_CLASS = {'Guaranteed': 'LSR', 'Burstable': 'LS', 'BestEffort': 'BE'}


def class_of(labels, kube_qos):
    """``(class, from_label)`` from a pod's labels and its Kubernetes QoS class (``Guaranteed``, ``Burstable``,
    ``BestEffort``; None when unknown): the label's value when it is one of :data:`CLASSES`
    (GetPodQoSClassRaw, GetPodQoSClassByName: any other value is no class), else the class of the Kubernetes QoS
    class (GetPodQoSClassWithDefault, GetPodQoSClassWithKubeQoS), else None."""
    value = (labels or {}).get(LABEL_QOS)
    if value in CLASSES:
        return value, True
    return KUBE_QOS_CLASS.get(kube_qos), False


def pod_class(pod):
    """``(class, from_label)`` of an API pod: :func:`class_of` its labels and its ``status.qosClass``."""
    labels = ((pod or {}).get('metadata') or {}).get('labels') or {}
    return class_of(labels, ((pod or {}).get('status') or {}).get('qosClass'))
