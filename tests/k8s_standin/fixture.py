# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pytest fixtures for the Kubernetes API stand-in.

Import them into a test module (``from ...tests.k8s_standin.fixture import k8s_standin  # noqa: F401``)
or a conftest. ``k8s_standin`` starts a fresh server per test, writes a kubeconfig (with a bearer
token, so authentication is exercised) and, at teardown, fails the test if the server was sent a
request it does not implement.
"""
from __future__ import annotations

import contextlib
import os
import tempfile

import pytest

from .server import StandIn, random_token


@contextlib.contextmanager
def running_standin(directory=None, token=True, nodes=(), **kwargs):
    """Start a stand-in, write ``<directory>/kubeconfig``; yield the StandIn (``.kubeconfig_path`` set)."""
    owned = directory is None
    if owned:
        directory = tempfile.mkdtemp(prefix='k8s-standin-')
    standin = StandIn(token=random_token() if token is True else (token or None), nodes=nodes, **kwargs)
    standin.start()
    try:
        standin.kubeconfig_path = standin.write_kubeconfig(os.path.join(str(directory), 'kubeconfig'))
        yield standin
    finally:
        standin.stop()
        if owned:
            import shutil
            shutil.rmtree(directory, ignore_errors=True)


def assert_all_handled(standin):
    assert not standin.unhandled, 'the Kubernetes API stand-in got requests it does not implement: %s' % standin.unhandled


@pytest.fixture
def k8s_standin(tmp_path):
    """A running stand-in with two Ready nodes (node-1, node-2) and a kubeconfig at ``.kubeconfig_path``."""
    with running_standin(tmp_path, nodes=('node-1', 'node-2')) as standin:
        yield standin
        assert_all_handled(standin)


@pytest.fixture
def k8s_client(k8s_standin):
    """A ``kubernetes.client.ApiClient`` configured from the stand-in's kubeconfig."""
    kubernetes = pytest.importorskip('kubernetes')
    config = kubernetes.client.Configuration()
    kubernetes.config.load_kube_config(config_file=k8s_standin.kubeconfig_path, client_configuration=config)
    client = kubernetes.client.ApiClient(config)
    yield client
    client.close()
