# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's pod-resources API (v1) messages, decoded from the protobuf wire format with the standard library.

The messages and field numbers are those of ``k8s.io/kubelet/pkg/apis/podresources/v1/api.proto`` (service
``v1.PodResourcesLister``, served on ``<kubelet root dir>/pod-resources/kubelet.sock``), the same in every kubelet
release from 1.31 to 1.38 for the fields read here (``PodResources.cpu_ids`` and ``PodResources.memory``, the
pod-level resources, are there from 1.34):

* ``ListPodResourcesResponse``: 1 ``pod_resources`` (repeated ``PodResources``);
* ``PodResources``: 1 ``name``, 2 ``namespace``, 3 ``containers`` (repeated ``ContainerResources``), 4 ``cpu_ids``
  (repeated int64), 5 ``memory`` (repeated ``ContainerMemory``);
* ``ContainerResources``: 1 ``name``, 2 ``devices`` (repeated ``ContainerDevices``), 3 ``cpu_ids`` (repeated
  int64), 4 ``memory`` (repeated ``ContainerMemory``); 5 ``dynamic_resources`` is not read;
* ``ContainerDevices``: 1 ``resource_name``, 2 ``device_ids`` (repeated string), 3 ``topology``;
* ``ContainerMemory``: 1 ``memory_type``, 2 ``size`` (uint64), 3 ``topology``;
* ``TopologyInfo``: 1 ``nodes`` (repeated ``NUMANode``); ``NUMANode``: 1 ``ID`` (int64);
* ``AllocatableResourcesResponse``: 1 ``devices``, 2 ``cpu_ids``, 3 ``memory``.

The requests (``ListPodResourcesRequest``, ``AllocatableResourcesRequest``) have no fields: their encoding is
empty. Decoding follows proto3: an absent field has its default (empty string, 0, empty list, ``None`` for a
message); repeated integers are accepted packed (the proto3 encoding) and unpacked; a field number this module
does not know is skipped, so newer kubelets' additions do not break it. Input that is not a valid encoding
(a truncated varint, a length beyond the data, a wire type that does not fit the field, text that is not UTF-8)
raises :class:`DecodeError`, whose message names the message, the field and the byte offset.

Runs on managed nodes: Python 3.8+, standard library only.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

VARINT, FIXED64, LENGTH, START_GROUP, END_GROUP, FIXED32 = 0, 1, 2, 3, 4, 5
_WIRE_NAMES = {VARINT: 'varint', FIXED64: '64-bit', LENGTH: 'length-delimited', START_GROUP: 'start-group',
               END_GROUP: 'end-group', FIXED32: '32-bit'}

STRING, INT64, UINT64 = 'string', 'int64', 'uint64'


class DecodeError(ValueError):
    """The bytes are not a valid encoding of the message."""


class Message:
    """A message type: its name and {field number: (name, kind, repeated)}; kind is STRING, INT64, UINT64 or a
    Message."""

    def __init__(self, name, fields):
        self.name = name
        self.fields = fields

    def empty(self):
        return dict((name, [] if repeated else (None if isinstance(kind, Message) else _DEFAULTS[kind]))
                    for name, kind, repeated in self.fields.values())


_DEFAULTS = {STRING: '', INT64: 0, UINT64: 0}

NUMA_NODE = Message('NUMANode', {1: ('id', INT64, False)})
TOPOLOGY_INFO = Message('TopologyInfo', {1: ('nodes', NUMA_NODE, True)})
CONTAINER_MEMORY = Message('ContainerMemory', {1: ('memory_type', STRING, False), 2: ('size', UINT64, False),
                                               3: ('topology', TOPOLOGY_INFO, False)})
CONTAINER_DEVICES = Message('ContainerDevices', {1: ('resource_name', STRING, False),
                                                 2: ('device_ids', STRING, True),
                                                 3: ('topology', TOPOLOGY_INFO, False)})
CONTAINER_RESOURCES = Message('ContainerResources', {1: ('name', STRING, False),
                                                     2: ('devices', CONTAINER_DEVICES, True),
                                                     3: ('cpu_ids', INT64, True),
                                                     4: ('memory', CONTAINER_MEMORY, True)})
POD_RESOURCES = Message('PodResources', {1: ('name', STRING, False), 2: ('namespace', STRING, False),
                                         3: ('containers', CONTAINER_RESOURCES, True),
                                         4: ('cpu_ids', INT64, True), 5: ('memory', CONTAINER_MEMORY, True)})
LIST_RESPONSE = Message('ListPodResourcesResponse', {1: ('pod_resources', POD_RESOURCES, True)})
ALLOCATABLE_RESPONSE = Message('AllocatableResourcesResponse', {1: ('devices', CONTAINER_DEVICES, True),
                                                                2: ('cpu_ids', INT64, True),
                                                                3: ('memory', CONTAINER_MEMORY, True)})

