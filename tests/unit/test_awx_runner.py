# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every entry-point playbook through ansible-runner, the engine AWX runs jobs with.

The private data directory is laid out the way AWX lays it out for a job: ``project/`` (the checked-out
project), ``inventory/hosts``, ``env/extravars`` (survey answers and extra vars), ``env/envvars`` (what
credentials inject, e.g. K8S_AUTH_KUBECONFIG from the kubeconfig credential type), ``env/settings`` and,
for a job of type Check, ``env/cmdline`` with ``--check``. The nodes are the sandbox nodes of
examples/sandbox (a fresh copy of the node tree), the cluster is the real test control plane (tests/cluster:
kube-apiserver, controllers, kwok nodes) with pods bound to the sandbox node and the cgroup v2 stand-in tree
built for them. What the jobs asked of the API comes from kube-apiserver's audit log.

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

from ansible_collections.numaops.colocation.tests.unit.unit_stage import only_here

pytestmark = only_here('the AWX job test (ansible-runner, the real control plane)')
ansible_runner = pytest.importorskip('ansible_runner')
yaml = pytest.importorskip('yaml')
pytest.importorskip('kubernetes')

# pylint: disable=wrong-import-position
from ansible_collections.numaops.colocation.tests.cluster.fixture import shared_cluster  # noqa: E402
from ansible_collections.numaops.colocation.tests.standins import cgroup2, podgen  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit.roles import k8s_seed  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit import playbooks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODE = 'sandbox-node-1'


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
    """Returns run(playbook, check=False, sandbox_dir=None, job_inventory=None) -> (runner, events) against the
    sandbox node and the control plane; ``run.fresh_sandbox(name)`` makes another sandbox, ``run.inventory``,
    ``run.api_pods``, ``run.cluster`` and ``run.top`` (the job directory) are what the jobs use."""
    if not _kubernetes_core_installed() or not shutil.which('ansible-playbook'):
        playbooks.missing('ansible-playbook with kubernetes.core is not installed',
                          'scripts/lib.sh ensure_venv installs both (tests/requirements-dev.txt)')
    top = tmp_path_factory.mktemp('awx')
    sandbox = top / 'sandbox'
    shutil.copytree(os.path.join(ROOT, 'examples', 'sandbox', 'tree'), str(sandbox / 'tree'), symlinks=True)
    (sandbox / '.numaops-sandbox').write_text('')

    with shared_cluster() as cluster:
        # The cluster: pods of every kind bound to the sandbox node, status written as a kubelet would.
        pods, configs = podgen.busy_node(pods=6, containers=2)
        api_pods = k8s_seed.seed_pods(cluster.kubeconfig_path, pods, NODE)['items']
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
            'K8S_AUTH_KUBECONFIG': cluster.kubeconfig_path,  # what the kubeconfig credential type injects
            'ANSIBLE_COLLECTIONS_PATH': playbooks.collections_path(),
            'NUMAOPS_SANDBOX': str(sandbox),
            'ANSIBLE_NOCOLOR': '1',
        }
        counter = {'n': 0}

        def run(playbook, check=False, sandbox_dir=None, job_inventory=None, limit=None, survey=None):
            """One job; ``sandbox_dir``: another sandbox (NUMAOPS_SANDBOX), ``job_inventory``: another inventory,
            ``limit``: the job template's Limit, ``survey``: survey answers (extra vars, as AWX passes them)."""
            counter['n'] += 1
            pdd = top / ('job%d' % counter['n'])
            for sub in ('inventory', 'env'):
                (pdd / sub).mkdir(parents=True)
            os.symlink(ROOT, str(pdd / 'project'))
            job_envvars = dict(envvars, NUMAOPS_SANDBOX=str(sandbox_dir)) if sandbox_dir else envvars
            (pdd / 'inventory' / 'hosts').write_text(yaml.safe_dump(copy.deepcopy(job_inventory or inventory)))
            (pdd / 'env' / 'extravars').write_text(json.dumps(dict(extravars, **(survey or {}))))
            (pdd / 'env' / 'envvars').write_text(json.dumps(job_envvars))
            (pdd / 'env' / 'settings').write_text(json.dumps({'job_timeout': 1800, 'suppress_ansible_output': True}))
            if check:
                (pdd / 'env' / 'cmdline').write_text('--check')
            runner = ansible_runner.run(private_data_dir=str(pdd), playbook=playbook, quiet=True, limit=limit)
            return runner, list(runner.events)

        def fresh_sandbox(name):
            """Another fresh copy of the node tree, made as scripts/sandbox.sh makes it, with the pods' cgroups."""
            other = top / name
            shutil.copytree(os.path.join(ROOT, 'examples', 'sandbox', 'tree'), str(other / 'tree'), symlinks=True)
            (other / '.numaops-sandbox').write_text('')
            cgroup2.build_node(cgroup2.CgroupV2StandIn(str(other / 'tree' / 'sys' / 'fs' / 'cgroup'), 4096), api_pods, 'systemd')
            return other

        run.fresh_sandbox = fresh_sandbox
        run.inventory = inventory
        run.api_pods = api_pods
        run.cluster = cluster
        run.top = top
        yield run


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


