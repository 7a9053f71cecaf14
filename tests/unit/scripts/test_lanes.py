# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/lanes.py: the jobs wait for every job they name; a failed job's reasons are printed last, so a CI page that
keeps only the end shows them."""
from __future__ import annotations

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_SPEC = importlib.util.spec_from_file_location('lanes', os.path.join(ROOT, 'scripts', 'lanes.py'))
lanes = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(lanes)


def test_error_lines_pick_reasons_not_retries():
    lines = [
        'TASK [Create the pods] ***',
        'FAILED - RETRYING: [x]: wait (99 retries left).',
        'fatal: [testnode]: FAILED! => {"changed": false, "msg": "boom"}',
        'failed: [testnode] (item=a) => {"msg": "item failed"}',
        'ok: [testnode]',
        'ERROR    Ansible return code was 2, command was: ansible-playbook prepare.yml',
        'E   AssertionError: 1 != 2',
        'ERROR: Found 1 pylint issue(s) which need to be resolved:',
        'FATAL: The 1 sanity test(s) listed below (out of 24) failed. See error output above for details.',
        'Traceback (most recent call last):',
        'tests.cluster.controlplane.ControlPlaneError: etcd exited with 1',
    ]
    not_errors = ('TASK [', 'FAILED - RETRYING', 'ok: ')
    assert lanes.error_lines(lines) == ['  ' + line for line in lines if not line.startswith(not_errors)]


def test_error_lines_keep_the_last_and_cut_long_lines():
    lines = ['fatal: [h%d]: FAILED! => {}' % n for n in range(30)] + ['fatal: [h]: ' + 'x' * 2000]
    picked = lanes.error_lines(lines)
    assert len(picked) == lanes.ERROR_LINES
    assert picked[0] == '  fatal: [h19]: FAILED! => {}'
    assert picked[-1].endswith(' [...]') and len(picked[-1]) == 2 + 600 + len(' [...]')


def test_failed_job_reasons_are_the_last_lines(tmp_path, capsys, monkeypatch):
    # a stand-in test.sh: the real one runs whole stages; lanes.py only needs a job that prints and fails
    script = tmp_path / 'test.sh'
    script.write_text('echo "TASK [x]"\necho \'fatal: [n]: FAILED! => {"msg": "port taken"}\'\n'
                      'for i in $(seq 300); do echo "line $i"; done\nexit 2\n')
    monkeypatch.setattr(lanes, 'HERE', str(tmp_path))
    assert lanes.main(['--jobs', '1', 'molecule:x']) == 1
    out = capsys.readouterr().out.rstrip().splitlines()
    assert out[-1] == 'lanes: FAILED: molecule:x'
    assert '  fatal: [n]: FAILED! => {"msg": "port taken"}' in out[-5:]


def test_parse_jobs_with_one_several_or_no_jobs_waited_for():
    assert lanes.parse_jobs(['upstream', 'ee:build', 'unit@upstream', 'ee:run@upstream@ee:build']) == [
        ('upstream', ()), ('ee:build', ()), ('unit', ('upstream',)), ('ee:run', ('upstream', 'ee:build'))]


def test_parse_jobs_refuses_a_job_waited_for_that_comes_later():
    with pytest.raises(SystemExit, match='job ee:run waits for ee:build, which is not an earlier job'):
        lanes.parse_jobs(['upstream', 'ee:run@upstream@ee:build', 'ee:build'])


def _stand_in_test_sh(tmp_path, fail=()):
    """A test.sh that appends "start NAME" and "end NAME" to a journal (each job sleeps a little in between, so
    that two lanes overlap) and fails for the names in ``fail``."""
    journal = tmp_path / 'journal'
    script = tmp_path / 'test.sh'
    script.write_text('echo "start $1" >>%s\nsleep 1.5\necho "end $1" >>%s\ncase " %s " in *" $1 "*) exit 1 ;; esac\n'
                      % (journal, journal, ' '.join(fail)))
    return journal


def test_a_job_starts_only_after_every_job_it_waits_for(tmp_path, capsys, monkeypatch):
    journal = _stand_in_test_sh(tmp_path)
    monkeypatch.setattr(lanes, 'HERE', str(tmp_path))
    # two lanes: a and b start together; c waits for both, d for a only and runs beside b
    assert lanes.main(['--jobs', '2', 'a', 'b', 'c@a@b', 'd@a']) == 0
    lines = journal.read_text().splitlines()
    assert lines.index('start c') > max(lines.index('end a'), lines.index('end b')), lines
    assert lines.index('start d') > lines.index('end a'), lines
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == 'lanes: every job passed'


def test_a_job_waiting_for_a_failed_job_is_not_started_and_says_which(tmp_path, capsys, monkeypatch):
    journal = _stand_in_test_sh(tmp_path, fail=('b',))
    monkeypatch.setattr(lanes, 'HERE', str(tmp_path))
    assert lanes.main(['--jobs', '2', 'a', 'b', 'c@a@b']) == 1
    assert 'start c' not in journal.read_text().splitlines()
    out = capsys.readouterr().out
    assert '== lanes: c NOT STARTED: it needs b, which failed' in out
    assert out.rstrip().splitlines()[-1] == 'lanes: FAILED: b, c'