_MAX_VARINT_BYTES = 10


def read_varint(data, pos, what):
    """(value, next position) of the varint at ``pos``: at most 10 bytes, the last one below 0x80."""
    value = 0
    for index in range(_MAX_VARINT_BYTES):
        if pos + index >= len(data):
            raise DecodeError('%s: truncated varint at byte %d (the data ends after %d bytes)' % (what, pos, len(data)))
        byte = data[pos + index]
        value |= (byte & 0x7f) << (7 * index)
        if byte < 0x80:
            if value >= 1 << 64:
                raise DecodeError('%s: varint at byte %d does not fit in 64 bits' % (what, pos))
            return value, pos + index + 1
    raise DecodeError('%s: varint at byte %d is longer than %d bytes' % (what, pos, _MAX_VARINT_BYTES))


def fields(data, what):
    """(field number, wire type, value, offset) of each field of one message's bytes; value is an int for a varint,
    bytes for the other wire types. Groups (wire types 3 and 4, not used by proto3) and the unassigned wire types
    6 and 7 are refused."""
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = read_varint(data, pos, what)
        number, wire = key >> 3, key & 7
        if number == 0 or number >= 1 << 29:
            raise DecodeError('%s: field number %d at byte %d is not a valid field number (1 to 536870911)'
                              % (what, number, start))
        if wire == VARINT:
            value, pos = read_varint(data, pos, '%s field %d' % (what, number))
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            if pos + size > len(data):
                raise DecodeError('%s: field %d at byte %d needs %d bytes, %d left'
                                  % (what, number, start, size, len(data) - pos))
            value, pos = data[pos:pos + size], pos + size
        elif wire == LENGTH:
            length, pos = read_varint(data, pos, '%s field %d length' % (what, number))
            if length > len(data) - pos:
                raise DecodeError('%s: field %d at byte %d claims %d bytes, %d left'
                                  % (what, number, start, length, len(data) - pos))
            value, pos = data[pos:pos + length], pos + length
        else:
            raise DecodeError('%s: field %d at byte %d has wire type %d (%s), which proto3 messages do not use'
                              % (what, number, start, wire, _WIRE_NAMES.get(wire, 'unassigned')))
        yield number, wire, value, start


def _integer(kind, value):
    if kind == INT64 and value >= 1 << 63:
        return value - (1 << 64)
    return value


def _integers(kind, wire, value, where):
    """The integers of one occurrence of an integer field: a varint, or packed varints."""
    if wire == VARINT:
        return [_integer(kind, value)]
    if wire != LENGTH:
        raise DecodeError('%s has wire type %d (%s); an %s is a varint or packed varints'
                          % (where, wire, _WIRE_NAMES[wire], kind))
    found, pos = [], 0
    while pos < len(value):
        number, pos = read_varint(value, pos, where + ' (packed)')
        found.append(_integer(kind, number))
    return found


def decode(message, data, what=None):
    """The dict of ``message`` (a :class:`Message`) encoded in ``data`` (bytes); raises :class:`DecodeError`."""
    if not isinstance(data, (bytes, bytearray)):
        raise DecodeError('%s: expected bytes, got %s' % (what or message.name, type(data).__name__))
    what = what or message.name
    result = message.empty()
    for number, wire, value, start in fields(bytes(data), what):
        spec = message.fields.get(number)
        if spec is None:
            continue
        name, kind, repeated = spec
        where = '%s.%s (field %d at byte %d)' % (what, name, number, start)
        if kind in (INT64, UINT64):
            numbers = _integers(kind, wire, value, where)
            if repeated:
                result[name].extend(numbers)
            elif wire == LENGTH:
                raise DecodeError('%s is length-delimited; a single %s is a varint' % (where, kind))
            else:
                result[name] = numbers[0]
            continue
        if wire != LENGTH:
            raise DecodeError('%s has wire type %d (%s); a %s is length-delimited'
                              % (where, wire, _WIRE_NAMES[wire], 'string' if kind == STRING else 'message'))
        if kind == STRING:
            try:
                text = value.decode('utf-8')
            except UnicodeDecodeError as err:
                raise DecodeError('%s is not UTF-8: %s' % (where, err))
            if repeated:
                result[name].append(text)
            else:
                result[name] = text
            continue
        inner = decode(kind, value, '%s.%s' % (what, name))
        if repeated:
            result[name].append(inner)
        elif result[name] is None:
            result[name] = inner
        else:
            # a message field given twice is merged (proto3): repeated fields add up, the later scalars win
            for key, item in inner.items():
                if isinstance(item, list):
                    result[name][key].extend(item)
                elif item not in ('', 0, None):
                    result[name][key] = item
    return result


def numa_ids(topology):
    """The NUMA node IDs of a decoded ``TopologyInfo`` (None: no topology given), sorted."""
    return sorted(set(node['id'] for node in (topology or {}).get('nodes') or []))
