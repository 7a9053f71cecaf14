# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node lock: exclusive creation, renewal, stale takeover, release."""
from __future__ import annotations

import os
import subprocess
import threading

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import nodelock


def holder(run_id, **extra):
    return dict(dict(run_id=run_id, controller='ctl', pid=1, job_id='', started='2026-12-01T10:00:00Z'), **extra)


def test_first_gets_it_second_is_told_the_holder(tmp_path):
    path = str(tmp_path / 'sub' / 'node.lock')
    assert nodelock.acquire(path, holder('a'))[0] == 'acquired'
    outcome, current, age = nodelock.acquire(path, holder('b'))
    assert outcome == 'held' and current['run_id'] == 'a' and age >= 0
    assert nodelock.acquire(path, holder('a'))[0] == 'refreshed'
    assert nodelock.release(path, 'b')[0] == 'not_ours' and os.path.exists(path)
    assert nodelock.release(path, 'a')[0] == 'released' and not os.path.exists(path)
    assert nodelock.release(path, 'a')[0] == 'absent'


def test_takeover_only_of_the_named_stale_holder(tmp_path):
    path = str(tmp_path / 'node.lock')
    nodelock.acquire(path, holder('old'))
    assert nodelock.acquire(path, holder('new'), takeover_run_id='someone-else')[0] == 'held'
    outcome, current, _age = nodelock.acquire(path, holder('new'), takeover_run_id='old')
    assert outcome == 'taken_over' and current['run_id'] == 'new'
    assert nodelock.read_lock(path)[0]['run_id'] == 'new'
    assert os.listdir(str(tmp_path)) == ['node.lock']


