# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every entry-point playbook through ansible-runner, the engine AWX runs jobs with.

The private data directory is laid out the way AWX lays it out for a job: ``project/`` (the checked-out
project), ``inventory/hosts``, ``env/extravars`` (survey answers and extra vars), ``env/envvars`` (what
credentials inject, e.g. K8S_AUTH_KUBECONFIG from the kubeconfig credential type), ``env/settings`` and,
for a job of type Check, ``env/cmdline`` with ``--check``. The nodes are the sandbox nodes of
examples/sandbox (a fresh copy of the node tree), the cluster is the Kubernetes API stand-in
(tests/k8s_standin) with pods bound to the sandbox node and the cgroup v2 stand-in tree built for them.

Checked per job: runner status and rc, no failed or unreachable event, the ``playbook_on_stats`` changed
counts (first runs change something, ``site`` afterwards changes nothing on any host) and the
``set_stats`` artifacts of the memory QoS summary.
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import sys

import pytest

if os.environ.get('ANSIBLE_CONTROLLER_MIN_PYTHON_VERSION'):
    # set by ansible-test units: scripts/test.sh runs this end-to-end test once, in its plain pytest stage
    pytest.skip('the AWX job test runs in the plain pytest stage only', allow_module_level=True)
ansible_runner = pytest.importorskip('ansible_runner')
yaml = pytest.importorskip('yaml')
pytest.importorskip('kubernetes')

# pylint: disable=wrong-import-position
import ansible_collections  # noqa: E402
from ansible_collections.numaops.colocation.tests.k8s_standin.fixture import running_standin  # noqa: E402
from ansible_collections.numaops.colocation.tests.standins import cgroup2, podgen  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit.roles import k8s_seed  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODE = 'sandbox-node-1'


def _collections_path():
    for entry in ansible_collections.__path__:
        if os.path.isdir(os.path.join(entry, 'numaops', 'colocation', 'playbooks')):
            return os.path.dirname(entry)
    pytest.skip('the collection tree is not on sys.path')
    return None


def _kubernetes_core_installed():
    for entry in sys.path:
        if os.path.isdir(os.path.join(entry, 'ansible_collections', 'kubernetes', 'core')):
            return True
    return False


def _configs_for_the_role(configs):
    return [{'name': c['metadata']['name'], 'namespace': c['metadata']['namespace'],
             'selector': c['spec']['selector'], 'memory_qos': c['spec']['memoryQos']} for c in configs]


