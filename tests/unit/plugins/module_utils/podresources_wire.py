# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A small protobuf encoder for the tests: the kubelet's pod-resources v1 messages built field by field, with the
field numbers of k8s.io/kubelet/pkg/apis/podresources/v1/api.proto written out here (not taken from the decoder),
so a wrong number in either shows up."""
from __future__ import annotations


def varint(value):
    if value < 0:
        value += 1 << 64   # int64: two's complement, ten bytes
    out = bytearray()
    while True:
        byte = value & 0x7f
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def key(number, wire):
    return varint(number << 3 | wire)


def length(number, payload):
    if isinstance(payload, str):
        payload = payload.encode('utf-8')
    return key(number, 2) + varint(len(payload)) + payload


def uint(number, value):
    return key(number, 0) + varint(value)


def packed(number, values):
    return length(number, b''.join(varint(v) for v in values))


def topology(nodes):
    return b''.join(length(1, uint(1, node)) for node in nodes)           # TopologyInfo.nodes, NUMANode.ID


def memory(kind, size, nodes):
    # ContainerMemory: memory_type 1, size 2, topology 3
    return length(1, kind) + uint(2, size) + length(3, topology(nodes))


def devices(resource, ids, nodes):
    # ContainerDevices: resource_name 1, device_ids 2, topology 3
    return length(1, resource) + b''.join(length(2, i) for i in ids) + length(3, topology(nodes))


def container(name, cpus=(), blocks=(), devs=()):
    # ContainerResources: name 1, devices 2, cpu_ids 3, memory 4
    out = length(1, name) + b''.join(length(2, devices(*d)) for d in devs)
    if cpus:
        out += packed(3, cpus)
    return out + b''.join(length(4, memory(*b)) for b in blocks)


def pod(name, namespace, containers=(), cpus=(), blocks=()):
    # PodResources: name 1, namespace 2, containers 3, cpu_ids 4, memory 5
    out = length(1, name) + length(2, namespace) + b''.join(length(3, c) for c in containers)
    if cpus:
        out += packed(4, cpus)
    return out + b''.join(length(5, memory(*b)) for b in blocks)


def list_response(pods):
    return b''.join(length(1, p) for p in pods)                          # ListPodResourcesResponse.pod_resources


def allocatable_response(cpus=(), blocks=(), devs=()):
    # AllocatableResourcesResponse: devices 1, cpu_ids 2, memory 3
    out = b''.join(length(1, devices(*d)) for d in devs)
    if cpus:
        out += packed(2, cpus)
    return out + b''.join(length(3, memory(*b)) for b in blocks)
