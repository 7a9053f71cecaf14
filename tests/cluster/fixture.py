# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pytest fixtures for the real test control plane.

    from ansible_collections.numaops.colocation.tests.cluster.fixture import k8s_cluster, k8s_client  # noqa: F401
    def test_x(k8s_cluster, k8s_client): ...

One control plane serves the whole pytest session (started on first use, about 10-20 s on two cores); after
each test ``k8s_cluster`` puts it back: the namespaces, CRDs, cluster roles and nodes the test created are
deleted (and their deletion waited for), changed nodes are recreated Ready. Every process is stopped by its
process group id when the session ends, and dies with the pytest process if that is killed
(PR_SET_PDEATHSIG). ``running_cluster()`` starts a private one (a context manager).
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import tempfile
import time

import pytest

from . import controlplane, objects
from ansible_collections.numaops.colocation.tests.unit import unit_stage

DEFAULT_NODES = ('node-1', 'node-2')
_SHARED = {}


def _die_with_parent():
    """preexec_fn: the child gets SIGKILL when the process that started it dies (Linux prctl). SIGKILL, not
    SIGTERM: a kube-apiserver whose etcd went down at the same moment was seen to linger for minutes in its
    graceful shutdown."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Cluster:
    """What a test sees of the control plane (the same surface the API stand-in's fixture had).

    ``kubeconfig_path`` (admin, bearer token), ``token``, ``url``, ``seed(obj)``, ``add_node(name)``, ``set_never_ready('ns/name')``,
    ``namespace(name)``, ``service_account_kubeconfig(namespace, name)`` (a ServiceAccount's token, from the
    TokenRequest API), ``client`` (a kubernetes.client.ApiClient)."""

    def __init__(self, plane):
        self.plane = plane
        self.kubeconfig_path = plane.kubeconfig_path
        self.token = plane.admin_token
        self.url = plane.server
        self.ca_path = plane.ca.cert_path if hasattr(plane, 'ca') else None
        self.client = plane.api_client()
        self.baseline = objects.snapshot(self.client)
        self.audit_offset = 0
        self.mark()

    # --- what the tests' identities sent, from kube-apiserver's audit log ----------------------------

    def mark(self):
        """Forget the requests so far (``requests`` starts from here)."""
        self.audit_offset = self._settled_size()

    def _settled_size(self):
        path = self.plane.audit_log_path
        size = -1
        while True:
            current = os.path.getsize(path) if os.path.exists(path) else 0
            if current == size:
                return current
            size = current
            time.sleep(0.25)

    @property
    def requests(self):
        """The requests the admin identity sent since ``mark()`` (kube-apiserver's audit
        log, level Metadata): dicts with method, path, query, verb, user, status. ``requests[:] = []`` marks."""
        end = self._settled_size()
        return _Requests(self, controlplane.audit_requests(self.plane.audit_log_path, self.audit_offset, end))

    def seed(self, obj, keep_status=True):
        return objects.seed(self.client, obj, keep_status=keep_status)

    def add_node(self, name, ready=True, labels=None, unschedulable=False, taints=None):
        return objects.add_node(self.client, name, ready=ready, labels=labels, unschedulable=unschedulable,
                                taints=taints).to_dict()

    def namespace(self, name, labels=None):
        objects.create_namespace(self.client, name, labels)
        return name

    def service_account_kubeconfig(self, namespace, name):
        """A kubeconfig holding a token of ServiceAccount ``namespace/name`` (created when missing), issued by
        kube-apiserver's TokenRequest API as a pod's projected token is: the identity
        ``system:serviceaccount:<namespace>:<name>``, which RBAC refuses until a test binds it a role."""
        import kubernetes  # pylint: disable=import-outside-toplevel
        core = kubernetes.client.CoreV1Api(self.client)
        try:
            core.create_namespaced_service_account(namespace, {'metadata': {'name': name}})
        except kubernetes.client.ApiException as exc:
            if exc.status != 409:
                raise
        token = core.create_namespaced_service_account_token(
            name, namespace, {'spec': {'expirationSeconds': 3600}}).status.token
        path = os.path.join(self.plane.directory, 'sa-%s-%s.kubeconfig' % (namespace, name))
        return controlplane.write_json(path, controlplane.kubeconfig(self.url, self.ca_path, {'token': token}, namespace))

    def set_never_ready(self, *workloads):
        """Workloads (``namespace/name`` of a Deployment or DaemonSet) whose pods never become ready."""
        self.plane.set_never_ready(workloads)

    def reset(self):
        if self.plane.never_ready:
            self.plane.set_never_ready(())
        objects.restore(self.client, self.baseline, self.plane.initial_nodes)

    def close(self):
        self.client.close()


class _Requests(list):
    """A list of requests; assigning ``[]`` to the whole of it marks the log (as clearing a request log does)."""

    def __init__(self, cluster, entries):
        super().__init__(entries)
        self._cluster = cluster

    def __setitem__(self, key, value):
        if key == slice(None, None, None) and not value:
            self._cluster.mark()
        super().__setitem__(key, value)


def writes(cluster):
    """The write requests (POST, PUT, PATCH, DELETE) the tests' identities sent since the last mark."""
    return [r for r in cluster.requests if r['method'] in ('POST', 'PUT', 'PATCH', 'DELETE')]


def _start(directory, nodes, never_ready=(), die_with_parent=True):
    plane = controlplane.ControlPlane(directory, nodes=nodes, never_ready=never_ready)
    if die_with_parent:
        plane.preexec_fn = _die_with_parent
    return plane.start()


def shared_control_plane():
    """The session's control plane (started on first use, stopped at exit)."""
    if unit_stage.UNDER_ANSIBLE_TEST_UNITS:
        # ansible-test units runs tests in parallel workers: one control plane each would double the suite's time
        # on two cores; the unit stage runs these tests (tests/unit/unit_stage.py skips them before they get here)
        pytest.skip(unit_stage.reason('a test on the real control plane of tests/cluster'))
    if 'failed' in _SHARED:  # one attempt per session: the next tests fail at once with the same reason
        raise controlplane.ControlPlaneError(_SHARED['failed'])
    if 'plane' not in _SHARED:
        directory = tempfile.mkdtemp(prefix='numaops-k8s-')
        try:
            plane = _start(directory, DEFAULT_NODES)
        except (controlplane.ControlPlaneError, AssertionError) as exc:
            _SHARED['failed'] = str(exc)
            shutil.rmtree(directory, ignore_errors=True)
            raise controlplane.ControlPlaneError(str(exc))
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise

        def stop():
            plane.stop()
            if not os.environ.get('NUMAOPS_KEEP_CLUSTER_DIR'):
                shutil.rmtree(directory, ignore_errors=True)
        atexit.register(stop)
        _SHARED['plane'] = plane
        _SHARED['cluster'] = Cluster(plane)
    return _SHARED['cluster']


@contextlib.contextmanager
def shared_cluster():
    """The session's control plane for a block (e.g. a module-scoped fixture); put back afterwards."""
    cluster = shared_control_plane()
    cluster.mark()
    try:
        yield cluster
    finally:
        cluster.reset()


@contextlib.contextmanager
def running_cluster(directory=None, nodes=DEFAULT_NODES, never_ready=()):
    """A private control plane for the block; yields a :class:`Cluster`."""
    owned = directory is None
    directory = tempfile.mkdtemp(prefix='numaops-k8s-') if owned else str(directory)
    plane = None
    cluster = None
    try:
        plane = _start(directory, nodes, never_ready)
        cluster = Cluster(plane)
        yield cluster
    finally:
        if cluster is not None:
            cluster.close()
        if plane is not None:
            plane.stop()
        if owned:
            shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def k8s_cluster():
    """The session's control plane with two Ready kwok nodes (node-1, node-2), put back after the test."""
    try:
        cluster = shared_control_plane()
    except controlplane.ControlPlaneError as exc:
        pytest.fail('the test control plane could not start: %s' % exc, pytrace=False)
    cluster.mark()
    try:
        yield cluster
    finally:
        cluster.reset()


@pytest.fixture
def k8s_client(k8s_cluster):
    """A ``kubernetes.client.ApiClient`` with the admin kubeconfig."""
    kubernetes = pytest.importorskip('kubernetes')
    config = kubernetes.client.Configuration()
    kubernetes.config.load_kube_config(config_file=k8s_cluster.kubeconfig_path, client_configuration=config)
    client = kubernetes.client.ApiClient(config)
    yield client
    client.close()


@pytest.fixture
def client_requests(monkeypatch):
    """The requests this process's kubernetes client sends from here on (method, url, content_type): what
    the audit log does not keep, e.g. the patch content type our modules chose. Taken where the client hands
    them to urllib3, after its last word on the headers (kubernetes.client.rest turns a JSON patch whose body
    is not a list into a strategic merge patch)."""
    pytest.importorskip('kubernetes.client.rest')
    urllib3 = pytest.importorskip('urllib3')
    sent = []
    original = urllib3.PoolManager.request

    def request(self, method, url, *args, **kwargs):
        headers = kwargs.get('headers') or {}
        sent.append({'method': method, 'url': url, 'content_type': headers.get('Content-Type')})
        return original(self, method, url, *args, **kwargs)
    monkeypatch.setattr(urllib3.PoolManager, 'request', request)
    return sent
