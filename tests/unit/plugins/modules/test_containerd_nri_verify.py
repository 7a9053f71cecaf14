# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""containerd_nri_verify without containerd: the integration target runs it against real containerd.

Stand-in for containerd here: a real listening Unix socket in the test process (what containerd's gRPC
socket looks like to a connection attempt; ``ctr`` is pointed at a missing program so the module falls
back to the connection check, as on a node without ctr) and a restart command that binds a fresh NRI
socket file, like containerd's NRI plugin does when it starts.
"""
from __future__ import annotations

import json
import os
import socket
import sys

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.numaops.colocation.plugins.modules import containerd_nri_verify as verify

BIND = 'import socket, os, sys; p = sys.argv[1]; os.path.exists(p) and os.remove(p); socket.socket(socket.AF_UNIX).bind(p)'


def run_module(capsys, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            verify.main()
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def sandbox(tmp_path):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    address = str(tmp_path / 'containerd.sock')
    log = tmp_path / 'containerd.log'
    log.write_text(''.join('line %d\n' % n for n in range(1, 51)))
    yield dict(path=tmp_path, address=address, listener=listener, nri=str(tmp_path / 'nri.sock'), log=str(log))
    listener.close()


def listen(sandbox):
    sandbox['listener'].bind(sandbox['address'])
    sandbox['listener'].listen(16)


def base_args(sandbox, **extra):
    args = dict(address=sandbox['address'], ctr_binary='no-such-ctr-for-tests', nri_socket_path=sandbox['nri'],
                log_file=sandbox['log'], timeout=1,
                restart_command=[sys.executable, '-c', BIND, sandbox['nri']])
    args.update(extra)
    return args


def test_check_mode_reports_the_plan_and_does_nothing(sandbox, capsys):
    res = run_module(capsys, _ansible_check_mode=True, **base_args(sandbox))
    assert res['changed'] is True and res['restarted'] is True
    assert not os.path.exists(sandbox['nri'])
    assert res['plan'][0].startswith('restart containerd with: ')
    assert 'socket connection' in res['plan'][1]
    assert res['plan'][2] == 'wait up to 1s for the NRI socket %s to be created' % sandbox['nri']


def test_restart_waits_for_a_fresh_nri_socket(sandbox, capsys):
    listen(sandbox)
    socket.socket(socket.AF_UNIX).bind(sandbox['nri'])  # stale socket from the previous start
    before = verify._socket_identity(sandbox['nri'])
    res = run_module(capsys, **base_args(sandbox))
    assert res.get('failed') is not True, res
    assert res['changed'] and res['restarted'] and res['containerd_ready'] and res['nri_ready']
    assert verify._socket_identity(sandbox['nri']) != before


def test_stale_nri_socket_is_not_accepted(sandbox, capsys):
    listen(sandbox)
    socket.socket(socket.AF_UNIX).bind(sandbox['nri'])
    res = run_module(capsys, **base_args(sandbox, restart_command=['true'], journal_lines=3))
    assert res['failed'] is True
    assert res['containerd_ready'] is True and res['nri_ready'] is False
    assert 'the NRI socket %s was not created within 1s' % sandbox['nri'] in res['msg']
    assert 'The configuration was kept.' in res['msg']
    assert res['msg'].endswith('Last 3 lines of %s:\nline 48\nline 49\nline 50' % sandbox['log'])


def test_nri_disabled_is_not_waited_for(sandbox, capsys):
    listen(sandbox)
    res = run_module(capsys, **base_args(sandbox, restart_command=['true'],
                                         nri={'disable': False, 'disable_connections': True,
                                              'socket_path': sandbox['nri']}))
    assert res.get('failed') is not True, res
    assert res['nri_socket'] is None and res['nri_ready'] is None
    assert res['plan'][-1] == 'not waiting for the NRI socket (NRI connections disabled)'


def test_containerd_down_restores_and_fails_with_the_log(sandbox, capsys):
    config = sandbox['path'] / 'config.toml'
    backup = sandbox['path'] / 'config.toml.bak'
    created = sandbox['path'] / '99-nri.toml'
    config.write_text('version = 3\n')
    backup.write_text('version = 2\n')
    created.write_text('version = 2\n')
    os.chmod(config, 0o640)
    res = run_module(capsys, **base_args(sandbox, restart_command=['true'], journal_lines=2, restore=[
        dict(path=str(config), backup_file=str(backup)), dict(path=str(created), backup_file=None)]))
    assert res['failed'] is True and res['containerd_ready'] is False
    assert config.read_text() == 'version = 2\n'
    assert os.stat(config).st_mode & 0o777 == 0o640
    assert not created.exists()
    msg = res['msg']
    assert msg.startswith('containerd did not answer on %s within 1s after the restart (cannot connect to'
                          % sandbox['address'])
    assert 'Restored %s (from %s); %s (removed: it did not exist before).' % (config, backup, created) in msg
    assert 'containerd is STILL DOWN' in msg
    assert msg.endswith('Last 2 lines of %s:\nline 49\nline 50' % sandbox['log'])
    assert res['journal'] == ['line 49', 'line 50']


# A containerd that serves its socket for a second and exits without an NRI socket (containerd 1.7 serves its
# socket before its CRI service starts NRI, and exits when that fails): a forked child listens, then goes.
ANSWER_THEN_DIE = ('import os, socket, sys, time\n'
                   'if os.fork() == 0:\n'
                   '    s = socket.socket(socket.AF_UNIX); os.path.exists(sys.argv[1]) and os.remove(sys.argv[1])\n'
                   '    s.bind(sys.argv[1]); s.listen(8); time.sleep(1.0); s.close(); os._exit(0)\n'
                   'time.sleep(0.2)\n')


def test_containerd_that_answers_then_dies_is_down_and_restored(sandbox, capsys):
    config = sandbox['path'] / 'config.toml'
    backup = sandbox['path'] / 'config.toml.bak'
    config.write_text('version = 3\n')
    backup.write_text('version = 2\n')
    res = run_module(capsys, **base_args(sandbox, timeout=2, journal_lines=2,
                                         restart_command=[sys.executable, '-c', ANSWER_THEN_DIE, sandbox['address']],
                                         restore=[dict(path=str(config), backup_file=str(backup))]))
    assert res['failed'] is True
    assert res['containerd_ready'] is False and res['nri_ready'] is False
    assert res['msg'].startswith('containerd answered on %s after the restart, but the NRI socket %s was not created '
                                 'within 2s and containerd no longer answers (cannot connect to'
                                 % (sandbox['address'], sandbox['nri']))
    assert 'it stopped after it had started. Restored %s (from %s).' % (config, backup) in res['msg']
    assert config.read_text() == 'version = 2\n'


# A containerd that its service manager starts again at once after it died (systemd Restart=always): the first
# start serves its socket for a second and exits, the next one binds a new socket and keeps answering (still without
# an NRI socket) - at the end of the wait containerd answers, but not the containerd that answered first. (The child
# lets go of the restart command's output at once, so that the module's wait starts while the first one serves.)
ANSWER_DIE_AND_COME_BACK = ('import os, socket, sys, time\n'
                            'if os.fork() == 0:\n'
                            '    null = os.open(os.devnull, os.O_RDWR); os.dup2(null, 1); os.dup2(null, 2)\n'
                            '    def serve(seconds):\n'
                            '        s = socket.socket(socket.AF_UNIX); os.path.exists(sys.argv[1]) and os.remove(sys.argv[1])\n'
                            '        s.bind(sys.argv[1]); s.listen(8); time.sleep(seconds); s.close()\n'
                            '        os.path.exists(sys.argv[1]) and os.remove(sys.argv[1])\n'
                            '    serve(1.5); time.sleep(0.3); serve(6.0); os._exit(0)\n'
                            'time.sleep(0.2)\n')


def test_containerd_restarted_meanwhile_is_down_and_restored(sandbox, capsys):
    config = sandbox['path'] / 'config.toml'
    backup = sandbox['path'] / 'config.toml.bak'
    config.write_text('version = 3\n')
    backup.write_text('version = 2\n')
    res = run_module(capsys, **base_args(sandbox, timeout=3, journal_lines=2,
                                         restart_command=[sys.executable, '-c', ANSWER_DIE_AND_COME_BACK,
                                                          sandbox['address']],
                                         restore=[dict(path=str(config), backup_file=str(backup))]))
    assert res['failed'] is True
    assert res['containerd_ready'] is False and res['nri_ready'] is False, res['msg']
    assert res['msg'].startswith('containerd answered on %s after the restart, but the NRI socket %s was not created '
                                 'within 3s and containerd did not stay up: it exited and was started again meanwhile'
                                 % (sandbox['address'], sandbox['nri'])), res['msg']
    assert 'Restored %s (from %s).' % (config, backup) in res['msg']
    assert config.read_text() == 'version = 2\n'


def test_containerd_down_without_restore_says_so(sandbox, capsys):
    res = run_module(capsys, **base_args(sandbox, restart_command=['false']))
    assert res['failed'] is True
    assert '`false` failed (rc=1)' in res['msg']
    assert 'restored no files' in res['msg']


# TEST DOUBLE for journalctl: records its arguments and prints fixed journal lines (more than asked for, so
# the module's own trimming to journal_lines is checked too). Written into the test's temporary directory,
# which is put first on PATH, where the module's get_bin_path('journalctl') finds it.
FAKE_JOURNALCTL = """#!/bin/sh
# TEST DOUBLE for journalctl, written by test_containerd_nri_verify.py; not the real journalctl.
printf '%%s\\n' "$@" '==' >> '%(args)s'
printf 'fake-journal line %%d\\n' 1 2 3 4 5
"""
# TEST DOUBLE for journalctl on a node where systemd restarts a containerd that dies at once (Restart=always):
# the fatal line of each start, then the next start's first lines; the last lines show only the start under way.
LOOPING_JOURNALCTL = """#!/bin/sh
# TEST DOUBLE for journalctl, written by test_containerd_nri_verify.py; not the real journalctl.
printf '%%s\\n' "$@" '==' >> '%(args)s'
for pid in 101 102 103; do
  at="2026-12-03T12:47:5${pid#10}"
  head="$at+00:00 node containerd[$pid]: time=\\"$at"
  echo "$head.1Z\\" level=info msg=\\"starting containerd\\""
  echo "$head.2Z\\" level=info msg=\\"skip loading plugin\\" error=\\"no scratch file generator: skip plugin\\""
  if [ $pid != 103 ]; then
    echo "$head.3Z\\" level=fatal msg=\\"Failed to run CRI service\\" error=\\"mkdir /var/run/nri: not a directory\\""
    echo "$at+00:00 node systemd[1]: containerd.service: Main process exited, code=exited, status=1/FAILURE"
    echo "$at+00:00 node systemd[1]: containerd.service: Failed with result 'exit-code'."
  fi
