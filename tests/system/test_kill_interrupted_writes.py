# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SIGKILL while writing: every file is the old or the new version, never torn, and the next run finishes the
job and leaves no temporary file behind.

The modules run as their own processes (as on a node), from an argument file, and are killed two ways:

* inside a write, at known points: a Python audit hook in the module's process (no hook in the collection's
  code) sends SIGKILL when the process opens one of our temporary files to write the new content into it
  (the file exists, empty) and when it moves one into place (its content complete, not yet renamed), once for
  each such point an uninterrupted run passes. Every one of these kills must land inside a write: the
  process dies by the signal and leaves a temporary file, or some files new and others old;
* after a delay drawn from a seeded generator over the length of an uninterrupted run; the files are large
  (a few MiB) so that such kills land in the writing too, not only before or after it.

How many kills landed inside a write is asserted (every kill at a write point) and printed with the states
seen (-s).
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

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, 'standins'))
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


# Runs a module like `python -m MODULE ARGFILE`, with an audit hook that counts the write points (our temporary
# files opened for writing, and moved into place) and, when KILL_AT names one (kind and number), kills the
# process there with SIGKILL. At exit the counts go to the file COUNTS.
KILLER = r'''
import atexit, json, os, runpy, signal, sys
counts_file, kill_kind, kill_at, module, argfile = sys.argv[1:6]
kill_at = int(kill_at)
counts = {'create': 0, 'rename': 0}


def ours(path):
    return '.numaops' in os.path.basename(os.fsdecode(path)) if isinstance(path, (str, bytes)) else False


def hook(event, args):
    if event == 'open' and ours(args[0]) and isinstance(args[1], str) and 'w' in args[1]:
        kind = 'create'
    elif event in ('os.rename', 'os.replace') and ours(args[0]) and not ours(args[1]):
        kind = 'rename'
    else:
        return
    counts[kind] += 1
    if kind == kill_kind and counts[kind] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)


def save():
    with open(counts_file, 'w') as handle:
        json.dump(counts, handle)


atexit.register(save)
sys.addaudithook(hook)
sys.argv = [module, argfile]
runpy.run_module(module, run_name='__main__', alter_sys=True)
'''
MODULES = 'ansible_collections.numaops.colocation.plugins.modules.'


def start(module, args, work, kill_kind='none', kill_at=0):
    argfile = os.path.join(work, 'args-%s.json' % os.getpid())
    with open(argfile, 'w') as f:
        json.dump({'ANSIBLE_MODULE_ARGS': args}, f)
    env = dict(os.environ, PYTHONPATH=pythonpath())
    return subprocess.Popen([sys.executable, '-c', KILLER, os.path.join(work, 'counts.json'), kill_kind, str(kill_at),
                             MODULES + module, argfile], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def write_points(work):
    """{'create': n, 'rename': n} of the last run that was not killed."""
    with open(os.path.join(work, 'counts.json')) as f:
        return json.load(f)


def finish(proc):
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, (out + err).decode('utf-8', 'replace')[-3000:]
    return json.loads(out)


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def our_temps(root):
    return sorted(glob.glob(os.path.join(root, '**', '.*.numaops*'), recursive=True))


def killed_run(make, module, args_of, files_of, work, old, new, name, kill):
    """One run killed by ``kill(proc)``, checked, then finished by the next run. Returns (file states, temporary
    files left, whether it landed inside a write)."""
    root = make(os.path.join(work, name))
    proc = kill(root)
    if proc.returncode is None:
        proc.communicate()
    state = []
    for p in files_of(root):
        data = read(p)
        key = p.replace(root, os.path.join(work, 'pristine'), 1)
        assert data in (old[key], new[key]), '%s torn by the kill (%s)' % (p, name)
        state.append('new' if data == new[key] else 'old')
    temps = our_temps(root)
    # inside a write: a temporary file of ours is left, or some files are new and others still old
    inside = bool(temps) or len(set(state)) > 1
    # the next run completes the job and removes what the killed one left
    again = finish(start(module, args_of(root), work))
    assert again.get('failed') is not True, again
    assert our_temps(root) == [], '%s: the next run left %s' % (name, our_temps(root))
    for p in files_of(root):
        assert read(p) == new[p.replace(root, os.path.join(work, 'pristine'), 1)], '%s not finished by the next run' % p
    shutil.rmtree(root)
    return tuple(state), len(temps), inside


def kill_loop(make, module, args_of, files_of, work):
    """make(dest) builds a fresh tree and returns its root. Returns (kills at write points, timed kills), each a
    list of (file states, temporary files left, inside a write)."""
    pristine = make(os.path.join(work, 'pristine'))
    old = dict((p, read(p)) for p in files_of(pristine))
    # the new versions, the length of an uninterrupted run and the write points it passes
    reference = make(os.path.join(work, 'reference'))
    t0 = time.monotonic()
    res = finish(start(module, args_of(reference), work))
    duration = time.monotonic() - t0
    points = write_points(work)
    assert res.get('changed') is True
    new = dict((p.replace(reference, pristine, 1), read(p)) for p in files_of(reference))
    assert all(new[p] != old[p] for p in new if p in old) and our_temps(reference) == []
    # each file is written through a temporary file of ours: opened for the new content, then moved into place
    assert points['create'] >= len(files_of(reference)) and points['rename'] >= len(files_of(reference)), points

    at_points = []
    for kind in ('create', 'rename'):
        for number in range(1, points[kind] + 1):
            def kill(root, kind=kind, number=number):
                proc = start(module, args_of(root), work, kind, number)
                proc.communicate(timeout=300)
                assert proc.returncode == -signal.SIGKILL, 'the run passed %s point %d without being killed' % (
                    kind, number)
                return proc
            at_points.append(killed_run(make, module, args_of, files_of, work, old, new,
                                        '%s%d' % (kind, number), kill))

    rng = random.Random(SEED)
    timed = []
    for n in range(ITERATIONS):
        def kill(root, n=n):
            proc = start(module, args_of(root), work)
            # stratified over 40% .. 160% of an uninterrupted run (start-up is most of it; runs vary), seeded
            time.sleep(duration * (0.4 + 1.2 * (n + rng.random()) / ITERATIONS))
            proc.send_signal(signal.SIGKILL)
            return proc
        timed.append(killed_run(make, module, args_of, files_of, work, old, new, 'run%d' % n, kill))

    print('%s: %d kills at write points (%s), %d inside a write; %d timed kills, %d inside a write; '
          '(file states, temporary files left, inside) seen: %s' % (
              module, len(at_points), points, sum(k[2] for k in at_points), ITERATIONS,
              sum(k[2] for k in timed), sorted(set(at_points + timed))))
    # every kill at a write point landed inside a write (not before it started, not after it ended)
    assert len(at_points) == points['create'] + points['rename'] >= 2 * len(files_of(reference))
    assert sum(k[2] for k in at_points) == len(at_points), at_points
    return at_points, timed


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