@pytest.fixture(scope='module', name='awx_job')
def awx_job_fixture(tmp_path_factory):
    """Returns run(playbook, check=False) -> (runner, events) against the sandbox node and the stand-in."""
    if not _kubernetes_core_installed() or not shutil.which('ansible-playbook'):
        pytest.skip('ansible-playbook with kubernetes.core is not installed')
    top = tmp_path_factory.mktemp('awx')
    sandbox = top / 'sandbox'
    shutil.copytree(os.path.join(ROOT, 'examples', 'sandbox', 'tree'), str(sandbox / 'tree'), symlinks=True)
    (sandbox / '.numaops-sandbox').write_text('')

    (top / 'standin').mkdir()
    with running_standin(str(top / 'standin')) as standin:
        # The cluster: pods of every kind bound to the sandbox node, status written as a kubelet would.
        pods, configs = podgen.busy_node(pods=6, containers=2)
        api_pods = k8s_seed.seed_pods(standin.kubeconfig_path, pods, NODE)['items']
        # The node: its cgroup v2 tree holds exactly those pods' cgroups.
        cgroup_root = str(sandbox / 'tree' / 'sys' / 'fs' / 'cgroup')
        cgroup2.build_node(cgroup2.CgroupV2StandIn(cgroup_root, 4096), api_pods, 'systemd')

        with open(os.path.join(ROOT, 'examples', 'sandbox', 'inventory.yml')) as handle:
            inventory = yaml.safe_load(handle)
        node_vars = inventory['all']['children']['colocation_nodes'].setdefault('vars', {})
        node_vars.update({
            'memory_qos_cgroup_root': '{{ node_prep_root }}/sys/fs/cgroup',
            'memory_qos_cgroup_driver': 'systemd',
            'memory_qos_page_size': 4096,
        })
        extravars = {
            'colocation_controller_configs': _configs_for_the_role(configs),
            'colocation_controller_wait_timeout': 60,
            'colocation_controller_wait_sleep': 1,
        }
        envvars = {
            'K8S_AUTH_KUBECONFIG': standin.kubeconfig_path,  # what the kubeconfig credential type injects
            'ANSIBLE_COLLECTIONS_PATH': _collections_path(),
            'NUMAOPS_SANDBOX': str(sandbox),
            'ANSIBLE_NOCOLOR': '1',
        }
        counter = {'n': 0}

        def run(playbook, check=False):
            counter['n'] += 1
            pdd = top / ('job%d' % counter['n'])
            for sub in ('inventory', 'env'):
                (pdd / sub).mkdir(parents=True)
            os.symlink(ROOT, str(pdd / 'project'))
            (pdd / 'inventory' / 'hosts').write_text(yaml.safe_dump(copy.deepcopy(inventory)))
            (pdd / 'env' / 'extravars').write_text(json.dumps(extravars))
            (pdd / 'env' / 'envvars').write_text(json.dumps(envvars))
            (pdd / 'env' / 'settings').write_text(json.dumps({'job_timeout': 900, 'suppress_ansible_output': True}))
            if check:
                (pdd / 'env' / 'cmdline').write_text('--check')
            runner = ansible_runner.run(private_data_dir=str(pdd), playbook=playbook, quiet=True)
            return runner, list(runner.events)

        yield run
        assert not standin.unhandled, 'requests the API stand-in does not implement: %s' % standin.unhandled


def _stats(events):
    stats = [e for e in events if e.get('event') == 'playbook_on_stats']
    assert len(stats) == 1, [e.get('event') for e in events][-5:]
    return stats[0]['event_data']


def _assert_clean(runner, events):
    failed = [e for e in events if e.get('event') in ('runner_on_failed', 'runner_on_unreachable')
              and not e.get('event_data', {}).get('ignore_errors')]
    details = [(e['event_data'].get('host'), e['event_data'].get('task'), e['event_data'].get('res', {}).get('msg'))
               for e in failed]
    assert runner.status == 'successful' and runner.rc == 0, (runner.status, runner.rc, details, runner.stdout.read()[-3000:])
    assert not failed, details
    stats = _stats(events)
    assert not stats.get('failures') and not stats.get('dark'), stats


def test_every_playbook_as_an_awx_job(awx_job):
    # 1. The controller, the CRD and the ColocationConfigurations (localhost only).
    runner, events = awx_job('playbooks/deploy_controller.yml')
    _assert_clean(runner, events)
    assert _stats(events)['changed'].get('localhost', 0) > 0

    # 2. Node preparation on the sandbox node.
    runner, events = awx_job('playbooks/node_prep.yml')
    _assert_clean(runner, events)
    assert _stats(events)['changed'].get(NODE, 0) > 0

    # 3. Memory QoS on the sandbox node, from the pods and configs on the API; the summary is an artifact.
    runner, events = awx_job('playbooks/memory_qos.yml')
    _assert_clean(runner, events)
    stats = _stats(events)
    assert stats['changed'].get(NODE, 0) > 0
    summary = stats['artifact_data']['memory_qos_summary']
    assert summary['reported'] == 1 and summary['written'] > 0 and summary['not_reported'] == []

    # 4. Everything again, in order: nothing left to change on any host.
    runner, events = awx_job('playbooks/site.yml')
    _assert_clean(runner, events)
    changed = {host: count for host, count in _stats(events).get('changed', {}).items() if count}
    assert changed == {}, changed

    # 5. The audit, as a job of type Check: no drift anywhere, nothing changed.
    runner, events = awx_job('playbooks/audit.yml', check=True)
    _assert_clean(runner, events)
    stats = _stats(events)
    assert not any(stats.get('changed', {}).values()), stats['changed']
    assert stats['artifact_data']['memory_qos_nodes_with_drift'] == []
