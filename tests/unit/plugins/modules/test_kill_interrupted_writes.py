# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SIGKILL while writing: every file is the old or the new version, never torn, and the next run finishes the
job and leaves no temporary file behind.

The modules run as their own processes (as on a node), from an argument file, and are killed after a delay
drawn from a seeded generator over the length of an uninterrupted run; a bounded number of iterations. The
files are large (a few MiB) so that the kills land in the writing, not only before or after it. Which
state each kill left is printed (-s), not asserted: only the invariants are.
"""
from __future__ import annotations

import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import ansible
import ansible_collections
import pytest

if os.environ.get('ANSIBLE_CONTROLLER_MIN_PYTHON_VERSION'):
    pytest.skip('kills module processes at seeded points: in the plain pytest stage only', allow_module_level=True)

TESTS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), 'standins'))
import grub_sandbox  # noqa: E402  pylint: disable=wrong-import-position

ITERATIONS = 10
SEED = 16


def pythonpath():
    """This collection and the ansible-core of this test run (ansible-test puts both on its own PYTHONPATH)."""
    for entry in ansible_collections.__path__:
        if os.path.isdir(os.path.join(entry, 'numaops', 'colocation')):
            parts = [os.path.dirname(entry), os.path.dirname(os.path.dirname(ansible.__file__))]
            parts.extend(p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p)
            return os.pathsep.join(parts)
    raise AssertionError('the collection is not importable')


def start(module, args, work):
    argfile = os.path.join(work, 'args-%s.json' % os.getpid())
    with open(argfile, 'w') as f:
        json.dump({'ANSIBLE_MODULE_ARGS': args}, f)
    env = dict(os.environ, PYTHONPATH=pythonpath())
    return subprocess.Popen([sys.executable, '-m', 'ansible_collections.numaops.colocation.plugins.modules.' + module,
                             argfile], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc):
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, (out + err).decode('utf-8', 'replace')[-3000:]
    return json.loads(out)


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def our_temps(root):
    return sorted(glob.glob(os.path.join(root, '**', '.*.numaops*'), recursive=True))


def kill_loop(make, module, args_of, files_of, work):
    """make(dest) builds a fresh tree and returns its root. Returns the states seen, for the report."""
    pristine = make(os.path.join(work, 'pristine'))
    old = dict((p, read(p)) for p in files_of(pristine))
    # the new versions and the length of an uninterrupted run
    reference = make(os.path.join(work, 'reference'))
    t0 = time.monotonic()
    res = finish(start(module, args_of(reference), work))
    duration = time.monotonic() - t0
    assert res.get('changed') is True
    new = dict((p.replace(reference, pristine, 1), read(p)) for p in files_of(reference))
    assert all(new[p] != old[p] for p in new if p in old) and our_temps(reference) == []
    rng = random.Random(SEED)
    seen = []
    for n in range(ITERATIONS):
        root = make(os.path.join(work, 'run%d' % n))
        proc = start(module, args_of(root), work)
        # stratified over 40% .. 160% of an uninterrupted run (start-up is most of it; runs vary), seeded
        time.sleep(duration * (0.4 + 1.2 * (n + rng.random()) / ITERATIONS))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        state = []
        for p in files_of(root):
            data = read(p)
            key = p.replace(root, pristine, 1)
            assert data in (old[key], new[key]), '%s torn by the kill (run %d)' % (p, n)
            state.append('new' if data == new[key] else 'old')
        temps = our_temps(root)
        seen.append((tuple(state), len(temps)))
        # the next run completes the job and removes what the killed one left
        again = finish(start(module, args_of(root), work))
        assert our_temps(root) == [], 'run %d left %s' % (n, our_temps(root))
        for p in files_of(root):
            assert read(p) == new[p.replace(root, pristine, 1)], '%s not finished by the next run' % p
        if temps:
            assert again.get('failed') is not True
        shutil.rmtree(root)
    print('%s: %d kills, (file states, temporary files left) seen: %s' % (module, ITERATIONS, sorted(set(seen))))
    return seen


def test_kernel_cmdline_killed_while_writing(tmp_path):
    def make(dest):
        root = grub_sandbox.build('openeuler-efi', dest)
        cfg = root + '/boot/efi/EFI/openEuler/grub.cfg'
        with open(cfg, 'ab') as f:  # a large grub.cfg (many entries' worth), within the size limit
            f.write(b'### padding: many old kernels\n' * (4 * 1024 * 1024 // 31))
        return root

    def args_of(root):
        return dict(args=['mem_sampling_on', 'numa_icon=enable'], backend='grubcfg',
                    grub_cfg_paths=[root + '/etc/grub2-efi.cfg'], grub_defaults_path=root + '/etc/default/grub',
                    boot_dir=root + '/boot', proc_cmdline_path=root + '/proc/cmdline')

    def files_of(root):
        return [root + '/etc/default/grub', root + '/boot/efi/EFI/openEuler/grub.cfg']

    kill_loop(make, 'kernel_cmdline', args_of, files_of, str(tmp_path))


def test_node_files_killed_while_writing(tmp_path):
    def make(dest):
        os.makedirs(dest)
        for name in ('config.toml', 'config.yaml'):
            with open(os.path.join(dest, name), 'wb') as f:
                f.write(b'# old\n' + b'a' * (900 * 1024) + b'\n')
        return dest

    def args_of(root):
        return dict(write=[dict(path=os.path.join(root, name), content='# new\n' + 'b' * (900 * 1024) + '\n')
                           for name in ('config.toml', 'config.yaml')])

    def files_of(root):
        return [os.path.join(root, 'config.toml'), os.path.join(root, 'config.yaml')]

    kill_loop(make, 'node_files', args_of, files_of, str(tmp_path))
