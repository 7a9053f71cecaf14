# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The promise of nodefile's temporary files: one that a running process holds (a run still writing) is never
removed, by a real run or in check mode; one whose process is gone (an interrupted run) is. The holder is another
process, as on a node where two runs meet."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import nodefile

HOLDER = '''
import sys
from ansible_collections.numaops.colocation.plugins.module_utils import nodefile
temp = nodefile.TempFile(sys.argv[1])
with open(temp.name + '.new', 'wb') as handle:
    handle.write(b'half of what grub-mkconfig writes')
print(temp.name, flush=True)
sys.stdin.read()
'''


@pytest.fixture
def holder(tmp_path):
    """A process that made a TempFile for tmp_path/config.yaml (and its .new) and holds it until it is killed."""
    target = tmp_path / 'config.yaml'
    target.write_bytes(b'kind: KubeletConfiguration\n')
    proc = subprocess.Popen([sys.executable, '-c', HOLDER, str(target)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)), text=True)
    name = proc.stdout.readline().strip()
    assert name and os.path.exists(name), 'the holder did not make its temporary file'
    yield str(target), name, proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def test_a_temp_file_held_by_a_running_process_is_never_removed(holder):
    target, name, _proc = holder
    assert nodefile.temp_pattern(target).match(os.path.basename(name))
    assert nodefile.stale_temp_files(target) == []
    assert nodefile.remove_stale_temp_files(target, check_mode=True) == []
    assert nodefile.remove_stale_temp_files(target) == []
    assert os.path.exists(name) and os.path.exists(name + '.new')


def test_the_temp_files_of_a_process_that_is_gone_are_removed(holder):
    target, name, proc = holder
    proc.send_signal(signal.SIGKILL)  # an interrupted run: no cleanup of its own
    proc.wait()
    assert os.path.exists(name)
    assert nodefile.remove_stale_temp_files(target, check_mode=True) == [name, name + '.new']
    assert os.path.exists(name)  # check mode only lists them
    assert nodefile.remove_stale_temp_files(target) == [name, name + '.new']
    assert not os.path.exists(name) and not os.path.exists(name + '.new')
    assert os.path.exists(target)


def test_a_held_and_a_stale_temp_file_side_by_side(holder, tmp_path):
    target, name, _proc = holder
    stale = str(tmp_path / '.config.yaml.k3j4h5g6.numaops')
    with open(stale, 'wb') as handle:
        handle.write(b'left by an interrupted run')
    assert nodefile.remove_stale_temp_files(target) == [stale]
    assert os.path.exists(name) and not os.path.exists(stale)