@pytest.fixture(scope='module', name='converged')
def converged_fixture(awx_job):
    """The sandbox node and the cluster brought in line by one job per entry-point playbook, in the order a
    fleet's first day runs them, then site.yml over everything: {playbook: (runner, events)}. The tests that
    assert on these jobs, and the drift audit that starts from a copy of the node they leave, share them."""
    jobs = {}
    for playbook in ('deploy_controller', 'node_prep', 'memory_qos', 'site'):
        jobs[playbook] = awx_job('playbooks/%s.yml' % playbook)
    return jobs


def test_every_playbook_as_an_awx_job(awx_job, converged):
    # 1. The controller, the CRD and the ColocationConfigurations (localhost only).
    runner, events = converged['deploy_controller']
    _assert_clean(runner, events)
    assert _stats(events)['changed'].get('localhost', 0) > 0

    # 2. Node preparation on the sandbox node.
    runner, events = converged['node_prep']
    _assert_clean(runner, events)
    assert _stats(events)['changed'].get(NODE, 0) > 0

    # 3. Memory QoS on the sandbox node, from the pods and configs on the API; the summary is an artifact.
    runner, events = converged['memory_qos']
    _assert_clean(runner, events)
    stats = _stats(events)
    assert stats['changed'].get(NODE, 0) > 0
    summary = stats['artifact_data']['memory_qos_summary']
    assert summary['reported'] == 1 and summary['written'] > 0 and summary['not_reported'] == []

    # 4. Everything again, in order: nothing left to change on any host.
    runner, events = converged['site']
    _assert_clean(runner, events)
    changed = {host: count for host, count in _stats(events).get('changed', {}).items() if count}
    assert changed == {}, changed

    # 5. The audit, as a job of type Check: no drift anywhere, nothing changed.
    runner, events = awx_job('playbooks/audit.yml', check=True)
    _assert_clean(runner, events)
    stats = _stats(events)
    assert not any(stats.get('changed', {}).values()), stats['changed']
    assert stats['artifact_data']['memory_qos_nodes_with_drift'] == []


# ----------------------------------------------------------------------------------------- the drift audit
# playbooks/audit.yml promises: it runs only in check mode (refusing otherwise, before anything ran), reports
# what node_prep and memory_qos would change per node, lists the nodes it could not audit and changes nothing.
AUDIT_REFUSAL = ('playbooks/audit.yml reports drift and never changes anything, so it runs only in check mode: '
                 'add --check (AWX: set the job template\'s job type to "Check"). Nothing was run.')
BROKEN_NODE = 'sandbox-node-2'