done
"""
# TEST DOUBLE for a journalctl that fails (no journal on this host).
FAILING_JOURNALCTL = """#!/bin/sh
# TEST DOUBLE for a failing journalctl, written by test_containerd_nri_verify.py; not the real journalctl.
echo 'No journal files were found.' >&2
exit 1
"""


def fake_journalctl(sandbox, monkeypatch, script):
    bin_dir = sandbox['path'] / 'fake-journalctl-bin'
    bin_dir.mkdir()
    args_file = sandbox['path'] / 'fake-journalctl.args'
    (bin_dir / 'journalctl').write_text(script % dict(args=args_file))
    os.chmod(str(bin_dir / 'journalctl'), 0o755)
    monkeypatch.setenv('PATH', '%s%s%s' % (bin_dir, os.pathsep, os.environ.get('PATH', '')))
    return args_file


def journal_args(sandbox, **extra):
    """Arguments of a failing start (nothing listens on the address) without log_file: the journal is shown."""
    args = base_args(sandbox, restart_command=[sys.executable, '-c', 'pass'], service='containerd-under-test',
                     journal_lines=3, **extra)
    del args['log_file']
    return args


def test_failure_shows_the_journal_from_journalctl(sandbox, capsys, monkeypatch):
    args_file = fake_journalctl(sandbox, monkeypatch, FAKE_JOURNALCTL)
    res = run_module(capsys, **journal_args(sandbox))
    assert res['failed'] is True and res['containerd_ready'] is False
    calls = args_file.read_text().split('==\n')[:-1]
    assert calls[0].split('\n')[:-1] == ['-u', 'containerd-under-test', '-n', '3', '--no-pager', '-o', 'short-iso']
    # then everything since the restart, for the error lines (none in this journal)
    since = calls[1].split('\n')[:-1]
    assert since[:5] == ['-u', 'containerd-under-test', '--no-pager', '-o', 'short-iso'] and since[5] == '--since'
    assert since[6].startswith('@') and int(since[6][1:]) > 1700000000
    assert res['journal_errors'] == []
    assert res['journal'] == ['fake-journal line 3', 'fake-journal line 4', 'fake-journal line 5']
    assert res['msg'].startswith('containerd did not answer on %s within 1s after the restart' % sandbox['address'])
    assert res['msg'].endswith('Last 3 lines of journalctl -u containerd-under-test:\n'
                               'fake-journal line 3\nfake-journal line 4\nfake-journal line 5')


def test_failure_names_the_reason_when_systemd_restarted_containerd_meanwhile(sandbox, capsys, monkeypatch):
    fake_journalctl(sandbox, monkeypatch, LOOPING_JOURNALCTL)
    res = run_module(capsys, **journal_args(sandbox))
    assert res['failed'] is True and res['containerd_ready'] is False
    # the last lines are mostly the start under way, which says nothing of why the ones before it died
    assert all('level=info' in line for line in res['journal'][-2:])
    # the reason, once although two starts died of it, then systemd's account
    assert res['journal_errors'] == [
        '2026-12-03T12:47:52+00:00 node containerd[102]: time="2026-12-03T12:47:52.3Z" level=fatal '
        'msg="Failed to run CRI service" error="mkdir /var/run/nri: not a directory"',
        '2026-12-03T12:47:52+00:00 node systemd[1]: containerd.service: Main process exited, code=exited, '
        'status=1/FAILURE',
        "2026-12-03T12:47:52+00:00 node systemd[1]: containerd.service: Failed with result 'exit-code'."]
    msg = res['msg']
    assert ("restored no files (its restore list is empty). containerd's errors since the restart (journalctl -u "
            "containerd-under-test):\n" + '\n'.join(res['journal_errors']) + '\nLast 3 lines of journalctl -u '
            'containerd-under-test:\n') in msg
    assert msg.endswith('\n'.join(res['journal']))


def test_failure_names_the_errors_of_the_log_file(sandbox, capsys):
    with open(sandbox['log'], 'a', encoding='utf-8') as log:
        log.write('time="t1" level=error msg="first"\ntime="t2" level=warning msg="not an error"\n'
                  'time="t3" level=fatal msg="last"\nthe end\n')
    res = run_module(capsys, **base_args(sandbox, restart_command=['true'], journal_lines=2))
    assert res['journal_errors'] == ['time="t1" level=error msg="first"', 'time="t3" level=fatal msg="last"']
    assert ("containerd's errors (%s):\n" % sandbox['log']) + '\n'.join(res['journal_errors']) in res['msg']
    assert res['msg'].endswith('Last 2 lines of %s:\ntime="t3" level=fatal msg="last"\nthe end' % sandbox['log'])


def test_failure_when_journalctl_fails(sandbox, capsys, monkeypatch):
    fake_journalctl(sandbox, monkeypatch, FAILING_JOURNALCTL)
    res = run_module(capsys, **journal_args(sandbox))
    assert res['failed'] is True and res['containerd_ready'] is False
    assert res['journal'] == ['(journalctl failed: No journal files were found.)']
    assert res['msg'].endswith('Last 1 lines of journalctl -u containerd-under-test:\n'
                               '(journalctl failed: No journal files were found.)')


def test_failure_when_journalctl_is_missing(sandbox, capsys, monkeypatch):
    real_get_bin_path = verify.AnsibleModule.get_bin_path

    def get_bin_path_without_journalctl(self, arg, *args, **kwargs):
        return None if arg == 'journalctl' else real_get_bin_path(self, arg, *args, **kwargs)

    monkeypatch.setattr(verify.AnsibleModule, 'get_bin_path', get_bin_path_without_journalctl)
    res = run_module(capsys, **journal_args(sandbox))
    assert res['failed'] is True and res['containerd_ready'] is False
    assert res['journal'] == ["(journalctl is not installed; set log_file to show containerd's log)"]
    assert res['msg'].endswith("Last 1 lines of journalctl -u containerd-under-test:\n"
                               "(journalctl is not installed; set log_file to show containerd's log)")


def test_server_version_parsing():
    out = ('Client:\n  Version:  1.6.20~ds1\n  Revision: x\n\nServer:\n  Version:  1.7.24~ds1\n'
           '  Revision: 1.7.24~ds1-6+deb13u1\n  UUID: u\n')
    assert verify._server_version(out) == '1.7.24~ds1'
    assert verify._server_version('Client:\n  Version: 1\n') is None
