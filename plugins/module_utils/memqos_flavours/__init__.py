# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The memory-QoS flavours, registered in one place: the module's ``flavour`` option names one of these.

A new flavour is one file in this package (a subclass of ``memqos.Flavour``) and one line in ``FLAVOURS``; see
docs/developer/memory_qos_flavours.md.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours.koordinator import Koordinator
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours.kubelet import Kubelet
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours.volcano import Volcano

FLAVOURS = dict((flavour.name, flavour) for flavour in (Volcano, Kubelet, Koordinator))
DEFAULT = 'volcano'


def flavour_class(name):
    """The class of the flavour called ``name``; raises KeyError naming the known ones."""
    if name not in FLAVOURS:
        raise KeyError('flavour %r is not known; allowed: %s' % (name, ', '.join(sorted(FLAVOURS))))
    return FLAVOURS[name]