def test_concurrent_acquire_exactly_one_wins(tmp_path):
    path = str(tmp_path / 'node.lock')
    outcomes = []
    threads = [threading.Thread(target=lambda i=i: outcomes.append(nodelock.acquire(path, holder('r%d' % i))[0]))
               for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ['acquired'] + ['held'] * 7


def test_stale_reasons():
    h = holder('a', controller='ctl', pid=99)
    assert 'is gone' in nodelock.stale_reason(h, 5, 3600, 'ctl', False)
    assert nodelock.stale_reason(h, 5, 3600, 'ctl', True) == ''
    assert nodelock.stale_reason(h, 5, 3600, 'other', None) == ''
    assert 'older than the limit of 3600 s' in nodelock.stale_reason(h, 4000, 3600, 'other', None)
    assert nodelock.stale_reason(h, 4000, 0, 'other', None) == ''
    assert nodelock.stale_reason({'unreadable': 'x'}, 9999, 1, 'ctl', False) == ''


def test_describe_and_parse():
    text = nodelock.describe_holder(holder('a', job_id='42', playbook='node_prep'), 7)
    assert text == ('run a (AWX job 42) from controller ctl pid 1 running node_prep, started '
                    '2026-12-01T10:00:00Z (7 s ago)')
    assert nodelock.parse_holder('not json') == {'unreadable': 'not json'}
    assert nodelock.describe_holder(None) == 'nobody'


def _shell_release(path, run_id):
    proc = subprocess.run(['/bin/sh', '-c', nodelock.release_command(path, run_id)], capture_output=True, text=True,
                          check=False)
    return nodelock.parse_release(path, proc.returncode, proc.stdout, proc.stderr)


@pytest.mark.parametrize('name', ['node.lock', "it's a \"lock\" $(touch pwned) `x`.lock", '-dash.lock'])
@pytest.mark.parametrize('run_id', ['20261204T180000Z-42', "odd 'id' \"with\" $HOME and \\ * ?"])
def test_the_shell_release_does_what_release_does(tmp_path, name, run_id):
    """node_lock's action plugin releases with a shell command (no Python on the node): the same outcomes as
    release() on the same files, whatever the path and the run id hold."""
    path = str(tmp_path / name)
    assert _shell_release(path, run_id) == ('absent', None) == nodelock.release(path, run_id)
    nodelock.acquire(path, holder('other'))
    outcome, found = _shell_release(path, run_id)
    assert (outcome, found) == nodelock.release(path, run_id) and outcome == 'not_ours'
    assert found == holder('other') and os.path.exists(path)
    # a run id that is a prefix or a part of the holder's is not the holder
    nodelock.release(path, 'other')
    nodelock.acquire(path, holder(run_id + 'x', playbook='"run_id": %s' % run_id))
    assert _shell_release(path, run_id)[0] == 'not_ours' and os.path.exists(path)
    nodelock.release(path, run_id + 'x')
    nodelock.acquire(path, holder(run_id))
    assert _shell_release(path, run_id) == ('released', None) and not os.path.exists(path)
    assert not os.path.exists(str(tmp_path / 'pwned'))
    assert os.listdir(str(tmp_path)) == []


def test_the_shell_release_of_an_unreadable_or_garbage_lock(tmp_path):
    path = str(tmp_path / 'node.lock')
    with open(path, 'w') as handle:
        handle.write('not json')
    assert _shell_release(path, 'a') == ('not_ours', {'unreadable': 'not json'}) == nodelock.release(path, 'a')
    os.remove(path)
    os.mkdir(path)  # a directory where the lock should be: cannot be read
    with pytest.raises(nodelock.LockError, match='node.lock cannot be read: '):
        _shell_release(path, 'a')
    # a link is followed to read and removed itself, as release() does
    os.rmdir(path)
    target = str(tmp_path / 'elsewhere')
    nodelock.acquire(target, holder('a'))
    os.symlink(target, path)
    assert _shell_release(path, 'a') == ('released', None)
    assert not os.path.lexists(path) and os.path.exists(target)


def _shell_acquire(path, wanted):
    proc = subprocess.run(['/bin/sh', '-c', nodelock.acquire_command(path, wanted)], capture_output=True, text=True,
                          check=False)
    return nodelock.parse_acquire(wanted, proc.returncode, proc.stdout)


@pytest.mark.parametrize('name', ['sub/node.lock', "it's a \"lock\" $(touch pwned) `x`.lock", '-dash.lock'])
@pytest.mark.parametrize('run_id', ['20261204T180000Z-42', "odd 'id' \"with\" $HOME and \\ * ?"])
def test_the_shell_acquire_does_what_acquire_does(tmp_path, name, run_id):
    """node_lock's action plugin takes the lock with a shell command (no Python on the node): the same file, bytes
    and mode, and the same outcomes as acquire() on the same files, whatever the path and the run id hold."""
    path = str(tmp_path / name)
    mine = holder(run_id, playbook="node_prep's \"play\"")
    assert _shell_acquire(path, mine) == ('acquired', mine, 0)
    with open(path, 'rb') as handle:
        written = handle.read()
    mode = os.stat(path).st_mode
    os.remove(path)
    nodelock.acquire(path, mine)
    with open(path, 'rb') as handle:
        assert handle.read() == written, 'the bytes acquire() writes'
    assert os.stat(path).st_mode == mode
    os.utime(path, (1, 1))
    outcome, current, age = _shell_acquire(path, mine)
    assert (outcome, current) == ('refreshed', mine) and age > 1000
    assert nodelock.read_lock(path)[1] < 60, 'renewed'
    # another run's lock, also one whose playbook names this run id, is held, not ours
    other = holder(run_id + 'x', playbook='"run_id": %s' % run_id)
    outcome, current, _age = _shell_acquire(path, other)
    assert (outcome, current) == ('held', mine)
    assert nodelock.acquire(path, other)[:2] == ('held', mine)
    assert not os.path.exists(str(tmp_path / 'pwned'))


def test_the_shell_acquire_leaves_what_it_cannot_decide_to_the_module(tmp_path):
    path = str(tmp_path / 'node.lock')
    os.mkdir(path)  # a directory where the lock should be: neither created nor read
    assert _shell_acquire(path, holder('a')) is None
    assert nodelock.parse_acquire(holder('a'), 0, 'something else\n') is None
    assert nodelock.parse_acquire(holder('a'), 1, 'acquired\n') is None
    with open(str(tmp_path / 'garbage.lock'), 'w') as handle:
        handle.write('not json')
    outcome, current, _age = _shell_acquire(str(tmp_path / 'garbage.lock'), holder('a'))
    assert (outcome, current) == ('held', {'unreadable': 'not json'})
