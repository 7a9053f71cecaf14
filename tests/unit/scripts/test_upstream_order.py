# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/upstream.py: a component that takes compiled packages from another one's build (kubelet-1.37 from
kubernetes, nfd from kubelet-1.35) is never built beside it: two go builds at once compile what they share twice."""
from __future__ import annotations

import importlib.util
import os
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_SPEC = importlib.util.spec_from_file_location('upstream', os.path.join(ROOT, 'scripts', 'upstream.py'))
upstream = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(upstream)


def test_shared_builds_are_named():
    comps = upstream.components()
    assert upstream.shares_with(comps['kubelet-1.37']) == 'kubernetes'
    assert upstream.shares_with(comps['kubeadm']) == 'kubernetes'
    assert upstream.shares_with(comps['nfd']) == 'kubelet-1.35'
    assert upstream.shares_with(comps['kubernetes']) is None
    assert upstream.shares_with(comps['kubelet-1.31']) is None


def _record_builds(monkeypatch, tmp_path):
    """build() replaced by one that records when each component started and ended."""
    spans = {}
    lock = threading.Lock()

    def fake_build(name, spec):
        start = time.monotonic()
        time.sleep(0.05)
        with lock:
            spans[name] = (start, time.monotonic())
        return str(tmp_path / name), 1.0

    monkeypatch.setattr(upstream, 'build', fake_build)
    monkeypatch.setattr(upstream, 'out_dir', lambda name, spec: str(tmp_path / 'none' / name))
    return spans


def test_the_upstream_stage_builds_kubelet_after_kubernetes(monkeypatch, tmp_path):
    spans = _record_builds(monkeypatch, tmp_path)
    todo = ['kubernetes', 'kubeadm', 'kubelet-1.37', 'kubelet-1.31', 'volcano', 'containerd', 'etcd', 'kwok']
    results = upstream.build_all(upstream.components(), todo, 2)
    assert sorted(n for n, _secs in results) == sorted(todo)
    assert spans['kubelet-1.37'][0] >= spans['kubernetes'][1]
    assert spans['kubeadm'][0] >= spans['kubernetes'][1]
    # the others fill the second worker meanwhile: those two are queued last
    assert [n for n, _secs in results][-2:] == ['kubeadm', 'kubelet-1.37']


def test_the_kubelets_stage_builds_nfd_after_the_kubelet_of_its_release(monkeypatch, tmp_path):
    spans = _record_builds(monkeypatch, tmp_path)
    upstream.build_all(upstream.components(), ['kubelet-1.35', 'kubelet-1.38', 'nfd'], 2)
    assert spans['nfd'][0] >= spans['kubelet-1.35'][1]


def test_a_component_whose_partner_is_not_built_now_does_not_wait(monkeypatch, tmp_path):
    spans = _record_builds(monkeypatch, tmp_path)
    upstream.build_all(upstream.components(), ['nfd', 'etcd'], 2)
    assert set(spans) == {'nfd', 'etcd'}
