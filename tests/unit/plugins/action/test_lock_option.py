# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lock option of node_preflight and node_files (the node lock taken or renewed in the module's own call), and
report_files, through Ansible itself: one ansible-playbook run against localhost with the collection from this
checkout."""
from __future__ import annotations

import json
import os
import socket

import pytest

from ansible_collections.numaops.colocation.tests.unit import playbooks
from ansible_collections.numaops.colocation.tests.unit.unit_stage import SHARED_PLAYBOOK_RUN, only_here

pytestmark = only_here(SHARED_PLAYBOOK_RUN)


NRI_BEFORE = 'version = 2\n\n[plugins]\n'


@pytest.fixture(scope='module', name='runs')
def runs_fixture(tmp_path_factory):
    base = tmp_path_factory.mktemp('lock_option')
    lock, failing_lock, stale_lock = str(base / 'node.lock'), str(base / 'failing.lock'), str(base / 'stale.lock')
    config = base / 'config.yaml'
    config.write_text('kind: KubeletConfiguration\n')
    units = base / 'units'
    units.mkdir()
    # a unit file that cannot be read: the pre-flight read fails after it took the lock
    os.symlink(str(base / 'missing.service'), str(units / 'kubelet.service'))
    (base / 'stale.lock').write_text(json.dumps({'run_id': 'gone-1', 'controller': socket.gethostname(),
                                                 'pid': 999999, 'started': '2026-01-01T00:00:00Z'}))
    reports = base / 'reports' / 'sub'
    names, tasks = [], []

    def task(name, module, args, **keywords):
        names.append(name)
        tasks.append(dict({'name': name, module: args}, **keywords))

    task('take', 'numaops.colocation.node_preflight',
         {'lock': {'path': lock, 'run_id': 'run-a', 'playbook': 'test', 'job_id': '42'}, 'kubelet': False})
    task('other', 'numaops.colocation.node_preflight', {'lock': {'path': lock, 'run_id': 'run-b'}, 'kubelet': False})
    task('other check', 'numaops.colocation.node_preflight',
         {'lock': {'path': lock, 'run_id': 'run-b'}, 'kubelet': False}, check_mode=True)
    # state=query: the pre-flight of node_prep only reads the lock (it takes it after its plan, if the node changes)
    stale_query = str(base / 'stale-query.lock')
    (base / 'stale-query.lock').write_text(json.dumps({'run_id': 'gone-2', 'controller': socket.gethostname(),
                                                       'pid': 999999, 'started': '2026-01-01T00:00:00Z'}))
    task('query held', 'numaops.colocation.node_preflight',
         {'lock': {'path': lock, 'state': 'query'}, 'kubelet': False, 'read_files': [str(config)]})
    task('query held check', 'numaops.colocation.node_preflight',
         {'lock': {'path': lock, 'state': 'query'}, 'kubelet': False, 'read_files': [str(config)]}, check_mode=True)
    task('query stale', 'numaops.colocation.node_preflight',
         {'lock': {'path': stale_query, 'state': 'query'}, 'kubelet': False, 'read_files': [str(config)]})
    task('query free', 'numaops.colocation.node_preflight',
         {'lock': {'path': str(base / 'free' / 'node.lock'), 'state': 'query'}, 'kubelet': False,
          'read_files': [str(config)]})
    task('query bad state', 'numaops.colocation.node_preflight',
         {'lock': {'path': lock, 'state': 'absent', 'run_id': 'x'}, 'kubelet': False})
    task('query on node_files', 'numaops.colocation.node_files',
         {'lock': {'path': lock, 'state': 'query'}, 'read': []})
    task('renew and snapshot', 'numaops.colocation.node_files',
         {'lock': {'path': lock, 'run_id': 'run-a'}, 'snapshot': {'paths': [str(config)], 'dest': str(base / 'b1')}})
    task('snapshot of another run', 'numaops.colocation.node_files',
         {'lock': {'path': lock, 'run_id': 'run-b'}, 'snapshot': {'paths': [str(config)], 'dest': str(base / 'b2')}})
    task('bad lock option', 'numaops.colocation.node_files', {'lock': {'run_id': 'x', 'bogus': 1}, 'read': []})
    # node_config: the lock renewal and the snapshot in its first call to the node, before it writes
    for name in ('nri.toml', 'nri-held.toml', 'nri-dir.toml'):
        (base / name).write_text(NRI_BEFORE)
    nri = {'state': 'enabled', 'containerd_version': '1.7.24'}
    task('config renews and snapshots', 'numaops.colocation.node_config',
         {'containerd': dict(nri, path=str(base / 'nri.toml')), 'lock': {'path': lock, 'run_id': 'run-a'},
          'snapshot': {'paths': [str(base / 'nri.toml'), str(base / 'absent.toml')], 'dest': str(base / 'b3'),
                       'strip_prefix': str(base)}})
    task('config under another runs lock', 'numaops.colocation.node_config',
         {'containerd': dict(nri, path=str(base / 'nri-held.toml')), 'lock': {'path': lock, 'run_id': 'run-b'},
          'snapshot': {'paths': [str(base / 'nri-held.toml')], 'dest': str(base / 'b4')}})
    task('config whose snapshot fails', 'numaops.colocation.node_config',
         {'containerd': dict(nri, path=str(base / 'nri-dir.toml')), 'lock': {'path': lock, 'run_id': 'run-a'},
          'snapshot': {'paths': [str(base / 'nri-dir.toml'), str(base / 'units')], 'dest': str(base / 'b5')}})
    # keep_read / reuse_read: the apply plans from the plan's read; a file changed in between is read again
    for name in ('kept.toml', 'kept-stale.toml'):
        (base / name).write_text(NRI_BEFORE)
    kept = dict(nri, path=str(base / 'kept.toml'))
    stale = dict(nri, path=str(base / 'kept-stale.toml'))
    task('plan keeps its read', 'numaops.colocation.node_config', {'containerd': kept, 'keep_read': True},
         check_mode=True)
    task('plan keeps a read that goes stale', 'numaops.colocation.node_config',
         {'containerd': stale, 'keep_read': True}, check_mode=True)
    task('a plan that finds nothing to change keeps nothing', 'numaops.colocation.node_config',
         {'containerd': dict(nri, path=str(base / 'nri.toml')), 'keep_read': True}, check_mode=True)
    task('someone edits the file after the plan', 'ansible.builtin.copy',
         {'dest': str(base / 'kept-stale.toml'), 'content': NRI_BEFORE + '# edited after the plan\n', 'mode': '0644'})
    task('apply from the kept read', 'numaops.colocation.node_config',
         {'containerd': kept, 'reuse_read': '{{ r%d.read_token }}' % names.index('plan keeps its read'),
          'lock': {'path': lock, 'run_id': 'run-a'},
          'snapshot': {'paths': [str(base / 'kept.toml')], 'dest': str(base / 'b6'), 'strip_prefix': str(base)}})
    task('apply from a stale read', 'numaops.colocation.node_config',
         {'containerd': stale, 'reuse_read': '{{ r%d.read_token }}' % names.index('plan keeps a read that goes stale'),
          'lock': {'path': lock, 'run_id': 'run-a'},
          'snapshot': {'paths': [str(base / 'kept-stale.toml')], 'dest': str(base / 'b7'), 'strip_prefix': str(base)}})
    # node_preflight reads the files of the plan that follows; the plan judges from that read
    (base / 'pre.toml').write_text(NRI_BEFORE)
    task('preflight reads for the plan', 'numaops.colocation.node_preflight',
         {'kubelet': False, 'read_files': [str(base / 'pre.toml'), str(base / 'pre-absent.toml')]})
    task('plan from the preflight read', 'numaops.colocation.node_config',
         {'containerd': dict(nri, path=str(base / 'pre.toml')), 'keep_read': True,
          'reuse_read': '{{ r%d.read_token }}' % names.index('preflight reads for the plan')}, check_mode=True,
         diff=True)
    task('preflight whose read fails', 'numaops.colocation.node_preflight',
         {'kubelet': False, 'read_files': [str(base / 'units')]})
    task('apply with a token used already', 'numaops.colocation.node_config',
         {'containerd': kept, 'reuse_read': '{{ r%d.read_token }}' % names.index('plan keeps its read')})
    task('config with a bad snapshot option', 'numaops.colocation.node_config',
         {'containerd': dict(nri, path=str(base / 'nri-dir.toml')), 'snapshot': {'paths': 'x'}})
    task('failing read', 'numaops.colocation.node_preflight',
         {'lock': {'path': failing_lock, 'run_id': 'run-c'}, 'kubelet_unit_dirs': [str(units)]})
    task('stale', 'numaops.colocation.node_preflight', {'lock': {'path': stale_lock, 'run_id': 'run-d'},
                                                        'kubelet': False})
    task('no lock', 'numaops.colocation.node_files', {'read': [str(config)]})
    task('release of another run', 'numaops.colocation.node_lock', {'path': lock, 'run_id': 'run-z', 'state': 'absent'})
    task('release without run id', 'numaops.colocation.node_lock', {'path': lock, 'state': 'absent'})
    task('release', 'numaops.colocation.node_lock', {'path': lock, 'run_id': 'run-a', 'state': 'absent'})
    task('release again', 'numaops.colocation.node_lock', {'path': lock, 'run_id': 'run-a', 'state': 'absent'})
    files = [{'name': 'a.json', 'content': '{}'}, {'name': 'b.md', 'content': '# x\n'}]
    task('reports', 'numaops.colocation.report_files', {'dir': str(reports), 'files': files})
    task('reports again', 'numaops.colocation.report_files', {'dir': str(reports), 'files': files})
    task('reports check', 'numaops.colocation.report_files',
         {'dir': str(reports), 'files': [{'name': 'a.json', 'content': '[]'}]}, check_mode=True)
    task('report with a directory', 'numaops.colocation.report_files',
         {'dir': str(reports), 'files': [{'name': 'x/y.json', 'content': '{}'}]})
    (base / 'ansible').mkdir()
    results = dict(zip(names, playbooks.run_tasks(base / 'ansible', tasks)))
    return dict(base=base, results=results, lock=lock, failing_lock=failing_lock, stale_lock=stale_lock,
                reports=reports, stale_query=stale_query)


def test_the_preflight_takes_the_lock_in_its_own_call(runs):
    res = runs['results']['take']
    assert not res.get('failed'), res
    assert res['lock']['outcome'] == 'acquired' and res['lock']['holder']['run_id'] == 'run-a'
    assert res['lock']['holder']['controller'] == socket.gethostname() and res['lock']['holder']['job_id'] == '42'
    assert 'os' in res and 'cgroup' in res  # and read the node


def test_a_lock_held_by_another_run_fails_before_anything_is_read(runs):
    res = runs['results']['other']
    assert res['failed'] and 'os' not in res
    assert res['msg'].startswith('localhost is locked by another run: run run-a (AWX job 42) from controller %s'
                                 % socket.gethostname()), res['msg']
    assert res['msg'].endswith('Nothing was changed.')


def test_check_mode_reports_the_holder_and_reads(runs):
    res = runs['results']['other check']
    assert not res.get('failed'), res
    assert res['lock']['outcome'] == 'held' and 'is locked by another run' in res['lock']['msg']
    assert any('is locked by another run' in warning for warning in res.get('warnings', []))
    assert 'os' in res


def test_a_lock_query_fails_on_another_runs_lock_and_reads_no_file(runs):
    res = runs['results']['query held']
    assert res['failed'] and 'read_token' not in res and 'files' not in res, res
    assert res['msg'].startswith('localhost is locked by another run: run run-a (AWX job 42)'), res['msg']
    assert 'kind: KubeletConfiguration' not in json.dumps(res)
    # the lock stayed run-a's: its renewal in the next task is "refreshed" (test_node_files_renews...)


def test_a_lock_query_in_check_mode_warns_and_reads(runs):
    res = runs['results']['query held check']
    assert not res.get('failed'), res
    assert res['lock']['outcome'] == 'held' and 'is locked by another run' in res['lock']['msg']
    assert any('is locked by another run' in warning for warning in res['warnings'])
    assert len(res['read_token']) == 32


def test_a_lock_query_leaves_a_stale_lock_with_a_warning(runs):
    res = runs['results']['query stale']
    assert not res.get('failed'), res
    assert res['lock']['outcome'] == 'stale' and 'is gone' in res['lock']['stale'] and not res['lock']['locked_by_other']
    assert any('is stale' in warning and 'It is taken over if this run changes the node' in warning
               for warning in res['warnings']), res['warnings']
    # its files were not read (the plan reads them itself), and the stale lock is left as it was
    assert 'read_token' not in res
    assert json.loads(open(runs['stale_query']).read())['run_id'] == 'gone-2'


def test_a_lock_query_of_a_free_node_writes_nothing(runs):
    res = runs['results']['query free']
    assert not res.get('failed'), res
    assert res['lock']['outcome'] == 'absent' and len(res['read_token']) == 32
    assert not os.path.exists(str(runs['base'] / 'free')), 'no lock and no directory'


def test_a_lock_query_takes_only_query_or_present(runs):
    res = runs['results']['query bad state']
    assert res['failed'] and "state=query only reads the lock and needs no run_id" in res['msg'], res['msg']
    res = runs['results']['query on node_files']
    assert res['failed'] and 'lock must be a dictionary with run_id' in res['msg'], res['msg']
    assert 'state=query' not in res['msg']


def test_node_files_renews_and_snapshots_in_one_call(runs):
    res = runs['results']['renew and snapshot']
    assert not res.get('failed'), res
    assert res['lock']['outcome'] == 'refreshed'
    assert res['snapshots'][0]['existed'] and os.path.exists(res['snapshots'][0]['backup'])


def test_node_files_does_nothing_under_another_runs_lock(runs):
    res = runs['results']['snapshot of another run']
    assert res['failed'] and 'is locked by another run: run run-a' in res['msg']
    assert not os.path.exists(str(runs['base'] / 'b2'))


def test_node_config_renews_and_snapshots_in_its_first_call_before_it_writes(runs):
    base = runs['base']
    res = runs['results']['config renews and snapshots']
    assert not res.get('failed') and res['changed'], res
    assert res['lock']['outcome'] == 'refreshed' and res['lock']['holder']['run_id'] == 'run-a'
    first, absent = res['snapshots']
    assert first['existed'] and first['backup'] == str(base / 'b3' / 'nri.toml')
    assert open(first['backup']).read() == NRI_BEFORE  # the copy is of the file before the write
    assert not absent['existed'] and absent['path'] == str(base / 'absent.toml')
    assert 'io.containerd.nri.v1.nri' in (base / 'nri.toml').read_text()


def test_node_config_under_another_runs_lock_writes_and_copies_nothing(runs):
    base = runs['base']
    res = runs['results']['config under another runs lock']
    assert res['failed'] and 'is locked by another run: run run-a' in res['msg'], res
    assert res['lock']['outcome'] == 'held'
    assert (base / 'nri-held.toml').read_text() == NRI_BEFORE
    assert not os.path.exists(str(base / 'b4'))


def test_node_config_whose_snapshot_fails_writes_nothing_and_says_so(runs):
    base = runs['base']
    res = runs['results']['config whose snapshot fails']
    assert res['failed'] and 'cannot use %s: it is a directory' % (base / 'units') in res['msg'], res
    # what was copied before the failure is in the result (the role's rollback puts back what it lists)
    assert [item['path'] for item in res['snapshots']] == [str(base / 'nri-dir.toml')]
    assert res['msg'].endswith('Nothing was changed.'), res['msg']
    assert (base / 'nri-dir.toml').read_text() == NRI_BEFORE


def test_node_config_refuses_a_bad_snapshot_option(runs):
    res = runs['results']['config with a bad snapshot option']
    assert res['failed'] and 'snapshot must be a dictionary with paths' in res['msg'], res


def test_a_plan_keeps_its_read_on_the_controller_not_in_its_result(runs):
    res = runs['results']['plan keeps its read']
    assert not res.get('failed') and res['changed'], res
    assert len(res['read_token']) == 32 and 'NRI' not in repr(res['read_token'])
    assert 'files' not in res and 'version = 2' not in json.dumps(res)
    assert 'read_token' not in runs['results']['a plan that finds nothing to change keeps nothing']


def test_the_apply_writes_from_the_kept_read_with_the_lock_and_the_snapshot(runs):
    base = runs['base']
    res = runs['results']['apply from the kept read']
    assert not res.get('failed') and res['changed'], res
    assert 'read_again' not in res
    assert res['lock']['outcome'] == 'refreshed'
    assert [item['path'] for item in res['snapshots']] == [str(base / 'kept.toml')]
    assert open(res['snapshots'][0]['backup']).read() == NRI_BEFORE
    assert 'io.containerd.nri.v1.nri' in (base / 'kept.toml').read_text()


def test_a_file_changed_since_the_plan_is_read_again_and_kept(runs):
    base = runs['base']
    res = runs['results']['apply from a stale read']
    assert not res.get('failed') and res['changed'], res
    assert res['read_again'] == [str(base / 'kept-stale.toml')]
    text = (base / 'kept-stale.toml').read_text()
    assert '# edited after the plan' in text and 'io.containerd.nri.v1.nri' in text
    # the snapshot is of the file as it was when it was written over, the edit included
    assert '# edited after the plan' in open(res['snapshots'][0]['backup']).read()


def test_the_preflight_keeps_the_plans_files_on_the_controller(runs):
    res = runs['results']['preflight reads for the plan']
    assert not res.get('failed'), res
    assert len(res['read_token']) == 32
    assert 'files' not in res and 'version = 2' not in json.dumps(res)
    plan = runs['results']['plan from the preflight read']
    assert not plan.get('failed') and plan['changed'], plan
    assert plan['diff'][0]['before'] == NRI_BEFORE and 'io.containerd.nri.v1.nri' in plan['diff'][0]['after']
    assert len(plan['read_token']) == 32 and plan['read_token'] != res['read_token']
    assert (runs['base'] / 'pre.toml').read_text() == NRI_BEFORE


def test_a_preflight_read_that_fails_keeps_nothing_and_fails_nothing(runs):
    res = runs['results']['preflight whose read fails']
    assert not res.get('failed') and 'read_token' not in res and 'files_error' not in res, res


def test_a_kept_read_is_used_once(runs):
    res = runs['results']['apply with a token used already']
    assert not res.get('failed') and not res['changed'] and 'read_again' not in res, res


def test_a_bad_lock_option_names_what_is_allowed(runs):
    res = runs['results']['bad lock option']
    assert res['failed'] and 'lock must be a dictionary with run_id and optionally job_id, path, playbook, ' \
                             'stale_after' in res['msg'], res['msg']


def test_a_failed_read_releases_the_lock_it_took(runs):
    res = runs['results']['failing read']
    assert res['failed'] and 'cannot read the kubelet unit file' in res['msg'], res
    assert res['lock']['outcome'] == 'acquired' and res['lock']['released_after_failure'] == 'released'
    assert not os.path.exists(runs['failing_lock'])


def test_a_stale_lock_is_taken_over_with_a_warning(runs):
    res = runs['results']['stale']
    assert not res.get('failed'), res
    assert res['lock']['outcome'] == 'taken_over' and 'is gone' in res['lock']['stale']
    assert any('taking over the stale lock' in warning and 'run gone-1' in warning for warning in res['warnings'])
    assert json.loads(open(runs['stale_lock']).read())['run_id'] == 'run-d'


def test_without_the_lock_option_node_files_is_unchanged(runs):
    res = runs['results']['no lock']
    assert not res.get('failed') and 'lock' not in res
    assert list(res['files']) == [str(runs['base'] / 'config.yaml')]


def test_node_lock_itself_still_releases(runs):
    # a shell command on the node (no module): the outcomes and the holder as the module gives them
    res = runs['results']['release of another run']
    assert not res.get('failed') and res['outcome'] == 'not_ours' and res['holder']['run_id'] == 'run-a', res
    res = runs['results']['release without run id']
    assert res['failed'] and 'run_id' in res['msg'], res
    assert runs['results']['release']['outcome'] == 'released'
    assert not runs['results']['release'].get('changed')
    assert not os.path.exists(runs['lock'])
    assert runs['results']['release again']['outcome'] == 'absent'


def test_report_files_are_written_on_the_controller(runs):
    first, again = runs['results']['reports'], runs['results']['reports again']
    assert first['changed'] and len(first['written']) == 2
    assert not again['changed'] and again['written'] == []
    assert (runs['reports'] / 'b.md').read_text() == '# x\n'
    assert oct(os.stat(str(runs['reports'] / 'a.json')).st_mode & 0o777) == '0o644'
    check = runs['results']['reports check']
    assert check['changed'] and (runs['reports'] / 'a.json').read_text() == '{}'
    bad = runs['results']['report with a directory']
    assert bad['failed'] and "files[].name='x/y.json' is not a file name" in bad['msg']
