# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A pod's colocation classes in the NUMA placement view (module_utils/pod_classes.py): Koordinator's class as
module_utils/koordinator.py decides it (apis/extension/qos_utils.go in koordinator-sh/koordinator) and Volcano's
qos-level annotation."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import koordinator, pod_classes


def pod(labels=None, annotations=None, qos=None, uid='u1'):
    obj = {'metadata': {'uid': uid, 'labels': labels or {}, 'annotations': annotations or {}}}
    if qos:
        obj['status'] = {'qosClass': qos}
    return obj


@pytest.mark.parametrize('labels, qos, cgroup_qos, expected, source', [
    ({'koordinator.sh/qosClass': 'BE'}, 'Burstable', 'Burstable', ('BE', True), 'qos_utils.go GetPodQoSClassRaw'),
    ({'koordinator.sh/qosClass': 'LSE'}, 'Guaranteed', 'Guaranteed', ('LSE', True), 'qos.go GetPodQoSClassByName'),
    ({'koordinator.sh/qosClass': 'SYSTEM'}, 'Burstable', 'Burstable', ('SYSTEM', True), 'qos.go QoSSystem'),
    ({'koordinator.sh/qosClass': 'ls'}, 'Burstable', 'Burstable', ('LS', False),
     'qos.go GetPodQoSClassByName: an unknown value is no class; GetPodQoSClassWithKubeQoS'),
    ({}, 'Guaranteed', 'Guaranteed', ('LSR', False), 'qos_utils.go GetPodQoSClassWithKubeQoS'),
    ({}, 'BestEffort', 'BestEffort', ('BE', False), 'qos_utils.go GetPodQoSClassWithKubeQoS'),
    # no status.qosClass: the QoS cgroup its containers are in
    ({}, None, 'Burstable', ('LS', False), 'qos_utils.go GetPodQoSClassWithKubeQoS, from the cgroup'),
])
def test_koordinator_class(labels, qos, cgroup_qos, expected, source):
    found = pod_classes.classes(pod(labels, qos=qos), cgroup_qos)
    assert (found['koordinator_class'], found['koordinator_class_from_label']) == expected, source
    assert koordinator.pod_class(pod(labels, qos=qos or cgroup_qos)) == expected, source


def test_volcano_level_where_present():
    assert pod_classes.classes(pod(annotations={'volcano.sh/qos-level': 'HLS'}), 'Guaranteed')['volcano_qos_level'] \
        == 'HLS'
    assert pod_classes.classes(pod(), 'Guaranteed')['volcano_qos_level'] is None
    assert pod_classes.classes(pod(annotations={'volcano.sh/qos-level': ''}), 'Burstable')['volcano_qos_level'] is None


def test_a_cgroup_whose_pod_is_not_given_has_no_class():
    assert pod_classes.classes(None, 'BestEffort') == {'koordinator_class': None,
                                                       'koordinator_class_from_label': None,
                                                       'volcano_qos_level': None}


def test_a_mirror_pod_is_found_under_the_static_pods_uid():
    mirror = pod(annotations={'kubernetes.io/config.mirror': 'static-uid'}, uid='mirror-uid')
    found = pod_classes.pods_by_uid([mirror, None], 'kubernetes.io/config.mirror')
    assert found == {'mirror-uid': mirror, 'static-uid': mirror}
