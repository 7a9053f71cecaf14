# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared helpers of the cluster-side module tests (run through the real client against tests/cluster)."""
from __future__ import annotations

import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
CRD_TEMPLATE = os.path.join(ROOT, 'roles', 'colocation_controller', 'templates', 'crd.yaml.j2')


def colocation_crd():
    """The ColocationConfiguration CRD the colocation_controller role installs (its labels line dropped)."""
    with open(CRD_TEMPLATE) as handle:
        text = handle.read()
    text = re.sub(r'\n  labels:\n\{\{[^\n]*\}\}\n', '\n', text)
    assert '{{' not in text, 'crd.yaml.j2 has template expressions this test does not know how to drop'
    return yaml.safe_load(text)


def install_crd(cluster, client):
    """Create the role's ColocationConfiguration CRD and wait until the server serves it (Established)."""
    import kubernetes
    from ansible_collections.numaops.colocation.tests.cluster.objects import wait_for
    api = kubernetes.client.ApiextensionsV1Api(client)
    crd = colocation_crd()
    api.create_custom_resource_definition(crd)

    def established():
        status = api.read_custom_resource_definition(crd['metadata']['name']).status
        return any(c.type == 'Established' and c.status == 'True' for c in (status.conditions or []))
    wait_for(established, 'CRD %s Established' % crd['metadata']['name'])
