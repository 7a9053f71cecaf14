# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the end-to-end tests share: where the collection tree is, and one real ansible-playbook run of a list of
tasks on localhost."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import ansible_collections


def missing(what, fix):
    """A tool the end-to-end tests need is missing: a failure, never a skip (each test runs in one stage of
    scripts/test.sh only, tests/unit/unit_stage.py; ansible-test units and the unit stage both provide them)."""
    pytest.fail('%s: %s' % (what, fix))


def collections_path():
    """The directory holding ansible_collections/numaops/colocation (for ANSIBLE_COLLECTIONS_PATH)."""
    for entry in ansible_collections.__path__:
        if os.path.isdir(os.path.join(entry, 'numaops', 'colocation', 'plugins', 'modules')):
            return os.path.dirname(entry)
    missing('the collection tree is not on sys.path', 'run pytest from the repository (tests/unit/conftest.py sets it '
            'up) or with PYTHONPATH naming a directory that holds ansible_collections/numaops/colocation')
    return None


def ansible_playbook():
    found = shutil.which('ansible-playbook', path=os.path.dirname(sys.executable)) or shutil.which('ansible-playbook')
    if not found:
        missing('ansible-playbook is not installed', 'scripts/lib.sh ensure_venv installs it (tests/requirements-dev.txt)')
    return found


def run_tasks(work, tasks):
    """Runs ``tasks`` (task dicts: name, module and arguments, keywords) in one real ansible-playbook run on
    localhost in ``work`` (a pathlib.Path); a failed task does not stop the play (``ignore_errors``).
    Returns the registered result of each task, in order."""
    playbook = ansible_playbook()
    play_tasks = [dict(task, register='r%d' % number, ignore_errors=True) for number, task in enumerate(tasks)]
    out = work / 'results.json'
    play_tasks.append({'name': 'Results', 'ansible.builtin.copy': {
        'content': '{{ [%s] | to_json }}' % ', '.join('r%d' % n for n in range(len(tasks))),
        'dest': str(out), 'mode': '0600'}})
    (work / 'play.yml').write_text(json.dumps([{'hosts': 'localhost', 'gather_facts': False, 'tasks': play_tasks}]))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR='1',
               ANSIBLE_LOCALHOST_WARNING='0', ANSIBLE_INVENTORY_UNPARSED_WARNING='0',
               ANSIBLE_HOME=str(work / 'home'), ANSIBLE_LOCAL_TEMP=str(work / 'local-tmp'),
               ANSIBLE_REMOTE_TEMP=str(work / 'remote-tmp'))
    proc = subprocess.run([playbook, '-i', 'localhost,', '-c', 'local', str(work / 'play.yml'),
                           '-e', 'ansible_python_interpreter=%s' % sys.executable],
                          cwd=str(work), env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and out.exists(), proc.stdout[-5000:] + proc.stderr[-3000:]
    return json.loads(out.read_text())
