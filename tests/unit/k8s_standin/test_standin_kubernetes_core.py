# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubernetes.core's modules (k8s with apply/server-side apply/wait, k8s_info, k8s_drain) against the stand-in."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.numaops.colocation.tests.k8s_standin.fixture import assert_all_handled, running_standin

HERE = os.path.dirname(os.path.abspath(__file__))


def kubernetes_core_available():
    try:
        import ansible_collections.kubernetes.core  # noqa: F401  pylint: disable=unused-import
    except ImportError:
        return False
    return shutil.which('ansible-playbook') is not None


@pytest.mark.skipif(not kubernetes_core_available(),
                    reason='kubernetes.core and ansible-playbook are not installed in this environment '
                           '(they are in the suite venv: scripts/test.sh unit)')
def test_kubernetes_core_modules(tmp_path):
    with running_standin(tmp_path, nodes=('node-1', 'node-2')) as standin:
        standin.set_never_ready('standin-stuck/stuck')
        env = dict(os.environ, K8S_AUTH_KUBECONFIG=standin.kubeconfig_path, ANSIBLE_NOCOLOR='1',
                   ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_LOCALHOST_WARNING='0')
        env.pop('KUBECONFIG', None)
        run = subprocess.run(['ansible-playbook', '-i', 'localhost,', '-c', 'local',
                              os.path.join(HERE, 'playbooks', 'kubernetes_core.yml')],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                             timeout=600, check=False)
        assert run.returncode == 0, run.stdout[-6000:]
        assert_all_handled(standin)
