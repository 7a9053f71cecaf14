# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cases Volcano's colocation controller handles, as colocation_sync sees them: for one pod and the
configurations of a cluster, the winner and the patch (None = nothing to do)."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils.colocation import (
    ANNOTATION_CONFIG as CONFIG, ANNOTATION_CONFIG_NAME as NAME, annotations_patch, choose_config)
from ansible_collections.numaops.colocation.plugins.modules.colocation_sync import apply_merge


def config(name, ts, selector, high=80, namespace='ns'):
    spec = {'memoryQos': {'highRatio': high}}
    if selector is not None:
        spec['selector'] = selector
    return {'metadata': {'name': name, 'namespace': namespace, 'creationTimestamp': ts}, 'spec': spec}


def pod(labels, annotations=None, namespace='ns'):
    return {'metadata': {'name': 'p', 'namespace': namespace, 'labels': labels, 'annotations': annotations or {}}}


def value(high):
    """The annotation as Volcano's controller writes it (zero ratios omitted, like Go's omitempty)."""
    return '{"memoryQos":{"highRatio":%d}}' % high


OLD, NEW = '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'
BATCH = {'matchLabels': {'kind': 'batch'}}
CASES = [
    # id, pod, configs, winner, patch
    ('no configs, no annotations', pod({'kind': 'batch'}), [], None, None),
    ('no match, no annotations', pod({'kind': 'web'}), [config('a', OLD, BATCH)], None, None),
    ('match', pod({'kind': 'batch'}), [config('a', OLD, BATCH)], 'a', {NAME: 'a', CONFIG: value(80)}),
    ('already up to date', pod({'kind': 'batch'}, {NAME: 'a', CONFIG: value(80)}), [config('a', OLD, BATCH)], 'a', None),
    ('up to date, other spacing and omitted zeros',
     pod({'kind': 'batch'}, {NAME: 'a', CONFIG: '{"memoryQos": {"highRatio": 80}}'}), [config('a', OLD, BATCH)], 'a', None),
    ('stale value rewritten', pod({'kind': 'batch'}, {NAME: 'a', CONFIG: value(50)}), [config('a', OLD, BATCH, 60)],
     'a', {CONFIG: value(60)}),
    ('several match, newest wins', pod({'kind': 'batch'}),
     [config('old', OLD, BATCH, 70), config('new', NEW, {}, 90)], 'new', {NAME: 'new', CONFIG: value(90)}),
    ('same timestamp, name decides', pod({'kind': 'batch'}),
     [config('b', NEW, BATCH, 70), config('a', NEW, BATCH, 90)], 'a', {NAME: 'a', CONFIG: value(90)}),
    ('newest does not match, older does', pod({'kind': 'batch'}),
     [config('old', OLD, BATCH, 70), config('new', NEW, {'matchLabels': {'kind': 'web'}}, 90)], 'old',
     {NAME: 'old', CONFIG: value(70)}),
    ('winner changed', pod({'kind': 'batch'}, {NAME: 'old', CONFIG: value(70)}),
     [config('old', OLD, BATCH, 70), config('new', NEW, BATCH, 90)], 'new', {NAME: 'new', CONFIG: value(90)}),
    ('other namespace ignored', pod({'kind': 'batch'}), [config('a', OLD, BATCH, namespace='other')], None, None),
    ('no selector matches nothing', pod({'kind': 'batch'}), [config('a', OLD, None)], None, None),
    ('reset: matched before, nothing now', pod({'kind': 'web'}, {NAME: 'a', CONFIG: value(80)}),
     [config('a', OLD, BATCH)], None, {NAME: None, CONFIG: '{}'}),
    ('reset: only the config annotation left', pod({'kind': 'web'}, {CONFIG: value(80)}), [], None, {CONFIG: '{}'}),
    ('reset: only the name annotation left', pod({'kind': 'web'}, {NAME: 'a'}), [], None, {NAME: None, CONFIG: '{}'}),
    ('already reset', pod({'kind': 'web'}, {CONFIG: '{}'}), [], None, None),
    ('reset pod matched again', pod({'kind': 'batch'}, {CONFIG: '{}'}), [config('a', OLD, BATCH)], 'a',
     {NAME: 'a', CONFIG: value(80)}),
]


@pytest.mark.parametrize('the_pod, configs, winner, patch', [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_volcano_controller_cases(the_pod, configs, winner, patch):
    chosen = choose_config(the_pod, configs)
    assert (chosen.name if chosen else None) == winner
    result = annotations_patch(the_pod, configs)
    assert (result['metadata']['annotations'] if result else None) == patch
    if result:
        # after the patch the pod is converged: a second pass changes nothing
        annotated = apply_merge(the_pod['metadata']['annotations'], result['metadata']['annotations'])
        again = dict(the_pod, metadata=dict(the_pod['metadata'], annotations=annotated))
        assert annotations_patch(again, configs) is None


def test_apply_merge_removes_null_keys():
    assert apply_merge({NAME: 'a', CONFIG: 'x', 'other': '1'}, {NAME: None, CONFIG: '{}'}) == {CONFIG: '{}', 'other': '1'}
