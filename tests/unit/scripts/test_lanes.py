# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/lanes.py: a failed job's reasons are printed last, so a CI page that keeps only the end shows them."""
from __future__ import annotations

import importlib.util
import os

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
