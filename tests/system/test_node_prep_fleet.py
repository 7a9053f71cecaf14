# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/node_prep.yml and audit.yml at fleet scale, end to end with ansible-playbook on sandbox nodes (fresh
copies of examples/sandbox/tree; no Kubernetes API, services not managed unless a test says so):

- reservations are merged by key (a node's memory / ephemeral-storage reservations stay), replace names them;
- two concurrent runs on one node: the second fails before any change, naming the first (also on a node of the first
  run that waits for its batch); a stale lock is taken over; a node with nothing to change is never locked, though
  another run's lock still fails it;
- a typo of a collection variable fails with a did-you-mean; impossible reservations fail naming both numbers;
- the fleet pre-flight stops before the first change when any node fails it (or goes on with the healthy ones);
- check mode and the real run report the same changed count; a second run changes nothing;
- audit.yml fails on drift and writes its JSON report.
"""
from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest
import yaml

from ansible_collections.numaops.colocation.tests.system.polling import wait_for
from ansible_collections.numaops.colocation.tests.unit import playbooks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODE = 'sandbox-node-1'
KUBELET = os.path.join('var', 'lib', 'kubelet', 'config.yaml')
LOCK = os.path.join('var', 'lib', 'numaops-colocation', 'node.lock')


def _sandbox(top, name):
    tree = top / name / 'tree'
    shutil.copytree(os.path.join(ROOT, 'examples', 'sandbox', 'tree'), str(tree), symlinks=True)
    return tree


def _inventory(top, trees, host_vars=None):
    with open(os.path.join(ROOT, 'examples', 'sandbox', 'inventory.yml')) as handle:
        inventory = yaml.safe_load(handle)
    group = inventory['all']['children']['colocation_nodes']
    template = group['hosts'][NODE]
    group['hosts'] = {}
    for index, tree in enumerate(trees):
        name = NODE if index == 0 else 'sandbox-node-%d' % (index + 1)
        group['hosts'][name] = dict(template, node_prep_root=str(tree), node_prep_node_name=name,
                                    **(host_vars or {}).get(name, {}))
    group['vars'].pop('node_prep_root')
    group['vars'].pop('node_prep_node_name')
    path = top / ('inventory-%d.yml' % len(list(top.iterdir())))
    path.write_text(yaml.safe_dump(inventory))
    return str(path)


def _playbook(inventory, playbook, *args, extra=None, background=False, report_dir=None):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=playbooks.collections_path(), ANSIBLE_NOCOLOR='1',
               ANSIBLE_STDOUT_CALLBACK='default', ANSIBLE_LOCALHOST_WARNING='false')
    argv = ['ansible-playbook', '-i', inventory, os.path.join(ROOT, 'playbooks', playbook)] + list(args)
    if report_dir:
        argv += ['-e', 'colocation_report_dir=%s' % report_dir]
    if extra:
        argv += ['-e', json.dumps(extra)]
    if background:
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def _recap(output, host=NODE):
    line = [x for x in output.splitlines() if x.startswith(host + ' ') and 'changed=' in x][-1]
    return dict((k, int(v)) for k, v in (item.split('=') for item in line.split(':', 1)[1].split()))


def _files(tree):
    state = {}
    for dirpath, _dirs, names in os.walk(str(tree)):
        for name in names:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                with open(path, 'rb') as handle:
                    state[os.path.relpath(path, str(tree))] = handle.read()
    return state


@pytest.fixture(name='top')
def top_fixture(tmp_path):
    if not shutil.which('ansible-playbook'):
        playbooks.missing('ansible-playbook is not installed', 'scripts/lib.sh ensure_venv installs it')
    return tmp_path


def test_reservations_are_merged_and_replace_names_what_it_drops(top):
    tree = _sandbox(top, 'merge')
    config = tree / KUBELET
    config.write_text(config.read_text() + 'systemReserved:\n  cpu: "1"\n  memory: 2Gi\n  ephemeral-storage: 1Gi\n'
                      'kubeReserved:\n  memory: 1Gi\n')
    inventory = _inventory(top, [tree])
    rc, out = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'reports'))
    assert rc == 0, out[-3000:]
    kubelet = yaml.safe_load(config.read_text())
    assert kubelet['systemReserved'] == {'cpu': '500m', 'memory': '2Gi', 'ephemeral-storage': '1Gi'}
    assert kubelet['kubeReserved'] == {'cpu': '500m', 'memory': '1Gi'}
    assert 'REMOVED' not in out

    # replace, asked for explicitly: check mode names every dropped entry, in the summary and the diff
    rc, out = _playbook(inventory, 'node_prep.yml', '--check', '--diff', extra={'node_prep_reservations': 'replace'},
                        report_dir=str(top / 'reports'))
    assert rc == 0, out[-3000:]
    removed = 'systemReserved.ephemeral-storage=1Gi, systemReserved.memory=2Gi, kubeReserved.memory=1Gi'
    assert 'REMOVED reservations %s (node_prep_reservations=replace)' % removed in out, out[-4000:]
    assert '-  memory: 2Gi' in out or '-  memory: 1Gi' in out, out[-4000:]
    assert yaml.safe_load(config.read_text())['kubeReserved'] == {'cpu': '500m', 'memory': '1Gi'}


def test_check_mode_and_real_run_report_the_same_changed_count(top):
    tree = _sandbox(top, 'counts')
    inventory = _inventory(top, [tree])
    rc, check = _playbook(inventory, 'node_prep.yml', '--check', report_dir=str(top / 'reports'))
    assert rc == 0, check[-3000:]
    rc, real = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'reports'))
    assert rc == 0, real[-3000:]
    rc, again = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'reports'))
    assert rc == 0, again[-3000:]
    # one task writes the kubelet and containerd config: the plan in check mode, the apply in the real run
    assert _recap(check)['changed'] == _recap(real)['changed'] == 1
    assert _recap(again)['changed'] == 0
    # the fleet summary: printed, and written as JSON and Markdown
    assert 'node_prep summary: 1 node(s): 1 changed, 0 unchanged, 0 failed or not reached' in real
    reports = sorted(os.listdir(str(top / 'reports')))
    assert [r.rsplit('.', 1)[1] for r in reports].count('json') == 3 and any(r.endswith('.md') for r in reports)
    data = [json.loads((top / 'reports' / r).read_text()) for r in reports if r.endswith('.json')]
    assert [d['changed'] for d in data if not d['check_mode']] == [[NODE], []] or \
        sorted(map(tuple, [d['changed'] for d in data if not d['check_mode']])) == [(), (NODE,)]
    assert not os.path.exists(str(tree / LOCK)), 'the lock is released at the end'
    # no drain and no service here, so the lock renewal and the snapshot were node_config's first call: every file
    # the first run changed was copied as it was before, once, into the run's backup directory
    original = os.path.join(ROOT, 'examples', 'sandbox', 'tree')
    backups = tree / 'var' / 'backups' / 'numaops-colocation'
    runs = os.listdir(str(backups))
    assert len(runs) == 1, runs
    copied = _files(backups / runs[0])
    state = [os.path.join('var', 'lib', 'kubelet', name) for name in ('cpu_manager_state', 'memory_manager_state')]
    assert sorted(copied) == sorted([KUBELET, os.path.join('etc', 'containerd', 'config.toml')] + state)
    for rel, data in copied.items():
        with open(os.path.join(original, rel), 'rb') as handle:
            assert data == handle.read(), rel
        if rel == state[0]:
            assert not os.path.exists(str(tree / rel)), rel + ' (a checkpoint of another policy) was removed'
        elif rel == state[1]:
            with open(str(tree / rel), 'rb') as handle:
                assert data == handle.read(), rel + ' (valid, of the policy the configuration keeps) was kept as it was'
        else:
            with open(str(tree / rel), 'rb') as handle:
                assert data != handle.read(), rel + ' was changed after the copy'


def _textfile_time(path):
    with open(str(path)) as handle:
        line = [x for x in handle if x.startswith('numaops_node_prep_last_run_timestamp_seconds ')][0]
    return int(line.split()[1])


def test_nodes_with_nothing_to_change_are_reported_for_the_fleet_at_once(top):
    same, other = _sandbox(top, 'same'), _sandbox(top, 'other')
    textfiles = {NODE: top / 'tf1', 'sandbox-node-2': top / 'tf2'}
    for path in textfiles.values():
        path.mkdir()
    inventory = _inventory(top, [same, other], dict((host, {'node_prep_numa_textfile_dir': str(path)})
                                                    for host, path in textfiles.items()))
    rc, out = _playbook(inventory, 'node_prep.yml', '-e', 'node_prep_max_unavailable=2', report_dir=str(top / 'r1'))
    assert rc == 0, out[-3000:]
    first = dict((host, _textfile_time(path / 'numaops_numa.prom')) for host, path in textfiles.items())
    # node 2 drifts back to the sandbox's kubelet file; node 1 stays as wanted
    shutil.copy(os.path.join(ROOT, 'examples', 'sandbox', 'tree', KUBELET), str(other / KUBELET))
    time.sleep(1.1)

    # check mode: both reported by the fleet's two tasks (one message, keyed by node), no textfile written
    before = (_files(same), _files(other))
    rc, out = _playbook(inventory, 'node_prep.yml', '--check', report_dir=str(top / 'r2'))
    assert rc == 0, out[-3000:]
    assert (_files(same), _files(other)) == before
    assert '"sandbox-node-1: no change"' in out and '"sandbox-node-2: WOULD CHANGE (check mode)"' in out, out[-3000:]
    assert '"lock: would_acquire"' in out and '"lock: not_taken"' in out
    assert 'TASK [numaops.colocation.node_prep : Report | Build the report]' not in out
    assert first == dict((host, _textfile_time(path / 'numaops_numa.prom')) for host, path in textfiles.items())
    (summary,) = [json.loads((top / 'r2' / name).read_text()) for name in os.listdir(str(top / 'r2'))
                  if name.endswith('.json')]
    assert summary['changed'] == ['sandbox-node-2'] and summary['unchanged'] == [NODE]

    # the real run: node 1 reported by the fleet's tasks (its textfile refreshed, never locked), node 2 by the role
    rc, out = _playbook(inventory, 'node_prep.yml', '-e', 'node_prep_max_unavailable=2', report_dir=str(top / 'r3'))
    assert rc == 0, out[-3000:]
    assert _recap(out)['changed'] == 0 and _recap(out, 'sandbox-node-2')['changed'] == 1
    assert 'node_prep summary: 2 node(s): 1 changed, 1 unchanged, 0 failed or not reached' in out, out[-3000:]
    (summary,) = [json.loads((top / 'r3' / name).read_text()) for name in os.listdir(str(top / 'r3'))
                  if name.endswith('.json')]
    unchanged, changed = summary['hosts'][NODE], summary['hosts']['sandbox-node-2']
    assert sorted(unchanged) == sorted(changed)
    assert unchanged['drift'] is False and unchanged['lock']['outcome'] == 'not_taken'
    assert unchanged['kubelet']['config_path'] == str(same / KUBELET)
    assert unchanged['containerd']['config_path'] == str(same / 'etc' / 'containerd' / 'config.toml')
    assert changed['drift'] is True and changed['lock']['outcome'] == 'acquired'
    assert changed['kubelet']['changed'] and changed['backup_dir'].startswith(str(other))
    for host, path in textfiles.items():
        assert _textfile_time(path / 'numaops_numa.prom') > first[host], host
    assert not os.path.exists(str(same / LOCK)) and not os.path.exists(str(other / LOCK))


class _Healthz(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'ok')

    def log_message(self, *_args):
        pass


def test_two_concurrent_runs_on_one_node(top):
    server = http.server.HTTPServer(('127.0.0.1', 0), _Healthz)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        tree = _sandbox(top, 'concurrent')
        # a second node in the next batch (node_prep_max_unavailable 1): locked in the fleet pre-flight with the
        # first, before the first change anywhere, and held while it waits for its batch
        waiting = _sandbox(top, 'waiting')
        slow = {'node_prep_manage_services': True, 'node_prep_nri_enabled': None,
                'node_prep_kubelet_start_command': ['true'],
                'node_prep_kubelet_healthz_url': 'http://127.0.0.1:%d/healthz' % server.server_address[1]}
        inventory = _inventory(top, [tree, waiting], {NODE: {'node_prep_kubelet_stop_command': ['sleep', '25']},
                                                      'sandbox-node-2': {'node_prep_kubelet_stop_command': ['true']}})
        first = _playbook(inventory, 'node_prep.yml', extra=slow, background=True, report_dir=str(top / 'r'))
        # both locks are there (one task takes them on every host, each host when its fork gets to it), or the first
        # run ended without taking them (the assertions show its output)
        wait_for('the first run locks %s and %s' % (tree, waiting),
                 lambda: (os.path.exists(str(tree / LOCK)) and os.path.exists(str(waiting / LOCK)))
                 or first.poll() is not None,
                 timeout=120, detail=lambda: first.communicate()[0][-3000:])
        assert os.path.exists(str(tree / LOCK)), first.communicate()[0][-3000:]
        holder = json.loads((tree / LOCK).read_text())
        assert holder['controller'] == socket.gethostname() and holder['pid'] == first.pid
        assert json.loads((waiting / LOCK).read_text())['pid'] == first.pid, 'the node of the next batch is locked'
        waiting_before = _files(waiting)
        before = _files(tree)

        rc, second = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'r'))
        assert rc != 0
        assert ('%s is locked by another run: run %s from controller %s pid %d'
                % (NODE, holder['run_id'], holder['controller'], first.pid)) in second, second[-3000:]
        assert 'sandbox-node-2 is locked by another run: run ' in second, second[-3000:]
        assert 'No node was changed' in second
        assert _recap(second)['changed'] == 0
        # the second run failed before any change: every file as the first run left it at that moment, the lock
        # still the first run's
        assert json.loads((tree / LOCK).read_text())['run_id'] == holder['run_id']
        assert _files(waiting) == waiting_before

        out = first.communicate(timeout=300)[0]
        assert first.returncode == 0, out[-3000:]
        assert 'topologyManagerPolicy: best-effort' in (tree / KUBELET).read_text()  # the first run's change stands
        assert 'topologyManagerPolicy: best-effort' in (waiting / KUBELET).read_text()
        assert not os.path.exists(str(tree / LOCK)) and not os.path.exists(str(waiting / LOCK))
        assert before[KUBELET] != (tree / KUBELET).read_bytes()
    finally:
        server.shutdown()


def test_stale_lock_is_taken_over_with_a_warning(top):
    tree = _sandbox(top, 'stale')
    dead = subprocess.Popen(['true'])
    dead.wait()
    (tree / LOCK).parent.mkdir(parents=True)
    (tree / LOCK).write_text(json.dumps({'run_id': 'gone-1', 'controller': socket.gethostname(), 'pid': dead.pid,
                                         'job_id': '', 'started': '2026-01-01T00:00:00Z'}))
    rc, out = _playbook(_inventory(top, [tree]), 'node_prep.yml', report_dir=str(top / 'r'))
    assert rc == 0, out[-3000:]
    assert 'taking over the stale lock' in out and 'run gone-1' in out and 'is gone' in out, out[-3000:]
    assert not os.path.exists(str(tree / LOCK))


def test_a_node_with_nothing_to_change_is_never_locked_but_another_runs_lock_still_fails_it(top):
    tree = _sandbox(top, 'unchanged')
    inventory = _inventory(top, [tree])
    rc, out = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'r'))
    assert rc == 0, out[-3000:]
    assert 'lock: acquired' in out, out[-3000:]
    shutil.rmtree(str((tree / LOCK).parent))
    before = _files(tree)
    rc, out = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'r'))
    assert rc == 0 and _recap(out)['changed'] == 0, out[-3000:]
    assert 'lock: not_taken' in out, out[-3000:]
    assert not os.path.exists(str((tree / LOCK).parent)), 'an unchanged node is only read: no lock, no directory'
    assert _files(tree) == before

    # another run's lock: this run fails on the node all the same, naming the holder, and leaves the lock
    (tree / LOCK).parent.mkdir(parents=True)
    (tree / LOCK).write_text(json.dumps({'run_id': 'other-8', 'controller': 'ctl-elsewhere', 'pid': 1,
                                         'job_id': '43', 'started': '2026-12-01T10:00:00Z'}))
    before = _files(tree)
    rc, out = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'r'))
    assert rc != 0
    assert ('%s is locked by another run: run other-8 (AWX job 43) from controller ctl-elsewhere pid 1'
            % NODE) in out, out[-3000:]
    assert _files(tree) == before

    # a stale lock (its process gone from this controller): left in place with a warning, as nothing changes
    dead = subprocess.Popen(['true'])
    dead.wait()
    (tree / LOCK).write_text(json.dumps({'run_id': 'gone-2', 'controller': socket.gethostname(), 'pid': dead.pid,
                                         'job_id': '', 'started': '2026-01-01T00:00:00Z'}))
    before = _files(tree)
    rc, out = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'r'))
    assert rc == 0 and _recap(out)['changed'] == 0, out[-3000:]
    assert 'is stale' in out and 'It is taken over if this run changes the node' in out, out[-3000:]
    assert 'lock: stale' in out, out[-3000:]
    assert _files(tree) == before


def test_check_mode_reports_a_held_lock(top):
    tree = _sandbox(top, 'held')
    (tree / LOCK).parent.mkdir(parents=True)
    (tree / LOCK).write_text(json.dumps({'run_id': 'other-7', 'controller': 'ctl-elsewhere', 'pid': 1,
                                         'job_id': '42', 'started': '2026-12-01T10:00:00Z'}))
    before = _files(tree)
    rc, out = _playbook(_inventory(top, [tree]), 'node_prep.yml', '--check', report_dir=str(top / 'r'))
    assert rc == 0, out[-3000:]
    assert 'lock: HELD BY ANOTHER RUN: %s is locked by another run: run other-7 (AWX job 42) from controller ' \
           'ctl-elsewhere pid 1' % NODE in out, out[-3000:]
    assert _files(tree) == before


def test_typo_of_a_collection_variable_fails_with_did_you_mean(top):
    tree = _sandbox(top, 'typo')
    before = _files(tree)
    inventory = _inventory(top, [tree], {NODE: {'memory_qos_cgroup_rot': '/x'}})
    rc, out = _playbook(inventory, 'node_prep.yml', '-e', 'node_prep_cpu_manager_polcy=none',
                        report_dir=str(top / 'r'))
    assert rc != 0
    assert ('host %s: memory_qos_cgroup_rot is not a variable of numaops.colocation (did you mean memory_qos_cgroup_root?); '
            'host %s: node_prep_cpu_manager_polcy is not a variable of numaops.colocation (did you mean '
            'node_prep_cpu_manager_policy?)' % (NODE, NODE)) in out, out[-3000:]
    assert _files(tree) == before
    # allowed explicitly: a warning, and the run goes on
    rc, out = _playbook(inventory, 'node_prep.yml', '--check', '-e', 'node_prep_cpu_manager_polcy=none',
                        '-e', 'colocation_allow_unknown_variables=true', report_dir=str(top / 'r'))
    assert rc == 0 and 'WARNING (colocation_allow_unknown_variables=true)' in out, out[-3000:]


def test_a_value_the_role_does_not_allow_fails_the_preflight_naming_host_and_variable(top):
    # playbooks/node_prep.yml validates the role's variables in the pre-flight call (no validation task per node)
    tree = _sandbox(top, 'invalid')
    before = _files(tree)
    inventory = _inventory(top, [tree], {NODE: {'node_prep_reserved_cores': 'many'}})
    rc, out = _playbook(inventory, 'node_prep.yml', '-e', 'node_prep_nri_mode=sideways', report_dir=str(top / 'r'))
    assert rc != 0
    assert "host %s: node_prep_nri_mode='sideways' is not one of inline, dropin." % NODE in out, out[-3000:]
    assert "host %s: node_prep_reserved_cores='many' is not a whole number." % NODE in out, out[-3000:]
    assert 'Validating arguments against arg spec' not in out
    assert _files(tree) == before
    # a survey answer that sets no variable of the collection: named once for the run
    rc, out = _playbook(inventory, 'node_prep.yml', '--check', extra={'node_prep_survey_reserved_cpus': '0-1'},
                        report_dir=str(top / 'r'))
    assert rc != 0
    assert 'survey answer node_prep_reserved_cpus is not a variable of numaops.colocation' in out, out[-3000:]
    assert _files(tree) == before


def test_impossible_reservations_fail_the_preflight_naming_both_numbers(top):
    tree = _sandbox(top, 'impossible')
    before = _files(tree)
    inventory = _inventory(top, [tree])
    impossible = {'node_prep_system_reserved': {'cpu': '12'}, 'node_prep_kube_reserved': {'cpu': '12'}}
    rc, out = _playbook(inventory, 'node_prep.yml', extra=impossible, report_dir=str(top / 'r'))
    assert rc != 0
    assert ('systemReserved.cpu=12 + kubeReserved.cpu=12 reserve 24 CPU(s) (the static CPU manager takes 24 whole '
            'CPU(s)), but the node has 16 online CPU(s)') in out, out[-3000:]
    (tree / 'proc' / 'meminfo').write_text('MemTotal:       16777216 kB\nMemFree:        1 kB\n')
    before = _files(tree)
    too_much = {'node_prep_system_reserved': {'cpu': '500m', 'memory': '10Gi'}, 'node_prep_kube_reserved': {'memory': '7Gi'}}
    rc, out = _playbook(inventory, 'node_prep.yml', extra=too_much, report_dir=str(top / 'r'))
    assert rc != 0
    assert 'reserve 17Gi of memory, more than the node has (MemTotal 16Gi' in out, out[-3000:]
    assert _files(tree) == before
    # reservedSystemCPUs with cpu amounts: the run says which one the kubelet uses
    rc, out = _playbook(inventory, 'node_prep.yml', '--check', extra={'node_prep_reserved_system_cpus': '0-1'},
                        report_dir=str(top / 'r'))
    assert rc == 0, out[-3000:]
    assert 'the kubelet reserves exactly the CPUs 0-1 for the system and kube daemons' in out


def test_fleet_preflight_stops_before_the_first_change(top):
    good = _sandbox(top, 'good')
    broken = top / 'broken' / 'tree'
    broken.mkdir(parents=True)
    inventory = _inventory(top, [good, broken])
    before = _files(good)
    rc, out = _playbook(inventory, 'node_prep.yml', report_dir=str(top / 'r'))
    assert rc != 0
    assert 'node_prep plan: 2 node(s): 1 to change, 0 already as wanted, 1 failed the pre-flight' in out, out[-3000:]
    assert '1 of 2 node(s) failed the pre-flight or their lock (sandbox-node-2;' in out and 'No node was changed' in out
    assert _files(good) == before
    assert not os.path.exists(str(good / LOCK)), 'the healthy node was unlocked'

    rc, out = _playbook(inventory, 'node_prep.yml', '-e', 'node_prep_continue_healthy=true',
                        '-e', 'node_prep_max_unavailable=1', report_dir=str(top / 'r'))
    assert rc == 0, out[-3000:]
    # only the node that changes goes through the batches (the failed one is left alone)
    assert 'batch 1/1: sandbox-node-1 (1 to change, at most 1 at a time)' in out, out[-3000:]
    assert 'batch 2/' not in out
    assert 'node_prep summary: 2 node(s): 1 changed, 0 unchanged, 1 failed or not reached' in out
    assert _files(good) != before


def test_audit_fails_on_drift_and_writes_its_report(top):
    tree = _sandbox(top, 'audit')
    inventory = _inventory(top, [tree])
    before = _files(tree)
    rc, out = _playbook(inventory, 'audit.yml', '--check', report_dir=str(top / 'reports'))
    assert rc != 0
    assert 'audit: 1 node(s): 0 in sync, 1 with drift, 1 not (fully) audited' in out, out[-3000:]
    assert '%s: DRIFT - kubelet cpuManagerPolicy, systemReserved, kubeReserved, topologyManagerPolicy; containerd NRI' \
        % NODE in out
    report = [r for r in os.listdir(str(top / 'reports')) if r.startswith('audit-')]
    data = json.loads((top / 'reports' / report[0]).read_text())
    assert data['drift'] == [NODE] and data['not_audited'] == [NODE]
    assert _files(tree) == before
    rc, out = _playbook(inventory, 'audit.yml', '--check', '-e', 'colocation_audit_fail_on_drift=false',
                        report_dir=str(top / 'reports'))
    assert rc == 0, out[-3000:]
