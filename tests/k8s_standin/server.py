# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A stand-in for kube-apiserver, for tests only.

No kube-apiserver can run on the test machines, so this small HTTP server answers the real
``kubernetes`` Python client (and kubernetes.core's modules, which use it) the way kube-apiserver does
for what the collection uses. It is strict: a request it does not implement is answered
``501 NotImplemented`` and recorded in ``StandIn.unhandled`` (test fixtures assert that list is empty);
it never answers a silent 200. See tests/k8s_standin/README.md for what it covers and where it differs.

No controllers run here. A *simulated* control plane, documented as such, runs at the start of every
request (so a create response has no status yet, and the next request sees the result, like a fast
cluster): it establishes CRDs, finishes graceful deletions (pods, namespaces, finalizers), collects
garbage by ownerReferences, marks Deployments available, runs DaemonSet pods on matching nodes, and
acts as the kubelet (pods on a Ready node become Running and Ready). ``never_ready`` names workloads
(``namespace/name`` or ``*``) that never become ready, to test timeouts.
"""
from __future__ import annotations

import base64
import copy
import datetime
import hashlib
import json
import random
import re
import string
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

try:
    import yaml
except ImportError:  # pragma: no cover - PyYAML ships with ansible-core
    yaml = None

try:
    from ansible_collections.numaops.colocation.plugins.module_utils.quantity import QuantityError, parse_quantity
except ImportError:
    # run as `python tests/k8s_standin` (molecule, integration targets): ansible_collections.numaops is not on the
    # path there, so load the collection's own quantity parser (stdlib-only) by its file path. The nearest
    # ancestor directory holding galaxy.yml is the collection; ansible-test runs integration targets from a copy
    # of tests/ under tests/output/.tmp/integration/, so the checkout is further up than tests/..
    import importlib.util
    import os

    def _find_quantity_py(start):
        here = start
        while True:
            candidate = os.path.join(here, 'plugins', 'module_utils', 'quantity.py')
            if os.path.isfile(os.path.join(here, 'galaxy.yml')) and os.path.isfile(candidate):
                return candidate
            parent = os.path.dirname(here)
            if parent == here:
                raise ImportError('k8s_standin: no collection (galaxy.yml with plugins/module_utils/quantity.py) '
                                  'found above %s' % start)
            here = parent

    _SPEC = importlib.util.spec_from_file_location('_k8s_standin_quantity',
                                                   _find_quantity_py(os.path.dirname(os.path.abspath(__file__))))
    _QUANTITY = importlib.util.module_from_spec(_SPEC)
    _SPEC.loader.exec_module(_QUANTITY)
    QuantityError, parse_quantity = _QUANTITY.QuantityError, _QUANTITY.parse_quantity

from .patch import PatchError, json_patch, merge_patch, strategic_merge_patch
from .resources import (ResourceType, UNIMPLEMENTED_GROUPS, UNIMPLEMENTED_RESOURCES, UNIMPLEMENTED_SUBRESOURCES,
                        builtin_types)
from .schema import apply_defaults, check_structural, prune, validate
from .k8s_selectors import SelectorError, field_matches, label_matches, parse_field_selector, parse_label_selector

SERVER_VERSION = {
    'major': '1', 'minor': '31', 'gitVersion': 'v1.31.0-standin', 'gitCommit': '0' * 40, 'gitTreeState': 'clean',
    'buildDate': '2026-11-29T00:00:00Z', 'goVersion': 'go1.22.0', 'compiler': 'gc', 'platform': 'linux/amd64',
}
DEFAULT_NAMESPACES = ('default', 'kube-system', 'kube-public', 'kube-node-lease')
KNOWN_QUERY = {'labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch',
               'timeoutSeconds', 'pretty', 'dryRun', 'fieldManager', 'fieldValidation', 'force',
               'gracePeriodSeconds', 'propagationPolicy', 'orphanDependents', 'allowWatchBookmarks',
               'sendInitialEvents', 'watch'}
FIELD_SELECTORS = {
    ('', 'pods'): {'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName',
                   'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'},
    ('', 'nodes'): {'spec.unschedulable'},
    ('', 'namespaces'): {'status.phase'},
    ('', 'secrets'): {'type'},
}
_DNS_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
_DNS_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
_NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789'
PATCH_TYPES = {
    'application/json-patch+json': 'json',
    'application/merge-patch+json': 'merge',
    'application/strategic-merge-patch+json': 'strategic',
    'application/apply-patch+yaml': 'apply',
}


class ApiError(Exception):
    """An API answer other than success: becomes a ``Status`` object."""

    def __init__(self, code, reason, message, details=None, record=False):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.record = record


def status_object(code, reason, message, details=None):
    obj = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {},
           'status': 'Success' if code < 300 else 'Failure', 'message': message, 'reason': reason, 'code': code}
    if details is not None:
        obj['details'] = details
    if code < 300:
        del obj['message']
        del obj['reason']
    return obj


def _details(rtype, name):
    details = {'name': name, 'kind': rtype.plural}
    if rtype.group:
        details['group'] = rtype.group
    return details


def not_found(rtype, name):
    return ApiError(404, 'NotFound', '%s "%s" not found' % (rtype.resource_name, name), _details(rtype, name))


def invalid(rtype, kind, name, causes):
    fmt = ['%s: %s' % (c['field'], c['message']) if c.get('field') else c['message'] for c in causes]
    text = fmt[0] if len(fmt) == 1 else '[%s]' % ', '.join(fmt)
    what = '%s.%s' % (kind, rtype.group) if rtype.group else kind
    details = {'name': name or '', 'kind': kind, 'causes': causes}
    if rtype.group:
        details['group'] = rtype.group
    return ApiError(422, 'Invalid', '%s "%s" is invalid: %s' % (what, name or '', text), details)


def cause(field, message, reason='FieldValueInvalid'):
    return {'reason': reason, 'message': message, 'field': field}


def conflict(rtype, name):
    return ApiError(409, 'Conflict', 'Operation cannot be fulfilled on %s "%s": the object has been modified; '
                    'please apply your changes to the latest version and try again' % (rtype.resource_name, name),
                    _details(rtype, name))


def _pod_template_defaults(spec):
    spec.setdefault('restartPolicy', 'Always')
    spec.setdefault('terminationGracePeriodSeconds', 30)
    spec.setdefault('dnsPolicy', 'ClusterFirst')
    spec.setdefault('securityContext', {})
    spec.setdefault('schedulerName', 'default-scheduler')
    for key in ('containers', 'initContainers'):
        for container in spec.get(key) or []:
            if isinstance(container, dict):
                container.setdefault('terminationMessagePath', '/dev/termination-log')
                container.setdefault('terminationMessagePolicy', 'File')
                image = container.get('image') or ''
                latest = ':' not in image.rsplit('/', 1)[-1] or image.endswith(':latest')
                container.setdefault('imagePullPolicy', 'Always' if latest else 'IfNotPresent')
                container.setdefault('resources', {})
                for port in container.get('ports') or []:
                    if isinstance(port, dict):
                        port.setdefault('protocol', 'TCP')


def _pod_qos_class(spec):
    """status.qosClass as kube-apiserver computes it (pkg/apis/core/helper/qos ComputePodQOS), from cpu and memory
    requests/limits of all containers and init containers; a request left unset defaults to the limit (as the
    v1 defaulting does). Quantities are compared exactly (the collection's parse_quantity)."""
    def amount(value):
        try:
            return parse_quantity(value)
        except QuantityError:  # the real API rejects it at decoding; compare the text then
            return str(value).strip()

    def positive(value):
        return not (value == 0)

    requests, limits, guaranteed = {}, {}, True
    for container in list(spec.get('containers') or []) + list(spec.get('initContainers') or []):
        if not isinstance(container, dict):
            continue
        resources = container.get('resources') or {}
        container_limits = {k: amount(v) for k, v in (resources.get('limits') or {}).items() if k in ('cpu', 'memory')}
        container_requests = dict(container_limits)
        container_requests.update({k: amount(v) for k, v in (resources.get('requests') or {}).items()
                                   if k in ('cpu', 'memory')})
        for total, values in ((requests, container_requests), (limits, container_limits)):
            for name, value in values.items():
                if positive(value):
                    total[name] = value if name not in total else _add(total[name], value)
        if not all(name in container_limits and positive(container_limits[name]) for name in ('cpu', 'memory')):
            guaranteed = False
    if not requests and not limits:
        return 'BestEffort'
    if guaranteed and set(requests) == set(limits) and all(requests[name] == limits[name] for name in requests):
        return 'Guaranteed'
    return 'Burstable'


def _add(a, b):
    return a + b if not isinstance(a, str) and not isinstance(b, str) else '%s+%s' % (a, b)


def _pod_spec_causes(spec, where):
    causes = []
    containers = spec.get('containers') if isinstance(spec, dict) else None
    if not containers:
        return [cause(where + '.containers', 'Required value', 'FieldValueRequired')]
    for index, container in enumerate(containers):
        path = '%s.containers[%d]' % (where, index)
        if not isinstance(container, dict):
            causes.append(cause(path, 'Invalid value: must be an object'))
            continue
        if not container.get('name'):
            causes.append(cause(path + '.name', 'Required value', 'FieldValueRequired'))
        if not container.get('image'):
            causes.append(cause(path + '.image', 'Required value', 'FieldValueRequired'))
    return causes


class StandIn:
    """The stand-in API server. ``start()`` serves it on 127.0.0.1 and a free port."""

    def __init__(self, token=None, host='127.0.0.1', port=0, nodes=(), verbose=False):
        self.token = token
        self.host = host
        self.port = port
        self.verbose = verbose
        self.lock = threading.RLock()
        self.unhandled = []
        self.requests = []
        self.never_ready = set()
        self.clock_offset = datetime.timedelta(0)
        self._rv = 0
        self._reconciled_rv = None
        self._ip = 0
        self.types = {}          # (group, version, plural) -> ResourceType
        self.objects = {}        # (group, plural) -> {(namespace, name): obj}
        for rtype in builtin_types():
            self._register(rtype)
        for name in DEFAULT_NAMESPACES:
            self.seed({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name}})
        for node in nodes:
            self.add_node(node)
        self._httpd = None
        self._thread = None

    # --- lifecycle --------------------------------------------------------------------------------

    def start(self):
        standin = self

        class Handler(_Handler):
            pass
        Handler.standin = standin
        self._httpd = ThreadingHTTPServer((self.host, self.port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name='k8s-standin', daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def serve_forever(self):
        """Serve in the calling thread (for the command line)."""
        if self._httpd is None:
            self.start()
        self._thread.join()

    @property
    def url(self):
        return 'http://%s:%d' % (self.host, self.port)

    def kubeconfig(self, namespace='default'):
        user = {'token': self.token} if self.token else {}
        return {
            'apiVersion': 'v1', 'kind': 'Config', 'preferences': {},
            'clusters': [{'name': 'k8s-standin', 'cluster': {'server': self.url}}],
            'users': [{'name': 'k8s-standin', 'user': user}],
            'contexts': [{'name': 'k8s-standin',
                          'context': {'cluster': 'k8s-standin', 'user': 'k8s-standin', 'namespace': namespace}}],
            'current-context': 'k8s-standin',
        }

    def write_kubeconfig(self, path, namespace='default'):
        """Write a kubeconfig (JSON, which is YAML) pointing at this server; returns the path."""
        with open(path, 'w') as handle:
            json.dump(self.kubeconfig(namespace), handle, indent=2)
            handle.write('\n')
        return path

    # --- test helpers (no HTTP) ----------------------------------------------------------------------

    def now(self):
        return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + self.clock_offset

    def advance_clock(self, seconds):
        """Move the server clock forward (creationTimestamps are per second, like the real API)."""
        with self.lock:
            self.clock_offset += datetime.timedelta(seconds=seconds)

    def timestamp(self):
        return self.now().strftime('%Y-%m-%dT%H:%M:%SZ')

    def set_never_ready(self, *workloads):
        """Workloads (``namespace/name`` or ``*``) whose pods never become ready."""
        with self.lock:
            self.never_ready = set(workloads)
            self._reconciled_rv = None

    def seed(self, obj, keep_status=True):
        """Create an object directly (validation and defaults apply; status is kept, e.g. for pods)."""
        with self.lock:
            group, _sep, version = obj['apiVersion'].rpartition('/')
            rtype = self._type_for_kind(group, version, obj['kind'])
            status = copy.deepcopy(obj.get('status')) if keep_status else None
            created = self._create(rtype, obj.get('metadata', {}).get('namespace'), copy.deepcopy(obj), {})
            if status is not None:
                stored = self.objects[rtype.key][self._okey(created)]
                stored['status'] = status
            return copy.deepcopy(self.objects[rtype.key][self._okey(created)])

    def add_node(self, name, ready=True, labels=None, unschedulable=False, taints=None):
        node = {'apiVersion': 'v1', 'kind': 'Node',
                'metadata': {'name': name, 'labels': dict({'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux',
                                                           'kubernetes.io/arch': 'amd64'}, **(labels or {}))},
                'spec': {},
                'status': {'conditions': [{'type': 'Ready', 'status': 'True' if ready else 'False',
                                           'reason': 'KubeletReady' if ready else 'KubeletNotReady',
                                           'message': 'kubelet is posting ready status' if ready else 'kubelet stopped posting node status',
                                           'lastHeartbeatTime': self.timestamp(), 'lastTransitionTime': self.timestamp()}],
                           'nodeInfo': {'kubeletVersion': SERVER_VERSION['gitVersion'], 'kubeProxyVersion': SERVER_VERSION['gitVersion'],
                                        'containerRuntimeVersion': 'containerd://1.6.20', 'operatingSystem': 'linux',
                                        'architecture': 'amd64', 'osImage': 'Debian GNU/Linux 12 (bookworm)',
                                        'kernelVersion': '6.1.0-standin', 'bootID': _hash(name + 'boot')[:32],
                                        'machineID': _hash(name)[:32], 'systemUUID': str(uuid.uuid5(uuid.NAMESPACE_DNS, name))},
                           'addresses': [{'type': 'InternalIP', 'address': '192.0.2.%d' % (len(self.objects[('', 'nodes')]) + 10)},
                                         {'type': 'Hostname', 'address': name}]}}
        if unschedulable:
            node['spec']['unschedulable'] = True
        if taints:
            node['spec']['taints'] = taints
        return self.seed(node)

    def get_object(self, api_version, kind, name, namespace=None):
        with self.lock:
            group, _sep, version = api_version.rpartition('/')
            rtype = self._type_for_kind(group, version, kind)
            obj = self.objects[rtype.key].get((namespace or '', name))
            return copy.deepcopy(obj)

    def list_objects(self, api_version, kind, namespace=None):
        with self.lock:
            group, _sep, version = api_version.rpartition('/')
            rtype = self._type_for_kind(group, version, kind)
            return [copy.deepcopy(o) for (ns, _n), o in sorted(self.objects[rtype.key].items())
                    if namespace is None or ns == namespace]

    # --- registry ------------------------------------------------------------------------------------

    def _register(self, rtype):
        self.types[(rtype.group, rtype.version, rtype.plural)] = rtype
        self.objects.setdefault(rtype.key, {})

    def _type_for_kind(self, group, version, kind):
        for rtype in self.types.values():
            if rtype.group == group and rtype.version == version and rtype.kind == kind:
                return rtype
        raise KeyError('the stand-in serves no %s/%s %s' % (group, version, kind))

    def _group_versions(self):
        groups = {}
        for rtype in self.types.values():
            versions = groups.setdefault(rtype.group, [])
            if rtype.version not in versions:
                versions.append(rtype.version)
        return groups

    def _preferred(self, group):
        for crd in self.objects[('apiextensions.k8s.io', 'customresourcedefinitions')].values():
            if crd['spec']['group'] == group:
                for version in crd['spec']['versions']:
                    if version.get('storage') and version.get('served', True):
                        return version['name']
        return self._group_versions()[group][0]

    # --- bookkeeping ---------------------------------------------------------------------------------

    def _next_rv(self):
        self._rv += 1
        return str(self._rv)

    @staticmethod
    def _okey(obj):
        meta = obj['metadata']
        return (meta.get('namespace') or '', meta['name'])

    def _generate_name(self, prefix):
        return prefix + ''.join(random.choice(_NAME_CHARS) for _index in range(5))

    def _output(self, rtype, obj):
        out = copy.deepcopy(obj)
        out['apiVersion'] = rtype.group_version
        return out

    # --- HTTP entry point ----------------------------------------------------------------------------

    def handle(self, method, raw_path, headers, body):
        """Returns (code, response dict or text, extra headers)."""
        parts = urlsplit(raw_path)
        path = parts.path
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        content_type = (headers.get('Content-Type') or '').split(';')[0].strip().lower()
        entry = {'method': method, 'path': path, 'query': query, 'content_type': content_type}
        if path.startswith('/standin/'):
            return self._control(method, path, body)
        with self.lock:
            self.requests.append(entry)
            try:
                if self.token and headers.get('Authorization') != 'Bearer %s' % self.token:
                    raise ApiError(401, 'Unauthorized', 'Unauthorized')
                self._reconcile()
                warnings = []
                code, result = self._route(method, path, query, content_type, body, warnings)
                extra = {}
                if warnings:
                    extra['Warning'] = ', '.join('299 - %s' % json.dumps(w) for w in warnings)
            except ApiError as exc:
                if exc.record or exc.code == 501:
                    self.unhandled.append('%s %s%s: %s' % (method, path, '?' + parts.query if parts.query else '',
                                                           exc.message))
                code, result, extra = exc.code, status_object(exc.code, exc.reason, exc.message, exc.details), {}
            entry['status'] = code
            return code, result, extra

    def _unimplemented(self, what):
        return ApiError(501, 'NotImplemented', 'the Kubernetes API stand-in does not implement %s '
                        '(extend tests/k8s_standin or test against a real cluster)' % what, record=True)

    def _control(self, method, path, body):
        with self.lock:
            if path == '/standin/unhandled' and method == 'GET':
                return 200, {'unhandled': list(self.unhandled)}, {}
            if path == '/standin/unhandled' and method == 'DELETE':
                self.unhandled[:] = []
                return 200, {'unhandled': []}, {}
            if path == '/standin/requests' and method == 'GET':
                return 200, {'requests': list(self.requests)}, {}
            if path == '/standin/never-ready' and method in ('PUT', 'POST'):
                data = json.loads(body or b'{}')
                self.never_ready = set(data.get('workloads') or [])
                self._reconciled_rv = None
                return 200, {'workloads': sorted(self.never_ready)}, {}
            if path == '/standin/clock' and method == 'POST':
                data = json.loads(body or b'{}')
                self.clock_offset += datetime.timedelta(seconds=float(data.get('advance_seconds', 0)))
                return 200, {'now': self.timestamp()}, {}
            if path == '/standin/nodes' and method == 'POST':
                data = json.loads(body or b'{}')
                node = self.add_node(data['name'], ready=data.get('ready', True), labels=data.get('labels'))
                return 201, node, {}
        return 404, {'error': 'unknown stand-in control endpoint %s %s' % (method, path)}, {}

    def _route(self, method, path, query, content_type, body, warnings):
        segs = [s for s in path.split('/') if s]
        if method not in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE'):
            raise self._unimplemented('the HTTP method %s' % method)
        if segs == ['version'] and method == 'GET':
            return 200, dict(SERVER_VERSION)
        if segs in (['healthz'], ['livez'], ['readyz']) and method == 'GET':
            return 200, 'ok'
        if segs == ['api'] and method == 'GET':
            return 200, {'kind': 'APIVersions', 'versions': ['v1'],
                         'serverAddressByClientCIDRs': [{'clientCIDR': '0.0.0.0/0', 'serverAddress': '%s:%d' % (self.host, self.port)}]}
        if segs == ['apis'] and method == 'GET':
            return 200, self._group_list()
        if not segs or segs[0] not in ('api', 'apis') or len(segs) < 2:
            raise self._unimplemented('%s %s' % (method, path))
        for key in query:
            if key not in KNOWN_QUERY:
                raise self._unimplemented('the query parameter %r' % key)
        if query.get('watch') in ('true', '1'):
            raise self._unimplemented('watch requests')
        if segs[0] == 'api':
            group, version, rest = '', segs[1], segs[2:]
        else:
            group = segs[1]
            groups = self._group_versions()
            if len(segs) == 2:
                if method == 'GET' and group in groups and group:
                    return 200, self._group(group)
                raise self._group_missing(group, path)
            version, rest = segs[2], segs[3:]
        if version not in self._group_versions().get(group, []):
            raise self._group_missing(group, path)
        if not rest:
            if method != 'GET':
                raise ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')
            return 200, self._resource_list(group, version)
        namespace = None
        if rest[0] == 'namespaces' and len(rest) >= 3 and (group, version, rest[2]) in self.types \
                and self.types[(group, version, rest[2])].namespaced:
            namespace, rest = rest[1], rest[2:]
        plural, name, sub = rest[0], (rest[1] if len(rest) > 1 else None), (rest[2] if len(rest) > 2 else None)
        if len(rest) > 3:
            raise ApiError(404, 'NotFound', 'the server could not find the requested resource')
        rtype = self.types.get((group, version, plural))
        if rtype is None:
            if (group, plural) in UNIMPLEMENTED_RESOURCES:
                raise self._unimplemented('the resource %s/%s' % (group or 'core', plural))
            raise ApiError(404, 'NotFound', 'the server could not find the requested resource')
        if namespace is not None and not rtype.namespaced:
            raise ApiError(404, 'NotFound', 'the server could not find the requested resource')
        if rtype.namespaced and namespace is None and name is not None:
            raise ApiError(404, 'NotFound', 'the server could not find the requested resource')
        if sub is not None:
            if sub not in rtype.subresources:
                if sub in UNIMPLEMENTED_SUBRESOURCES:
                    raise self._unimplemented('the subresource %s/%s' % (rtype.plural, sub))
                raise ApiError(404, 'NotFound', 'the server could not find the requested resource')
            return self._subresource(method, rtype, namespace, name, sub, query, content_type, body, warnings)
        if name is None:
            if method == 'GET':
                return 200, self._list(rtype, namespace, query)
            if method == 'POST':
                if rtype.namespaced and namespace is None:
                    raise ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')
                obj = self._decode(body, content_type, rtype)
                return 201, self._output(rtype, self._create(rtype, namespace, obj, query, warnings))
            if method == 'DELETE':
                return 200, self._delete_collection(rtype, namespace, query)
            raise ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')
        if method == 'GET':
            return 200, self._output(rtype, self._get(rtype, namespace, name))
        if method == 'PUT':
            obj = self._decode(body, content_type, rtype)
            return 200, self._output(rtype, self._replace(rtype, namespace, name, obj, query, warnings))
        if method == 'PATCH':
            return self._patch(rtype, namespace, name, query, content_type, body, warnings)
        if method == 'DELETE':
            return 200, self._delete(rtype, namespace, name, query, body)
        raise ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')

    def _group_missing(self, group, path):
        if group in UNIMPLEMENTED_GROUPS:
            return self._unimplemented('the API group %s (%s)' % (group, path))
        return ApiError(404, 'NotFound', 'the server could not find the requested resource')

    # --- discovery -----------------------------------------------------------------------------------

    def _group(self, group):
        versions = [{'groupVersion': '%s/%s' % (group, v), 'version': v} for v in self._group_versions()[group]]
        preferred = self._preferred(group)
        return {'kind': 'APIGroup', 'apiVersion': 'v1', 'name': group, 'versions': versions,
                'preferredVersion': {'groupVersion': '%s/%s' % (group, preferred), 'version': preferred}}

    def _group_list(self):
        groups = [self._group(g) for g in self._group_versions() if g]
        for g in groups:
            del g['kind']
            del g['apiVersion']
        return {'kind': 'APIGroupList', 'apiVersion': 'v1', 'groups': groups}

    def _resource_list(self, group, version):
        resources = []
        for rtype in self.types.values():
            if rtype.group == group and rtype.version == version:
                resources.extend(rtype.discovery())
        return {'kind': 'APIResourceList', 'apiVersion': 'v1',
                'groupVersion': '%s/%s' % (group, version) if group else version, 'resources': resources}

    # --- decoding ------------------------------------------------------------------------------------

    def _parse(self, body, content_type):
        if content_type in ('application/yaml', 'application/apply-patch+yaml'):
            if yaml is None:
                raise self._unimplemented('YAML bodies without PyYAML')
            try:
                return yaml.safe_load(body.decode('utf-8'))
            except (ValueError, yaml.YAMLError) as exc:
                raise ApiError(400, 'BadRequest', 'error converting YAML to JSON: %s' % exc)
        if content_type and not content_type.endswith('json'):
            raise ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media '
                           'types include: application/json, application/yaml')
        try:
            return json.loads(body.decode('utf-8') if body else 'null')
        except ValueError as exc:
            raise ApiError(400, 'BadRequest', 'the server rejected our request due to an error in our request: '
                           'json: cannot unmarshal: %s' % exc)

    def _decode(self, body, content_type, rtype):
        if content_type not in ('', 'application/json', 'application/yaml'):
            raise ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media '
                           'types include: application/json, application/yaml, application/vnd.kubernetes.protobuf')
        obj = self._parse(body, content_type)
        self._check_kind(rtype, obj)
        return obj

    def _check_kind(self, rtype, obj):
        if not isinstance(obj, dict):
            raise ApiError(400, 'BadRequest', 'the server rejected our request due to an error in our request: '
                           'the body is not an object')
        if rtype.custom and not obj.get('kind'):
            raise ApiError(400, 'BadRequest', "Object 'Kind' is missing in '%s'" % json.dumps(obj))
        if obj.get('apiVersion') and obj['apiVersion'] != rtype.group_version:
            raise ApiError(400, 'BadRequest', 'the API version in the data (%s) does not match the expected API version (%s)'
                           % (obj['apiVersion'], rtype.group_version))
        if obj.get('kind') and obj['kind'] != rtype.kind:
            raise ApiError(400, 'BadRequest', 'the server rejected our request due to an error in our request: '
                           'kind %s in the body does not match %s' % (obj['kind'], rtype.kind))
        if 'metadata' in obj and not isinstance(obj['metadata'], dict):
            raise ApiError(400, 'BadRequest', 'metadata must be an object')

    # --- read ----------------------------------------------------------------------------------------

    def _get(self, rtype, namespace, name):
        obj = self.objects[rtype.key].get((namespace or '', name))
        if obj is None:
            raise not_found(rtype, name)
        return obj

    def _select(self, rtype, namespace, query):
        try:
            labels = parse_label_selector(query.get('labelSelector', ''))
            supported = {'metadata.name', 'metadata.namespace'} | FIELD_SELECTORS.get(rtype.key, set())
            fields = parse_field_selector(query.get('fieldSelector', ''), supported)
        except SelectorError as exc:
            raise ApiError(400, 'BadRequest', str(exc))
        items = []
        for (ns, _name), obj in sorted(self.objects[rtype.key].items()):
            if namespace is not None and ns != namespace:
                continue
            if not label_matches(labels, obj['metadata'].get('labels')):
                continue
            if not field_matches(fields, obj):
                continue
            items.append(obj)
        return items

    def _list(self, rtype, namespace, query):
        items = self._select(rtype, namespace, query)
        start = 0
        meta = {'resourceVersion': str(self._rv)}
        if query.get('continue'):
            try:
                start = int(query['continue'])
            except ValueError:
                raise ApiError(400, 'BadRequest', 'continue key is not valid')
        limit = int(query['limit']) if query.get('limit') else 0
        if limit > 0:
            if start + limit < len(items):
                meta['continue'] = str(start + limit)
                meta['remainingItemCount'] = len(items) - start - limit
            items = items[start:start + limit]
        else:
            items = items[start:]
        out = []
        for item in items:
            item = self._output(rtype, item)
            if not rtype.custom:
                # built-in lists carry kind/apiVersion on the list only, like the real API
                item.pop('kind', None)
                item.pop('apiVersion', None)
            out.append(item)
        return {'kind': rtype.kind + 'List', 'apiVersion': rtype.group_version, 'metadata': meta, 'items': out}

    # --- write ---------------------------------------------------------------------------------------

    def _create(self, rtype, namespace, obj, query, warnings=None):
        meta = obj.setdefault('metadata', {})
        obj['apiVersion'] = rtype.group_version
        obj['kind'] = rtype.kind
        if rtype.namespaced:
            if meta.get('namespace') and namespace and meta['namespace'] != namespace:
                raise ApiError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request')
            namespace = namespace or meta.get('namespace') or 'default'
            meta['namespace'] = namespace
            ns = self.objects[('', 'namespaces')].get(('', namespace))
            if ns is None:
                raise ApiError(404, 'NotFound', 'namespaces "%s" not found' % namespace, {'name': namespace, 'kind': 'namespaces'})
            if ns['metadata'].get('deletionTimestamp'):
                raise ApiError(403, 'Forbidden', '%s "%s" is forbidden: unable to create new content in namespace %s because '
                               'it is being terminated' % (rtype.resource_name, meta.get('name', ''), namespace),
                               _details(rtype, meta.get('name', '')))
        else:
            meta.pop('namespace', None)
        if not meta.get('name'):
            if meta.get('generateName'):
                meta['name'] = self._generate_name(meta['generateName'])
            else:
                raise invalid(rtype, rtype.kind, '', [cause('metadata.name', 'Required value: name or generateName is required',
                                                            'FieldValueRequired')])
        self._validate_name(rtype, meta['name'])
        if (meta.get('namespace') or '', meta['name']) in self.objects[rtype.key]:
            raise ApiError(409, 'AlreadyExists', '%s "%s" already exists' % (rtype.resource_name, meta['name']),
                           _details(rtype, meta['name']))
        for key in ('uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds',
                    'generation', 'managedFields', 'selfLink'):
            meta.pop(key, None)
        if rtype.status_subresource and rtype.kind not in ('Node',):
            obj.pop('status', None)
        obj = self._admit(rtype, None, obj, warnings)
        meta = obj['metadata']
        meta['uid'] = str(uuid.uuid4())
        meta['creationTimestamp'] = self.timestamp()
        if rtype.generation or rtype.custom:
            meta['generation'] = 1
        if query.get('dryRun') == 'All':
            meta['resourceVersion'] = str(self._rv)
            return obj
        meta['resourceVersion'] = self._next_rv()
        self.objects[rtype.key][self._okey(obj)] = obj
        return obj

    def _validate_name(self, rtype, name):
        if rtype.kind == 'Namespace':
            ok = _DNS_LABEL.match(name) and len(name) <= 63
            what = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                    "and must start and end with an alphanumeric character")
        elif rtype.group == 'rbac.authorization.k8s.io':
            ok, what = name not in ('.', '..') and '/' not in name and '%' not in name, 'may not contain "/" or "%"'
        else:
            ok = _DNS_SUBDOMAIN.match(name) and len(name) <= 253
            what = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                    "and must start and end with an alphanumeric character")
        if not ok:
            raise invalid(rtype, rtype.kind, name, [cause('metadata.name', 'Invalid value: "%s": %s' % (name, what))])

    def _replace(self, rtype, namespace, name, obj, query, warnings, status_only=False):
        existing = self._get(rtype, namespace, name)
        meta = obj.setdefault('metadata', {})
        if meta.get('name') and meta['name'] != name:
            raise ApiError(400, 'BadRequest', 'the name of the object (%s) does not match the name on the URL (%s)' % (meta['name'], name))
        if rtype.namespaced and meta.get('namespace') and meta['namespace'] != namespace:
            raise ApiError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request')
        rv = meta.get('resourceVersion')
        if rv and rv != existing['metadata']['resourceVersion']:
            raise conflict(rtype, name)
        if not rv and rtype.custom:
            raise invalid(rtype, rtype.kind, name, [cause('metadata.resourceVersion',
                                                          'Invalid value: 0x0: must be specified for an update')])
        return self._update(rtype, existing, obj, query, warnings, status_only)

    def _update(self, rtype, existing, obj, query, warnings, status_only=False):
        obj = copy.deepcopy(obj)
        obj['apiVersion'] = rtype.group_version
        obj['kind'] = rtype.kind
        old_meta = existing['metadata']
        meta = obj.setdefault('metadata', {})
        if status_only:
            new = copy.deepcopy(existing)
            if 'status' in obj:
                new['status'] = obj['status']
            else:
                new.pop('status', None)
            obj = new
            meta = obj['metadata']
        elif rtype.status_subresource and rtype.kind != 'Node':
            if 'status' in existing:
                obj['status'] = copy.deepcopy(existing['status'])
            else:
                obj.pop('status', None)
        for key in ('name', 'namespace', 'uid', 'creationTimestamp', 'generation', 'deletionTimestamp',
                    'deletionGracePeriodSeconds', 'resourceVersion'):
            if key in old_meta:
                meta[key] = old_meta[key]
            else:
                meta.pop(key, None)
        for key in ('managedFields', 'selfLink'):
            meta.pop(key, None)
        if not status_only:
            obj = self._admit(rtype, existing, obj, warnings)
            meta = obj['metadata']
        if obj == existing:
            return existing
        spec_old = {k: v for k, v in existing.items() if k not in ('metadata', 'status', 'apiVersion', 'kind')}
        spec_new = {k: v for k, v in obj.items() if k not in ('metadata', 'status', 'apiVersion', 'kind')}
        if 'generation' in meta and spec_old != spec_new:
            meta['generation'] = old_meta.get('generation', 1) + 1
        if query.get('dryRun') == 'All':
            return obj
        meta['resourceVersion'] = self._next_rv()
        if meta.get('deletionTimestamp') and not meta.get('finalizers') and rtype.kind not in ('Pod', 'Namespace'):
            self._remove(rtype, obj)
            return obj
        self.objects[rtype.key][self._okey(obj)] = obj
        return obj

    def _patch(self, rtype, namespace, name, query, content_type, body, warnings, status_only=False):
        kind = PATCH_TYPES.get(content_type)
        accepted = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']
        if not rtype.custom:
            accepted.insert(2, 'application/strategic-merge-patch+json')
        if kind is None or (kind == 'strategic' and rtype.custom):
            raise ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media '
                           'types include: %s' % ', '.join(accepted))
        patch = self._parse(body, content_type)
        if kind == 'apply':
            if not query.get('fieldManager'):
                raise ApiError(400, 'BadRequest', 'PATCH requests with the apply content type require a fieldManager '
                               'query parameter (fieldManager is required for apply requests)')
            self._check_kind(rtype, patch)
            if (namespace or '', name) not in self.objects[rtype.key]:
                patch.setdefault('metadata', {})
                if patch['metadata'].get('name') not in (None, name):
                    raise ApiError(400, 'BadRequest', 'the name of the object (%s) does not match the name on the URL (%s)'
                                   % (patch['metadata']['name'], name))
                patch['metadata']['name'] = name
                return 201, self._output(rtype, self._create(rtype, namespace, patch, query, warnings))
        existing = self._get(rtype, namespace, name)
        try:
            if kind == 'json':
                new = json_patch(existing, patch)
            elif kind == 'merge' or (kind == 'apply' and rtype.custom):
                if not isinstance(patch, dict):
                    raise PatchError(400, 'the server rejected our request due to an error in our request: '
                                     'a merge patch must be an object')
                new = merge_patch(existing, patch)
            else:
                if not isinstance(patch, dict):
                    raise PatchError(400, 'the server rejected our request due to an error in our request: '
                                     'a strategic merge patch must be an object')
                new = strategic_merge_patch(existing, patch)
        except PatchError as exc:
            raise ApiError(exc.code, exc.reason, exc.message)
        if not isinstance(new, dict):
            raise ApiError(422, 'Invalid', 'the patched object is not an object')
        new_meta = new.get('metadata') or {}
        if new_meta.get('name', name) != name:
            raise ApiError(400, 'BadRequest', 'the name of the object (%s) does not match the name on the URL (%s)'
                           % (new_meta.get('name'), name))
        rv = new_meta.get('resourceVersion')
        if rv and rv != existing['metadata']['resourceVersion']:
            raise conflict(rtype, name)
        return 200, self._output(rtype, self._update(rtype, existing, new, query, warnings, status_only))

    def _delete(self, rtype, namespace, name, query, body):
        existing = self._get(rtype, namespace, name)
        options = {}
        if body:
            options = self._parse(body, 'application/json') or {}
        pre = options.get('preconditions') or {}
        if pre.get('uid') and pre['uid'] != existing['metadata']['uid']:
            raise ApiError(409, 'Conflict', 'Precondition failed: UID in precondition: %s, UID in object meta: %s'
                           % (pre['uid'], existing['metadata']['uid']), _details(rtype, name))
        if pre.get('resourceVersion') and pre['resourceVersion'] != existing['metadata']['resourceVersion']:
            raise ApiError(409, 'Conflict', 'Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in '
                           'object meta: %s' % (pre['resourceVersion'], existing['metadata']['resourceVersion']),
                           _details(rtype, name))
        if query.get('dryRun') == 'All':
            return self._output(rtype, existing)
        graceful = rtype.kind in ('Pod', 'Namespace', 'CustomResourceDefinition') or existing['metadata'].get('finalizers')
        if graceful:
            if not existing['metadata'].get('deletionTimestamp'):
                obj = copy.deepcopy(existing)
                obj['metadata']['deletionTimestamp'] = self.timestamp()
                obj['metadata']['deletionGracePeriodSeconds'] = 0 if rtype.kind != 'Pod' else int(
                    query.get('gracePeriodSeconds') or options.get('gracePeriodSeconds') or 30)
                if rtype.kind == 'Namespace':
                    obj.setdefault('status', {})['phase'] = 'Terminating'
                obj['metadata']['resourceVersion'] = self._next_rv()
                self.objects[rtype.key][self._okey(obj)] = obj
                existing = obj
            return self._output(rtype, existing)
        self._remove(rtype, existing)
        if rtype.custom:
            return self._output(rtype, existing)
        return status_object(200, '', '', {'name': name, 'kind': rtype.plural, 'uid': existing['metadata']['uid'],
                                           **({'group': rtype.group} if rtype.group else {})})

    def _delete_collection(self, rtype, namespace, query):
        items = [copy.deepcopy(o) for o in self._select(rtype, namespace, query)]
        if query.get('dryRun') != 'All':
            for obj in items:
                self._delete(rtype, obj['metadata'].get('namespace'), obj['metadata']['name'], query, b'')
        return {'kind': rtype.kind + 'List', 'apiVersion': rtype.group_version,
                'metadata': {'resourceVersion': str(self._rv)}, 'items': [self._output(rtype, o) for o in items]}

    def _remove(self, rtype, obj):
        self.objects[rtype.key].pop(self._okey(obj), None)
        self._rv += 1

    def _subresource(self, method, rtype, namespace, name, sub, query, content_type, body, warnings):
        if sub == 'eviction':
            if method != 'POST':
                raise ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')
            return self._evict(namespace, name, body, content_type)
        if sub == 'status':
            if method == 'GET':
                return 200, self._output(rtype, self._get(rtype, namespace, name))
            if method == 'PUT':
                obj = self._decode(body, content_type, rtype)
                return 200, self._output(rtype, self._replace(rtype, namespace, name, obj, query, warnings, status_only=True))
            if method == 'PATCH':
                return self._patch(rtype, namespace, name, query, content_type, body, warnings, status_only=True)
        raise ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')

    def _evict(self, namespace, name, body, content_type):
        eviction = self._parse(body, content_type or 'application/json')
        if not isinstance(eviction, dict) or eviction.get('kind') not in (None, 'Eviction') \
                or eviction.get('apiVersion') not in (None, 'policy/v1', 'policy/v1beta1'):
            raise ApiError(400, 'BadRequest', 'the server rejected our request due to an error in our request: '
                           'expected a policy/v1 Eviction')
        ev_name = (eviction.get('metadata') or {}).get('name')
        if ev_name != name:
            raise ApiError(400, 'BadRequest', 'name in URL does not match name in Eviction object')
        pods = self.types[('', 'v1', 'pods')]
        self._get(pods, namespace, name)
        self._delete(pods, namespace, name, {}, json.dumps(eviction.get('deleteOptions') or {}).encode())
        return 201, status_object(201, '', '', None)

    # --- admission: defaults and validation per kind --------------------------------------------------

    def _admit(self, rtype, existing, obj, warnings):
        meta = obj['metadata']
        for field in ('labels', 'annotations'):
            value = meta.get(field)
            if value is not None and (not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values())):
                raise invalid(rtype, rtype.kind, meta.get('name'), [cause('metadata.%s' % field,
                                                                          'Invalid value: must be a map of strings')])
        if rtype.custom:
            return self._admit_custom(rtype, obj, warnings)
        hook = getattr(self, '_admit_' + rtype.kind.lower(), None)
        if hook is not None:
            obj = hook(rtype, existing, obj) or obj
        return obj

    def _admit_custom(self, rtype, obj, warnings):
        schema = rtype.schema or {}
        body = dict(obj)
        pruned, dropped = prune(body, schema)
        for field in dropped:
            if warnings is not None:
                warnings.append('unknown field "%s"' % field)
        defaulted = apply_defaults(pruned, schema)
        causes = validate(defaulted, schema)
        if causes:
            raise invalid(rtype, rtype.kind, obj['metadata'].get('name'), causes)
        return defaulted

    def _admit_namespace(self, rtype, existing, obj):
        obj['metadata'].setdefault('labels', {})['kubernetes.io/metadata.name'] = obj['metadata']['name']
        obj.setdefault('spec', {}).setdefault('finalizers', ['kubernetes'])
        if existing is None:
            obj['status'] = {'phase': 'Active'}

    def _admit_pod(self, rtype, existing, obj):
        spec = obj.setdefault('spec', {})
        causes = _pod_spec_causes(spec, 'spec')
        if causes:
            raise invalid(rtype, rtype.kind, obj['metadata']['name'], causes)
        _pod_template_defaults(spec)
        spec.setdefault('serviceAccountName', 'default')
        spec.setdefault('serviceAccount', spec['serviceAccountName'])
        spec.setdefault('enableServiceLinks', True)
        spec.setdefault('priority', 0)
        spec.setdefault('preemptionPolicy', 'PreemptLowerPriority')
        if existing is None:
            if 'status' not in obj:
                obj['status'] = {'phase': 'Pending', 'qosClass': _pod_qos_class(spec)}
        else:
            old_spec = copy.deepcopy(existing.get('spec') or {})
            new_spec = copy.deepcopy(spec)
            for s in (old_spec, new_spec):
                s.pop('activeDeadlineSeconds', None)
                s.pop('tolerations', None)
                for c in s.get('containers') or []:
                    c.pop('image', None)
                for c in s.get('initContainers') or []:
                    c.pop('image', None)
            if old_spec != new_spec:
                raise invalid(rtype, rtype.kind, obj['metadata']['name'], [cause(
                    'spec', 'Forbidden: pod updates may not change fields other than `spec.containers[*].image`, '
                    '`spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions '
                    'to existing tolerations) or `spec.terminationGracePeriodSeconds`', 'FieldValueForbidden')])

    def _workload(self, rtype, existing, obj, replicas):
        spec = obj.setdefault('spec', {})
        name = obj['metadata']['name']
        causes = []
        selector = spec.get('selector')
        template = spec.get('template') or {}
        labels = (template.get('metadata') or {}).get('labels') or {}
        if not selector:
            causes.append(cause('spec.selector', 'Required value', 'FieldValueRequired'))
        else:
            try:
                ok = self._selector_matches(selector, labels)
            except ValueError as exc:
                ok = False
                causes.append(cause('spec.selector', 'Invalid value: %s' % exc))
            if not ok and not causes:
                causes.append(cause('spec.template.metadata.labels', 'Invalid value: %s: `selector` does not match '
                                    'template `labels`' % json.dumps(labels, sort_keys=True)))
        causes.extend(_pod_spec_causes(template.get('spec'), 'spec.template.spec'))
        if existing is not None and existing.get('spec', {}).get('selector') != selector:
            causes.append(cause('spec.selector', 'Invalid value: %s: field is immutable' % json.dumps(selector, sort_keys=True)))
        if causes:
            raise invalid(rtype, rtype.kind, name, causes)
        _pod_template_defaults(template.setdefault('spec', {}))
        template.setdefault('metadata', {}).setdefault('creationTimestamp', None)
        spec.setdefault('revisionHistoryLimit', 10)
        if replicas:
            spec.setdefault('replicas', 1)

    def _admit_deployment(self, rtype, existing, obj):
        self._workload(rtype, existing, obj, True)
        spec = obj['spec']
        spec.setdefault('progressDeadlineSeconds', 600)
        spec.setdefault('strategy', {'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': '25%', 'maxUnavailable': '25%'}})

    def _admit_daemonset(self, rtype, existing, obj):
        self._workload(rtype, existing, obj, False)
        obj['spec'].setdefault('updateStrategy', {'type': 'RollingUpdate',
                                                  'rollingUpdate': {'maxUnavailable': 1, 'maxSurge': 0}})

    def _admit_service(self, rtype, existing, obj):
        spec = obj.setdefault('spec', {})
        spec.setdefault('type', 'ClusterIP')
        spec.setdefault('sessionAffinity', 'None')
        causes = []
        for index, port in enumerate(spec.get('ports') or []):
            if not isinstance(port, dict) or not isinstance(port.get('port'), int):
                causes.append(cause('spec.ports[%d].port' % index, 'Required value', 'FieldValueRequired'))
                continue
            port.setdefault('protocol', 'TCP')
            port.setdefault('targetPort', port['port'])
        if causes:
            raise invalid(rtype, rtype.kind, obj['metadata']['name'], causes)
        if existing is not None and existing['spec'].get('clusterIP'):
            if spec.get('clusterIP') not in (None, existing['spec']['clusterIP']):
                raise invalid(rtype, rtype.kind, obj['metadata']['name'], [cause('spec.clusterIPs[0]', 'Invalid value: %s: field is immutable'
                                                                                 % json.dumps(spec['clusterIP']))])
            spec['clusterIP'] = existing['spec']['clusterIP']
        if not spec.get('clusterIP') and spec['type'] != 'ExternalName':
            self._ip += 1
            spec['clusterIP'] = '10.96.%d.%d' % (self._ip // 250, self._ip % 250 + 1)
        if spec.get('clusterIP') and spec['clusterIP'] != 'None':
            spec.setdefault('clusterIPs', [spec['clusterIP']])
        spec.setdefault('ipFamilies', ['IPv4'])
        spec.setdefault('ipFamilyPolicy', 'SingleStack')
        spec.setdefault('internalTrafficPolicy', 'Cluster')
        obj.setdefault('status', {'loadBalancer': {}})

    def _admit_secret(self, rtype, existing, obj):
        obj.setdefault('type', 'Opaque')
        string_data = obj.pop('stringData', None) or {}
        data = obj.setdefault('data', {}) if string_data else obj.get('data')
        for key, value in string_data.items():
            data[key] = base64.b64encode(value.encode('utf-8')).decode('ascii')

    def _admit_clusterrolebinding(self, rtype, existing, obj):
        self._binding(rtype, existing, obj)

    def _admit_rolebinding(self, rtype, existing, obj):
        self._binding(rtype, existing, obj)

    def _binding(self, rtype, existing, obj):
        ref = obj.get('roleRef')
        if not isinstance(ref, dict) or not ref.get('name') or ref.get('kind') not in ('Role', 'ClusterRole'):
            raise invalid(rtype, rtype.kind, obj['metadata']['name'], [cause('roleRef', 'Required value: roleRef with kind '
                                                                             'Role or ClusterRole and a name', 'FieldValueRequired')])
        if existing is not None and existing.get('roleRef') != ref:
            raise invalid(rtype, rtype.kind, obj['metadata']['name'], [cause('roleRef', 'Invalid value: %s: cannot change roleRef'
                                                                             % json.dumps(ref, sort_keys=True))])

    def _admit_customresourcedefinition(self, rtype, existing, obj):
        spec = obj.setdefault('spec', {})
        name = obj['metadata']['name']
        causes = []
        names = spec.get('names') or {}
        group = spec.get('group')
        if not group:
            causes.append(cause('spec.group', 'Required value', 'FieldValueRequired'))
        if not names.get('plural'):
            causes.append(cause('spec.names.plural', 'Required value', 'FieldValueRequired'))
        if not names.get('kind'):
            causes.append(cause('spec.names.kind', 'Required value', 'FieldValueRequired'))
        if group and names.get('plural') and name != '%s.%s' % (names['plural'], group):
            causes.append(cause('metadata.name', 'Invalid value: "%s": must be spec.names.plural+"."+spec.group' % name))
        if spec.get('scope') not in ('Namespaced', 'Cluster'):
            causes.append(cause('spec.scope', 'Unsupported value: %s: supported values: "Cluster", "Namespaced"'
                                % json.dumps(spec.get('scope')), 'FieldValueNotSupported'))
        versions = spec.get('versions') or []
        if not versions:
            causes.append(cause('spec.versions', 'Invalid value: null: must have exactly one version marked as storage version'))
        elif sum(1 for v in versions if v.get('storage')) != 1:
            causes.append(cause('spec.versions', 'Invalid value: %s: must have exactly one version marked as storage version'
                                % json.dumps(versions)[:200]))
        for index, version in enumerate(versions):
            where = 'spec.versions[%d]' % index
            if not version.get('name'):
                causes.append(cause(where + '.name', 'Required value', 'FieldValueRequired'))
            schema = (version.get('schema') or {}).get('openAPIV3Schema')
            causes.extend(check_structural(schema, where + '.schema.openAPIV3Schema'))
        if existing is not None:
            old = existing['spec']
            if old.get('scope') != spec.get('scope'):
                causes.append(cause('spec.scope', 'Invalid value: %s: field is immutable' % json.dumps(spec.get('scope'))))
            if old.get('group') != group:
                causes.append(cause('spec.group', 'Invalid value: %s: field is immutable' % json.dumps(group)))
        if causes:
            raise invalid(rtype, rtype.kind, name, causes)
        names.setdefault('singular', names['kind'].lower())
        names.setdefault('listKind', names['kind'] + 'List')
        spec.setdefault('conversion', {'strategy': 'None'})
        for version in versions:
            version.setdefault('served', True)

    @staticmethod
    def _selector_matches(selector, labels):
        for key, value in (selector.get('matchLabels') or {}).items():
            if labels.get(key) != value:
                return False
        for expr in selector.get('matchExpressions') or []:
            key, op, values = expr.get('key'), expr.get('operator'), expr.get('values') or []
            if op == 'In':
                ok = labels.get(key) in values
            elif op == 'NotIn':
                ok = key not in labels or labels[key] not in values
            elif op == 'Exists':
                ok = key in labels
            elif op == 'DoesNotExist':
                ok = key not in labels
            else:
                raise ValueError('%r is not a valid label selector operator' % op)
            if not ok:
                return False
        return bool(selector.get('matchLabels') or selector.get('matchExpressions'))

    # --- the simulated control plane --------------------------------------------------------------------

    def _store_status(self, rtype, obj, status):
        if obj.get('status') == status:
            return
        obj['status'] = status
        obj['metadata']['resourceVersion'] = self._next_rv()

    def _reconcile(self):
        # Every controller action follows from a write; nothing changed since the last pass -> nothing to do.
        # A pass that wrote (statuses, pods) runs again until the simulated cluster is steady.
        for _pass in range(10):
            if self._reconciled_rv == self._rv:
                return
            self._reconciled_rv = self._rv
            self._reconcile_once()

    def _reconcile_once(self):
        self._reconcile_crds()
        self._reconcile_deletions()
        self._collect_garbage()
        self._reconcile_daemonsets()
        self._kubelet()
        self._daemonset_statuses()
        self._reconcile_deployments()

    def _reconcile_crds(self):
        crd_type = self.types[('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')]
        served = {}
        for crd in list(self.objects[crd_type.key].values()):
            spec = crd['spec']
            if crd['metadata'].get('deletionTimestamp'):
                self._remove_custom(spec)
                self._remove(crd_type, crd)
                continue
            names = spec['names']
            status = {
                'acceptedNames': {k: names[k] for k in ('plural', 'singular', 'kind', 'listKind', 'shortNames', 'categories')
                                  if k in names},
                'conditions': [
                    {'type': 'NamesAccepted', 'status': 'True', 'reason': 'NoConflicts', 'message': 'no conflicts found',
                     'lastTransitionTime': crd['metadata']['creationTimestamp']},
                    {'type': 'Established', 'status': 'True', 'reason': 'InitialNamesAccepted',
                     'message': 'the initial names have been accepted', 'lastTransitionTime': crd['metadata']['creationTimestamp']},
                ],
                'storedVersions': [v['name'] for v in spec['versions'] if v.get('storage')],
            }
            self._store_status(crd_type, crd, status)
            for version in spec['versions']:
                if not version.get('served', True):
                    continue
                subs = {}
                if 'status' in (version.get('subresources') or {}):
                    subs['status'] = {'kind': names['kind'], 'verbs': ['get', 'patch', 'update']}
                rtype = ResourceType(spec['group'], version['name'], names['plural'], names['kind'],
                                     spec['scope'] == 'Namespaced', names.get('shortNames') or (),
                                     names.get('singular'), subs, custom=True,
                                     schema=(version.get('schema') or {}).get('openAPIV3Schema'),
                                     categories=names.get('categories') or ())
                served[(rtype.group, rtype.version, rtype.plural)] = rtype
        for key in [k for k, t in self.types.items() if t.custom and k not in served]:
            del self.types[key]
        for key, rtype in served.items():
            self.types[key] = rtype
            self.objects.setdefault(rtype.key, {})

    def _remove_custom(self, spec):
        self.objects.pop((spec['group'], spec['names']['plural']), None)

    def _reconcile_deletions(self):
        ns_type = self.types[('', 'v1', 'namespaces')]
        for ns in list(self.objects[ns_type.key].values()):
            if ns['metadata'].get('deletionTimestamp'):
                name = ns['metadata']['name']
                for rtype in list(self.types.values()):
                    if rtype.namespaced:
                        for key in [k for k in self.objects.get(rtype.key, {}) if k[0] == name]:
                            del self.objects[rtype.key][key]
                self._remove(ns_type, ns)
        for rtype in list(self.types.values()):
            for obj in list(self.objects.get(rtype.key, {}).values()):
                meta = obj['metadata']
                if meta.get('deletionTimestamp') and not meta.get('finalizers') and rtype.kind != 'Namespace' \
                        and rtype.kind != 'CustomResourceDefinition':
                    # the simulated kubelet confirms pod termination at once
                    self._remove(rtype, obj)

    def _collect_garbage(self):
        uids = set()
        for objs in self.objects.values():
            for obj in objs.values():
                uids.add(obj['metadata']['uid'])
        for rtype in list(self.types.values()):
            for obj in list(self.objects.get(rtype.key, {}).values()):
                refs = obj['metadata'].get('ownerReferences') or []
                if refs and not any(ref.get('uid') in uids for ref in refs):
                    self._remove(rtype, obj)

    def _is_never_ready(self, namespace, name):
        return '*' in self.never_ready or '%s/%s' % (namespace, name) in self.never_ready

    def _condition(self, old_status, ctype, status, reason, message):
        for cond in (old_status or {}).get('conditions') or []:
            if cond.get('type') == ctype and cond.get('status') == status and cond.get('reason') == reason:
                return cond
        now = self.timestamp()
        return {'type': ctype, 'status': status, 'reason': reason, 'message': message,
                'lastUpdateTime': now, 'lastTransitionTime': now}

    def _reconcile_deployments(self):
        rtype = self.types[('apps', 'v1', 'deployments')]
        for obj in list(self.objects[rtype.key].values()):
            meta, spec, old = obj['metadata'], obj['spec'], obj.get('status') or {}
            replicas = spec.get('replicas', 1)
            rs_name = '%s-%s' % (meta['name'], _hash(spec.get('template'))[:10])
            if self._is_never_ready(meta['namespace'], meta['name']) and replicas:
                status = {'observedGeneration': meta['generation'], 'replicas': replicas, 'updatedReplicas': replicas,
                          'unavailableReplicas': replicas, 'conditions': [
                              self._condition(old, 'Available', 'False', 'MinimumReplicasUnavailable',
                                              'Deployment does not have minimum availability.'),
                              self._condition(old, 'Progressing', 'True', 'ReplicaSetUpdated',
                                              'ReplicaSet "%s" is progressing.' % rs_name)]}
            else:
                status = {'observedGeneration': meta['generation'], 'conditions': [
                    self._condition(old, 'Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
                    self._condition(old, 'Progressing', 'True', 'NewReplicaSetAvailable',
                                    'ReplicaSet "%s" has successfully progressed.' % rs_name)]}
                if replicas:
                    status.update({'replicas': replicas, 'updatedReplicas': replicas, 'readyReplicas': replicas,
                                   'availableReplicas': replicas})
            self._store_status(rtype, obj, status)

    def _node_eligible(self, node, pod_spec):
        labels = node['metadata'].get('labels') or {}
        for key, value in (pod_spec.get('nodeSelector') or {}).items():
            if labels.get(key) != value:
                return False
        tolerations = pod_spec.get('tolerations') or []
        for taint in (node.get('spec') or {}).get('taints') or []:
            if taint.get('effect') not in ('NoSchedule', 'NoExecute'):
                continue
            if taint.get('key') == 'node.kubernetes.io/unschedulable':
                continue  # daemon set pods tolerate cordoned nodes
            tolerated = False
            for tol in tolerations:
                if tol.get('effect') and tol['effect'] != taint.get('effect'):
                    continue
                if tol.get('operator') == 'Exists' and (not tol.get('key') or tol['key'] == taint.get('key')):
                    tolerated = True
                elif tol.get('key') == taint.get('key') and tol.get('value', '') == taint.get('value', ''):
                    tolerated = True
            if not tolerated:
                return False
        return True

    def _reconcile_daemonsets(self):
        rtype = self.types[('apps', 'v1', 'daemonsets')]
        pods_type = self.types[('', 'v1', 'pods')]
        nodes = list(self.objects[('', 'nodes')].values())
        for ds in list(self.objects[rtype.key].values()):
            meta, spec = ds['metadata'], ds['spec']
            if meta.get('deletionTimestamp'):
                continue
            template = spec['template']
            revision = _hash(template)[:10]
            owned = [p for p in self.objects[pods_type.key].values()
                     if any(r.get('uid') == meta['uid'] for r in p['metadata'].get('ownerReferences') or [])]
            eligible = [n for n in nodes if self._node_eligible(n, template.get('spec') or {})]
            eligible_names = set(n['metadata']['name'] for n in eligible)
            by_node = {}
            for pod in owned:
                node = pod['spec'].get('nodeName')
                stale = (pod['metadata'].get('labels') or {}).get('controller-revision-hash') != revision
                if node not in eligible_names or stale or node in by_node:
                    self._remove(pods_type, pod)
                else:
                    by_node[node] = pod
            for node in eligible:
                node_name = node['metadata']['name']
                if node_name in by_node:
                    continue
                pod_meta = copy.deepcopy(template.get('metadata') or {})
                pod_meta.pop('creationTimestamp', None)
                pod_meta['generateName'] = meta['name'] + '-'
                pod_meta['namespace'] = meta['namespace']
                pod_meta.setdefault('labels', {}).update({'controller-revision-hash': revision,
                                                          'pod-template-generation': str(meta['generation'])})
                pod_meta['ownerReferences'] = [{'apiVersion': 'apps/v1', 'kind': 'DaemonSet', 'name': meta['name'],
                                                'uid': meta['uid'], 'controller': True, 'blockOwnerDeletion': True}]
                pod_spec = copy.deepcopy(template.get('spec') or {})
                pod_spec['nodeName'] = node_name
                pod_spec.setdefault('tolerations', []).extend([
                    {'key': 'node.kubernetes.io/not-ready', 'operator': 'Exists', 'effect': 'NoExecute'},
                    {'key': 'node.kubernetes.io/unreachable', 'operator': 'Exists', 'effect': 'NoExecute'},
                    {'key': 'node.kubernetes.io/unschedulable', 'operator': 'Exists', 'effect': 'NoSchedule'}])
                by_node[node_name] = self._create(pods_type, meta['namespace'],
                                                  {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': pod_meta, 'spec': pod_spec}, {})

    def _daemonset_statuses(self):
        rtype = self.types[('apps', 'v1', 'daemonsets')]
        pods = self.objects[('', 'pods')].values()
        nodes = list(self.objects[('', 'nodes')].values())
        for ds in list(self.objects[rtype.key].values()):
            meta = ds['metadata']
            revision = _hash(ds['spec']['template'])[:10]
            owned = [p for p in pods if any(r.get('uid') == meta['uid'] for r in p['metadata'].get('ownerReferences') or [])]
            desired = len([n for n in nodes if self._node_eligible(n, ds['spec']['template'].get('spec') or {})])
            ready = len([p for p in owned if _pod_ready(p)])
            updated = len([p for p in owned if (p['metadata'].get('labels') or {}).get('controller-revision-hash') == revision])
            status = {'currentNumberScheduled': len(owned), 'desiredNumberScheduled': desired, 'numberMisscheduled': 0,
                      'numberReady': ready, 'observedGeneration': meta['generation'], 'updatedNumberScheduled': updated}
            if ready:
                status['numberAvailable'] = ready
            if desired - ready > 0:
                status['numberUnavailable'] = desired - ready
            self._store_status(rtype, ds, status)

    def _kubelet(self):
        pods_type = self.types[('', 'v1', 'pods')]
        nodes = self.objects[('', 'nodes')]
        for pod in list(self.objects[pods_type.key].values()):
            meta, spec = pod['metadata'], pod['spec']
            status = pod.get('status') or {}
            node = nodes.get(('', spec.get('nodeName') or ''))
            if node is None or meta.get('deletionTimestamp') or status.get('phase') not in (None, 'Pending', 'Running'):
                continue
            node_ready = any(c.get('type') == 'Ready' and c.get('status') == 'True'
                             for c in (node.get('status') or {}).get('conditions') or [])
            if not node_ready:
                continue
            owner = next((r for r in meta.get('ownerReferences') or [] if r.get('controller')), None)
            ready = not self._is_never_ready(meta['namespace'], meta['name']) and not (
                owner is not None and self._is_never_ready(meta['namespace'], owner.get('name')))
            started = status.get('startTime') or self.timestamp()
            new = dict(status)
            new.update({
                'phase': 'Running', 'hostIP': _node_ip(node), 'podIP': '10.244.0.%d' % (int(_hash(meta['uid'])[:4], 16) % 250 + 2),
                'startTime': started, 'qosClass': status.get('qosClass') or _pod_qos_class(spec),
                'conditions': [
                    {'type': 'Initialized', 'status': 'True', 'lastTransitionTime': started},
                    {'type': 'Ready', 'status': 'True' if ready else 'False', 'lastTransitionTime': started},
                    {'type': 'ContainersReady', 'status': 'True' if ready else 'False', 'lastTransitionTime': started},
                    {'type': 'PodScheduled', 'status': 'True', 'lastTransitionTime': started}],
                'containerStatuses': [
                    {'name': c['name'], 'image': c.get('image'), 'imageID': '', 'ready': ready, 'started': True,
                     'restartCount': 0, 'containerID': 'containerd://%s' % _hash(meta['uid'] + c['name']),
                     'state': {'running': {'startedAt': started}}}
                    for c in spec.get('containers') or []],
            })
            self._store_status(pods_type, pod, new)


def _pod_ready(pod):
    return any(c.get('type') == 'Ready' and c.get('status') == 'True' for c in (pod.get('status') or {}).get('conditions') or [])


def _node_ip(node):
    for address in (node.get('status') or {}).get('addresses') or []:
        if address.get('type') == 'InternalIP':
            return address.get('address')
    return ''


def _hash(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode('utf-8')).hexdigest()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    standin = None

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        if self.standin is not None and self.standin.verbose:
            BaseHTTPRequestHandler.log_message(self, format, *args)

    def _serve(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else b''
        try:
            code, result, extra = self.standin.handle(self.command, self.path, self.headers, body)
        except Exception as exc:  # a stand-in bug must be loud, not a hang
            self.standin.unhandled.append('%s %s: stand-in crashed: %r' % (self.command, self.path, exc))
            code, result, extra = 500, status_object(500, 'InternalError', 'k8s stand-in crashed: %r' % exc), {}
        if isinstance(result, str):
            data, ctype = result.encode('utf-8'), 'text/plain; charset=utf-8'
        else:
            data, ctype = json.dumps(result).encode('utf-8'), 'application/json'
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(data)))
        self.send_header('Cache-Control', 'no-cache, private')
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve


def random_token():
    return ''.join(random.choice(string.ascii_lowercase + string.digits) for _index in range(32))