def _tree_state(root):
    """Every directory, file (mode and bytes) and symlink under ``root``: equal states mean nothing changed."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(str(root)):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, str(root))
            info = os.lstat(path)
            if os.path.islink(path):
                state[rel] = ('link', os.readlink(path))
            elif os.path.isdir(path):
                state[rel] = ('dir', info.st_mode)
            else:
                with open(path, 'rb') as handle:
                    state[rel] = ('file', info.st_mode, handle.read())
    return state


def _debug_msg(events, task):
    """The msg of the debug task named ``task`` (exactly one result of it)."""
    found = [e['event_data']['res']['msg'] for e in events
             if e.get('event') == 'runner_on_ok' and e.get('event_data', {}).get('task') == task]
    assert len(found) == 1, (task, len(found))
    return found[0]


def _pod_container_cgroup(pod, container):
    status = [s for s in pod['status']['containerStatuses'] if s['name'] == container][0]
    return '%s/%s' % (cgroup2.kubepods_dirs('systemd', pod['status']['qosClass'], pod['metadata']['uid']),
                      cgroup2.container_dir('systemd', status['containerID']))


def test_audit_refuses_to_run_outside_check_mode(awx_job):
    sandbox = awx_job.fresh_sandbox('refused')
    before = _tree_state(sandbox)
    api_requests = len(awx_job.cluster.requests)

    runner, events = awx_job('playbooks/audit.yml', sandbox_dir=sandbox)  # job type "Run": no --check

    assert runner.status == 'failed' and runner.rc != 0, (runner.status, runner.rc)
    failed = [e['event_data'] for e in events if e.get('event') == 'runner_on_failed']
    # once for the run (run_once on the first node, so that a --limit to some nodes still refuses)
    assert [f['task'] for f in failed] == ['Check mode is on'], failed
    assert failed[0]['res']['msg'] == AUDIT_REFUSAL
    # Nothing else ran, nothing was asked of the API, not one byte of the node tree changed.
    assert not [e for e in events if e.get('event', '').startswith('runner_on_') and e['event_data'].get('task') != 'Check mode is on']
    assert [e['event_data']['name'] for e in events if e.get('event') == 'playbook_on_play_start'] == [
        'Audit refuses to run outside check mode']
    assert awx_job.cluster.requests[api_requests:] == []
    assert _tree_state(sandbox) == before


def test_audit_reports_drift_and_changes_nothing(awx_job, converged):
    # A copy of the sandbox node the site playbook left in line (controller, configs, node_prep, memory_qos) ...
    _assert_clean(*converged['site'])
    sandbox = awx_job.top / 'drift'
    shutil.copytree(str(awx_job.top / 'sandbox'), str(sandbox), symlinks=True)
    tree = sandbox / 'tree'

    # ... then changed by hand: the kubelet's topology manager policy and one container's memory.high.
    kubelet_config = tree / 'var' / 'lib' / 'kubelet' / 'config.yaml'
    text = kubelet_config.read_text()
    assert text.count('topologyManagerPolicy: best-effort\n') == 1, text
    kubelet_config.write_text(text.replace('topologyManagerPolicy: best-effort\n', 'topologyManagerPolicy: none\n'))
    offline = [p for p in awx_job.api_pods if p['metadata']['name'] == 'pod-000'][0]  # config "offline", highRatio 80
    offline_c0 = _pod_container_cgroup(offline, 'c0')
    cgroups = cgroup2.CgroupV2StandIn(str(tree / 'sys' / 'fs' / 'cgroup'), 4096)
    # batch-memory limit 300Mi: 314572800 * 80 // 100 = 251658240, a whole number of 4 KiB pages
    assert cgroups.read(offline_c0, 'memory.high') == '251658240'
    cgroups.write(offline_c0, 'memory.high', 'max')

    # A second node whose tree is empty: neither audit can run there, and the report says so.
    broken = awx_job.top / 'broken'
    (broken / 'tree').mkdir(parents=True)
    inventory = copy.deepcopy(awx_job.inventory)
    nodes = inventory['all']['children']['colocation_nodes']['hosts']
    nodes[BROKEN_NODE] = dict(nodes[NODE], node_prep_root=str(broken / 'tree'), node_prep_node_name=BROKEN_NODE)

    before, broken_before = _tree_state(sandbox), _tree_state(broken)
    api_requests = len(awx_job.cluster.requests)
    runner, events = awx_job('playbooks/audit.yml', check=True, sandbox_dir=sandbox, job_inventory=inventory)

    # The job fails (a scheduled audit alerts): drift on one node, the other could not be audited. Every node
    # still got all its audits (a node that cannot be audited is recorded, not dropped), then one fleet summary.
    assert runner.status == 'failed' and runner.rc != 0, (runner.status, runner.rc, runner.stdout.read()[-3000:])
    stats = _stats(events)
    assert not stats.get('dark'), stats
    assert stats['rescued'][BROKEN_NODE] >= 2, stats['rescued']
    failed = [(e['event_data']['host'], e['event_data']['task']) for e in events if e.get('event') == 'runner_on_failed'
              and not e['event_data'].get('ignore_errors')]
    assert failed[-1][1] == 'Fail on drift or on nodes that could not be audited (colocation_audit_fail_on_drift)', failed
    assert {host for host, _task in failed[:-1]} == {BROKEN_NODE}, failed
    fleet = _debug_msg(events, 'Show the fleet audit summary')
    assert fleet[0] == 'audit: 2 node(s): 0 in sync, 1 with drift, 1 not (fully) audited', fleet
    assert fleet[1] == '%s: DRIFT - kubelet topologyManagerPolicy; memory QoS 1 cgroup(s)' % NODE, fleet
    assert fleet[2].startswith('%s: NOT AUDITED - node_prep: ' % BROKEN_NODE), fleet
    audit = stats['artifact_data']['colocation_audit_summary']
    assert audit['drift'] == [NODE] and audit['not_audited'] == [BROKEN_NODE], audit
    assert audit['memory_qos_drift'][NODE][0]['differ'] == ['memory.high max -> 251658240'], audit

    # node_prep: the changed kubelet field on the sandbox node, the broken node NOT AUDITED with the reason.
    node_prep = _debug_msg(events, 'Drift report | Node preparation across the nodes')
    assert node_prep[0] == 'node_prep: 2 node(s): 0 in sync, 1 with drift, 1 not audited', node_prep
    assert node_prep[1] == '%s: DRIFT - kubelet topologyManagerPolicy' % NODE, node_prep
    assert node_prep[2].startswith('%s: NOT AUDITED - node_prep: %s is not on the unified cgroup v2 hierarchy'
                                   % (BROKEN_NODE, BROKEN_NODE)), node_prep
    assert '%s/sys/fs/cgroup/cgroup.controllers' % (broken / 'tree') in node_prep[2], node_prep
    assert len(node_prep) == 3, node_prep

    # memory_qos: the one container, file, old and expected value; the broken node not reported.
    memory_qos = _debug_msg(events, 'Show the summary')
    assert memory_qos[0].startswith('memory QoS audit (check mode: nothing was written): 1 of 2 node(s) reported; '
                                    'cgroup files to write 1, '), memory_qos
    assert 'Not reported (failed or unreachable, see above): %s' % BROKEN_NODE in memory_qos, memory_qos
    assert 'Drift on 1 node(s), 1 cgroup(s):' in memory_qos, memory_qos
    assert '  %s: team/pod-000 [c0] config offline: memory.high max -> 251658240' % NODE in memory_qos, memory_qos
    not_audited = _debug_msg(events, 'Nodes whose memory QoS could not be audited')
    assert len(not_audited) == 1 and not_audited[0].startswith('%s: ' % BROKEN_NODE), not_audited
    assert '%s/sys/fs/cgroup/cgroup.controllers does not exist' % (broken / 'tree') in not_audited[0], not_audited
    summary = stats['artifact_data']['memory_qos_summary']
    assert stats['artifact_data']['memory_qos_nodes_with_drift'] == [NODE]
    assert summary['audit'] is True and summary['not_reported'] == [BROKEN_NODE] and summary['written'] == 1
    assert summary['drift'] == {NODE: [{'pod': 'team/pod-000', 'container': 'c0', 'config': 'offline',
                                        'differ': ['memory.high max -> 251658240']}]}, summary['drift']

    # Nothing changed: not one byte of either node tree, no write to the API.
    assert _tree_state(sandbox) == before
    assert _tree_state(broken) == broken_before
    writes = [r for r in awx_job.cluster.requests[api_requests:] if r['method'] not in ('GET', 'HEAD')]
    assert writes == [], writes

    # A job template's Limit (--limit) to the broken node alone: the reports still come, for that node only.
    runner, events = awx_job('playbooks/audit.yml', check=True, sandbox_dir=sandbox, job_inventory=inventory,
                             limit=BROKEN_NODE, survey={'colocation_audit_fail_on_drift': 'false'})
    assert runner.status == 'successful' and runner.rc == 0, (runner.status, runner.rc, runner.stdout.read()[-3000:])
    node_prep = _debug_msg(events, 'Drift report | Node preparation across the nodes')
    assert node_prep[0] == 'node_prep: 1 node(s): 0 in sync, 0 with drift, 1 not audited', node_prep
    memory_qos = _debug_msg(events, 'Show the summary')
    assert memory_qos[0].startswith('memory QoS audit (check mode: nothing was written): 0 of 1 node(s) reported'), memory_qos
    assert _tree_state(sandbox) == before
    assert _tree_state(broken) == broken_before


# ----------------------------------------------------------------------------------------- survey answers
def test_blank_survey_answers_leave_the_inventory_and_answers_override_it(awx_job):
    """The node_prep survey as AWX sends it: every question optional, blank answers as "" (some AWX versions send
    an unanswered question that way). A blank answer leaves the host's inventory value; an answer overrides it."""
    with open(os.path.join(ROOT, 'examples', 'awx', 'surveys', 'node_prep.json')) as handle:
        spec = json.load(handle)['spec']
    assert not [q['variable'] for q in spec if q['required']]
    blank = dict((q['variable'], q['default']) for q in spec)  # every default is blank
    assert set(blank.values()) == {''}, blank

    sandbox = awx_job.fresh_sandbox('survey')
    inventory = copy.deepcopy(awx_job.inventory)
    host = inventory['all']['children']['colocation_nodes']['hosts'][NODE]
    host.update(node_prep_reserved_system_cpus='0-1', node_prep_topology_manager_policy='single-numa-node')
    runner, events = awx_job('playbooks/node_prep.yml', sandbox_dir=sandbox, job_inventory=inventory, survey=blank)
    _assert_clean(runner, events)
    kubelet = yaml.safe_load((sandbox / 'tree' / 'var' / 'lib' / 'kubelet' / 'config.yaml').read_text())
    assert kubelet['reservedSystemCPUs'] == '0-1'
    assert kubelet['topologyManagerPolicy'] == 'single-numa-node'
    assert kubelet['cpuManagerPolicy'] == 'static'  # the role default: the blank answer did not replace it

    # answered: the answer wins over the inventory for this run
    answered = dict(blank, node_prep_survey_topology_manager_policy='best-effort', node_prep_survey_max_unavailable='2')
    runner, events = awx_job('playbooks/node_prep.yml', sandbox_dir=sandbox, job_inventory=inventory, survey=answered)
    _assert_clean(runner, events)
    kubelet = yaml.safe_load((sandbox / 'tree' / 'var' / 'lib' / 'kubelet' / 'config.yaml').read_text())
    assert kubelet['topologyManagerPolicy'] == 'best-effort' and kubelet['reservedSystemCPUs'] == '0-1'
    assert _stats(events)['changed'].get(NODE) == 1
