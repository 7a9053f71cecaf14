# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The resource types the Kubernetes API stand-in serves, and the ones it knows the real API serves
but does not implement (a request for those is answered 501 and recorded as unhandled)."""
from __future__ import annotations

ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']
SUB_VERBS = ['get', 'patch', 'update']


class ResourceType:
    """One served resource (group/version/plural) as discovery describes it."""

    def __init__(self, group, version, plural, kind, namespaced, short_names=(), singular=None,
                 subresources=None, generation=False, custom=False, schema=None, categories=()):
        self.group = group
        self.version = version
        self.plural = plural
        self.kind = kind
        self.namespaced = namespaced
        self.short_names = list(short_names)
        self.singular = singular or kind.lower()
        # name -> dict(kind=..., verbs=[...]); only implemented subresources are listed
        self.subresources = dict(subresources or {})
        self.generation = generation
        self.custom = custom
        self.schema = schema
        self.categories = list(categories)

    @property
    def group_version(self):
        return '%s/%s' % (self.group, self.version) if self.group else self.version

    @property
    def key(self):
        return (self.group, self.plural)

    @property
    def resource_name(self):
        """How error messages name the resource: ``pods``, ``deployments.apps``."""
        return '%s.%s' % (self.plural, self.group) if self.group else self.plural

    @property
    def status_subresource(self):
        return 'status' in self.subresources

    def discovery(self):
        entries = [{
            'name': self.plural,
            'singularName': self.singular,
            'namespaced': self.namespaced,
            'kind': self.kind,
            'verbs': list(ALL_VERBS),
        }]
        if self.short_names:
            entries[0]['shortNames'] = list(self.short_names)
        if self.categories:
            entries[0]['categories'] = list(self.categories)
        for name, sub in sorted(self.subresources.items()):
            entry = {'name': '%s/%s' % (self.plural, name), 'singularName': '',
                     'namespaced': self.namespaced, 'kind': sub['kind'], 'verbs': list(sub['verbs'])}
            for key in ('group', 'version'):
                if key in sub:
                    entry[key] = sub[key]
            entries.append(entry)
        return entries


def _status(kind):
    return {'status': {'kind': kind, 'verbs': list(SUB_VERBS)}}


def builtin_types():
    pods_sub = _status('Pod')
    pods_sub['eviction'] = {'kind': 'Eviction', 'verbs': ['create'], 'group': 'policy', 'version': 'v1'}
    return [
        ResourceType('', 'v1', 'namespaces', 'Namespace', False, ['ns'], subresources=_status('Namespace')),
        ResourceType('', 'v1', 'pods', 'Pod', True, ['po'], subresources=pods_sub, generation=True, categories=['all']),
        ResourceType('', 'v1', 'nodes', 'Node', False, ['no'], subresources=_status('Node')),
        ResourceType('', 'v1', 'services', 'Service', True, ['svc'], subresources=_status('Service'), categories=['all']),
        ResourceType('', 'v1', 'serviceaccounts', 'ServiceAccount', True, ['sa']),
        ResourceType('', 'v1', 'configmaps', 'ConfigMap', True, ['cm']),
        ResourceType('', 'v1', 'secrets', 'Secret', True),
        ResourceType('apps', 'v1', 'deployments', 'Deployment', True, ['deploy'], subresources=_status('Deployment'),
                     generation=True, categories=['all']),
        ResourceType('apps', 'v1', 'daemonsets', 'DaemonSet', True, ['ds'], subresources=_status('DaemonSet'),
                     generation=True, categories=['all']),
        ResourceType('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', False),
        ResourceType('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', False),
        ResourceType('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', True),
        ResourceType('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', True),
        ResourceType('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', False,
                     ['crd', 'crds'], subresources=_status('CustomResourceDefinition'), generation=True),
    ]


# Served by a real kube-apiserver, not by the stand-in: using them is a gap in the stand-in (501).
UNIMPLEMENTED_GROUPS = {
    'admissionregistration.k8s.io', 'apiregistration.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io',
    'autoscaling', 'batch', 'certificates.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io',
    'flowcontrol.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io', 'policy', 'resource.k8s.io',
    'scheduling.k8s.io', 'storage.k8s.io', 'storagemigration.k8s.io', 'internal.apiserver.k8s.io',
}
UNIMPLEMENTED_RESOURCES = {
    ('', 'bindings'), ('', 'componentstatuses'), ('', 'endpoints'), ('', 'events'), ('', 'limitranges'),
    ('', 'persistentvolumeclaims'), ('', 'persistentvolumes'), ('', 'podtemplates'),
    ('', 'replicationcontrollers'), ('', 'resourcequotas'),
    ('apps', 'replicasets'), ('apps', 'statefulsets'), ('apps', 'controllerrevisions'),
}
UNIMPLEMENTED_SUBRESOURCES = {
    'log', 'exec', 'attach', 'portforward', 'proxy', 'binding', 'ephemeralcontainers', 'resize', 'scale',
    'token', 'finalize', 'approval',
}
