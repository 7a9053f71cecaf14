# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/cluster without kwok (``start --no-kwok``): the control plane of a scenario whose nodes are real kubelets
starts no kwok, and refuses what only kwok could give (kwok nodes, never-ready workloads)."""
from __future__ import annotations

import json

import pytest

from ansible_collections.numaops.colocation.tests.cluster import __main__ as cli
from ansible_collections.numaops.colocation.tests.cluster import controlplane


def _started(monkeypatch, plane):
    calls = []
    for name in ('_prepare', 'start_etcd', 'start_apiserver', 'write_state', 'start_controller_manager',
                 'start_scheduler', 'start_kwok'):
        monkeypatch.setattr(plane, name, lambda name=name: calls.append(name))

    class Client:
        def close(self):
            calls.append('close')
    monkeypatch.setattr(plane, 'api_client', Client)
    monkeypatch.setattr('ansible_collections.numaops.colocation.tests.cluster.objects.wait_for', lambda *a, **k: None)
    plane.start()
    return calls


def test_without_kwok_no_kwok_process_starts(tmp_path, monkeypatch):
    calls = _started(monkeypatch, controlplane.ControlPlane(str(tmp_path), nodes=(), kwok=False))
    assert 'start_kwok' not in calls
    assert calls.index('start_scheduler') < calls.index('close')


def test_with_kwok_it_starts(tmp_path, monkeypatch):
    assert 'start_kwok' in _started(monkeypatch, controlplane.ControlPlane(str(tmp_path), nodes=()))


@pytest.mark.parametrize('kwargs, named', [
    (dict(nodes=('node-1',)), 'node-1'),
    (dict(nodes=(), never_ready=('volcano-system/volcano-agent',)), 'volcano-system/volcano-agent'),
])
def test_without_kwok_kwok_nodes_and_never_ready_workloads_are_refused(tmp_path, kwargs, named):
    with pytest.raises(controlplane.ControlPlaneError, match='without kwok.*%s' % named.replace('/', '.')):
        controlplane.ControlPlane(str(tmp_path), kwok=False, **kwargs)


def test_the_state_keeps_it_and_set_never_ready_refuses(tmp_path):
    plane = controlplane.ControlPlane(str(tmp_path), nodes=(), kwok=False)
    plane.write_state()
    with open(str(tmp_path / 'state.json')) as handle:
        state = json.load(handle)
    assert state['kwok'] is False
    again = controlplane.ControlPlane.attach(state)
    with pytest.raises(controlplane.ControlPlaneError, match='runs without kwok'):
        again.set_never_ready(['volcano-system/volcano-agent'])


def test_the_command_line_refuses_kwok_nodes_without_kwok(tmp_path):
    with pytest.raises(SystemExit, match='without kwok'):
        cli.main(['start', '--dir', str(tmp_path / 'k8s'), '--nodes', '1', '--no-kwok'])
