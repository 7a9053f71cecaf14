# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pod-resources v1 decoder: every message and field, both encodings of repeated integers, unknown fields
skipped, and hostile bytes refused with a message naming the message, the field and the offset."""
from __future__ import annotations

import random

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import podresources_proto as proto
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils import podresources_wire as wire

GIB = 1024 ** 3


def test_an_empty_answer_is_every_field_at_its_default():
    assert proto.decode(proto.LIST_RESPONSE, b'') == {'pod_resources': []}
    assert proto.decode(proto.ALLOCATABLE_RESPONSE, b'') == {'devices': [], 'cpu_ids': [], 'memory': []}
    assert proto.decode(proto.CONTAINER_MEMORY, b'') == {'memory_type': '', 'size': 0, 'topology': None}


def test_a_list_answer_decodes_every_field():
    data = wire.list_response([
        wire.pod('api-0', 'online', [
            wire.container('api', cpus=[3, 1, 2], blocks=[('memory', GIB, [1]), ('hugepages-2Mi', 4 << 20, [1])],
                           devs=[('example.com/nic', ['vf0', 'vf1'], [1])]),
            wire.container('sidecar')]),
        wire.pod('batch', 'offline', cpus=[4, 5], blocks=[('memory', 2 * GIB, [0, 1])]),
    ])
    answer = proto.decode(proto.LIST_RESPONSE, data)
    api, batch = answer['pod_resources']
    assert (api['name'], api['namespace'], api['cpu_ids'], api['memory']) == ('api-0', 'online', [], [])
    first, second = api['containers']
    assert first['name'] == 'api' and first['cpu_ids'] == [3, 1, 2]
    assert first['memory'] == [
        {'memory_type': 'memory', 'size': GIB, 'topology': {'nodes': [{'id': 1}]}},
        {'memory_type': 'hugepages-2Mi', 'size': 4 << 20, 'topology': {'nodes': [{'id': 1}]}}]
    assert first['devices'] == [{'resource_name': 'example.com/nic', 'device_ids': ['vf0', 'vf1'],
                                 'topology': {'nodes': [{'id': 1}]}}]
    assert second == {'name': 'sidecar', 'devices': [], 'cpu_ids': [], 'memory': []}
    assert batch['containers'] == [] and batch['cpu_ids'] == [4, 5]
    assert proto.numa_ids(batch['memory'][0]['topology']) == [0, 1]


def test_an_allocatable_answer_decodes_every_field():
    data = wire.allocatable_response(cpus=range(1, 64), blocks=[('memory', 30 * GIB, [0]), ('memory', 31 * GIB, [1])],
                                     devs=[('example.com/gpu', ['gpu0'], [0])])
    answer = proto.decode(proto.ALLOCATABLE_RESPONSE, data)
    assert answer['cpu_ids'] == list(range(1, 64))
    assert [(m['size'], proto.numa_ids(m['topology'])) for m in answer['memory']] == [(30 * GIB, [0]), (31 * GIB, [1])]
    assert answer['devices'][0]['device_ids'] == ['gpu0']


def test_repeated_integers_unpacked_and_packed_add_up():
    data = wire.uint(3, 7) + wire.packed(3, [8, 9]) + wire.uint(3, 300)
    assert proto.decode(proto.CONTAINER_RESOURCES, data)['cpu_ids'] == [7, 8, 9, 300]


def test_int64_is_twos_complement_and_uint64_is_not():
    assert proto.decode(proto.NUMA_NODE, wire.uint(1, -1)) == {'id': -1}
    assert proto.decode(proto.CONTAINER_MEMORY, wire.uint(2, (1 << 64) - 1))['size'] == (1 << 64) - 1


def test_unknown_fields_of_every_wire_type_are_skipped():
    # fields a newer kubelet might add (dynamic_resources is 5 of ContainerResources) in every proto3 wire type
    extra = (wire.length(5, wire.length(2, 'claim')) + wire.uint(6, 1) + wire.key(7, 1) + b'\0' * 8
             + wire.key(8, 5) + b'\0' * 4)
    answer = proto.decode(proto.CONTAINER_RESOURCES, wire.length(1, 'c') + extra + wire.packed(3, [2]))
    assert answer == {'name': 'c', 'devices': [], 'cpu_ids': [2], 'memory': []}


def test_the_last_scalar_wins_and_a_message_given_twice_is_merged():
    data = (wire.length(1, 'old') + wire.length(1, 'new') + wire.length(3, wire.topology([0]))
            + wire.length(3, wire.topology([1])))
    answer = proto.decode(proto.CONTAINER_MEMORY, data)
    assert answer['memory_type'] == 'new'
    assert proto.numa_ids(answer['topology']) == [0, 1]


def test_strings_are_utf8():
    assert proto.decode(proto.POD_RESOURCES, wire.length(1, 'pod-\u00e9'))['name'] == 'pod-\u00e9'


@pytest.mark.parametrize('data, message, words', [
    (b'\x80', proto.LIST_RESPONSE, 'truncated varint at byte 0'),
    (b'\x08', proto.NUMA_NODE, 'truncated varint at byte 1'),
    (b'\x08' + b'\xff' * 10 + b'\x01', proto.NUMA_NODE, 'longer than 10 bytes'),
    (b'\x08' + b'\xff' * 9 + b'\x7f', proto.NUMA_NODE, 'does not fit in 64 bits'),
    (b'\x0a\x05abc', proto.POD_RESOURCES, 'field 1 at byte 0 claims 5 bytes, 3 left'),
    (b'\x0a' + wire.varint((1 << 63) - 1), proto.POD_RESOURCES, 'claims 9223372036854775807 bytes, 0 left'),
    (b'\x0a\xff\xff\xff\xff\x0f', proto.LIST_RESPONSE, 'claims 4294967295 bytes'),
    (b'\x00\x00', proto.LIST_RESPONSE, 'field number 0 at byte 0'),
    (b'\x0b', proto.LIST_RESPONSE, 'wire type 3 (start-group)'),
    (b'\x0c', proto.LIST_RESPONSE, 'wire type 4 (end-group)'),
    (b'\x0e', proto.LIST_RESPONSE, 'wire type 6 (unassigned)'),
    (b'\x0f', proto.LIST_RESPONSE, 'wire type 7 (unassigned)'),
    (b'\x09abc', proto.LIST_RESPONSE, 'field 1 at byte 0 needs 8 bytes, 3 left'),
    (b'\x0d\x00', proto.LIST_RESPONSE, 'needs 4 bytes, 1 left'),
    (b'\x08\x01', proto.LIST_RESPONSE, 'ListPodResourcesResponse.pod_resources (field 1 at byte 0) has wire type 0'),
    (b'\x08\x01', proto.POD_RESOURCES, 'PodResources.name (field 1 at byte 0) has wire type 0 (varint); a string'),
    (b'\x1d\x00\x00\x00\x00', proto.CONTAINER_RESOURCES, 'cpu_ids (field 3 at byte 0) has wire type 5 (32-bit)'),
    (b'\x19' + b'\0' * 8, proto.CONTAINER_RESOURCES, 'has wire type 1 (64-bit); an int64'),
    (b'\x12\x01\x05', proto.CONTAINER_MEMORY, 'ContainerMemory.size (field 2 at byte 0) is length-delimited'),
    (b'\x1a\x02\x80\x80', proto.CONTAINER_RESOURCES, 'cpu_ids (field 3 at byte 0) (packed): truncated varint'),
    (b'\x0a\x02\xc3\x28', proto.POD_RESOURCES, 'PodResources.name (field 1 at byte 0) is not UTF-8'),
])
def test_hostile_bytes_are_refused_naming_message_field_and_offset(data, message, words):
    with pytest.raises(proto.DecodeError) as err:
        proto.decode(message, data)
    assert words in str(err.value)


def test_an_error_deep_inside_names_the_path_to_it():
    inner = wire.length(1, wire.length(3, wire.length(4, wire.length(3, b'\x0a\x01'))))
    with pytest.raises(proto.DecodeError) as err:
        proto.decode(proto.LIST_RESPONSE, inner)
    assert str(err.value).startswith(
        'ListPodResourcesResponse.pod_resources.containers.memory.topology: field 1 at byte 0 claims 1 bytes, 0 left')


def test_not_bytes_is_refused():
    with pytest.raises(proto.DecodeError, match='expected bytes, got str'):
        proto.decode(proto.LIST_RESPONSE, 'text')


def test_random_and_mutated_bytes_decode_or_raise_decode_error_only():
    rng = random.Random(4)
    good = wire.list_response([wire.pod('p', 'ns', [wire.container('c', cpus=[1, 2], blocks=[('memory', GIB, [0])])])])
    samples = [bytes(rng.getrandbits(8) for _byte in range(rng.randrange(64))) for _sample in range(3000)]
    for _sample in range(3000):
        mutated = bytearray(good)
        for _change in range(rng.randrange(1, 4)):
            mutated[rng.randrange(len(mutated))] = rng.getrandbits(8)
        samples.append(bytes(mutated[:rng.randrange(len(mutated) + 1)]))
    for data in samples:
        for message in (proto.LIST_RESPONSE, proto.ALLOCATABLE_RESPONSE):
            try:
                proto.decode(message, data)
            except proto.DecodeError:
                pass


def test_the_encoder_of_the_tests_round_trips_varints():
    for value in (0, 1, 127, 128, 300, (1 << 63) - 1, (1 << 64) - 1):
        assert proto.read_varint(wire.varint(value), 0, 'v') == (value, len(wire.varint(value)))
