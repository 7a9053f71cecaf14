# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run the suite's jobs (``scripts/test.sh <stage>`` each) on N lanes at once; scripts/test.sh calls this when
it is run with no stage, which is what CI does.

    python3 scripts/lanes.py --jobs 2 JOB [JOB...]     a JOB is a stage of scripts/test.sh, e.g. molecule:vm
    a JOB written NAME@AFTER starts only after job AFTER passed (unit@upstream); NAME@A@B after both A and B

Almost every stage is one Python process at a time (ansible-playbook, pytest, molecule), so a 2-core machine
runs two of them side by side in little more than the time of one. The jobs are taken in the order given (put
the long ones first); each job's output goes to its own log and is printed whole when the job ends, so the
output of two jobs never interleaves. The output of failed jobs is printed again at the very end, where a CI
log is read first. Exit status: 0 when every job passed, else 1. Jobs that depend on a failed job are not
started (and said so).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _minutes(seconds):
    seconds = int(seconds)
    return '%dm%02ds' % (seconds // 60, seconds % 60)


ERROR_LINES = 12
_ERROR = re.compile(r'^(fatal: |failed: |ERROR:? |FATAL: |E   |FAILED |\S*Error: )|FAILED! =>|Traceback \(most recent')


def error_lines(lines, limit=ERROR_LINES, width=600):
    """The last ``limit`` lines of a job's output that say why it failed (ansible's fatal/failed lines,
    molecule's, ansible-test's and pytest's errors, tracebacks), each cut to ``width`` characters; retries are not errors."""
    found = [line for line in lines if _ERROR.search(line) and 'FAILED - RETRYING' not in line]
    return ['  ' + (line if len(line) <= width else line[:width] + ' [...]') for line in found[-limit:]]


def log_path(logdir, name):
    return os.path.join(logdir, name.replace(':', '_').replace(',', '_') + '.log')


def parse_jobs(specs):
    """[(name, (after, ...))] from ``NAME``, ``NAME@AFTER`` or ``NAME@A@B`` (after every one of them); each job
    waited for must be an earlier job."""
    jobs = []
    for spec in specs:
        name, *after = spec.split('@')
        for dep in after:
            if dep not in [j[0] for j in jobs]:
                raise SystemExit('lanes.py: job %s waits for %s, which is not an earlier job' % (name, dep))
        jobs.append((name, tuple(after)))
    return jobs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', 1)[0])
    parser.add_argument('--jobs', type=int, default=2, help='lanes (jobs at once)')
    parser.add_argument('job', nargs='+')
    args = parser.parse_args(argv)
    jobs = parse_jobs(args.job)
    logdir = tempfile.mkdtemp(prefix='numaops-lanes-')
    start = time.time()
    waiting = list(jobs)
    running = {}  # name -> (process, log handle, started)
    done = {}  # name -> (ok, seconds)
    order = []
    print('lanes: %d job(s) on %d lane(s), logs in %s: %s' % (len(jobs), args.jobs, logdir,
                                                              ' '.join(j[0] for j in jobs)), flush=True)
    while waiting or running:
        for name, after in list(waiting):
            if len(running) >= args.jobs:
                break
            if any(dep not in done for dep in after):
                continue  # a job it waits for is still running (or waiting)
            waiting.remove((name, after))
            failed_deps = [dep for dep in after if not done[dep][0]]
            if failed_deps:
                done[name] = (False, 0)
                order.append(name)
                print('\n== lanes: %s NOT STARTED: it needs %s, which failed' % (name, ' and '.join(failed_deps)),
                      flush=True)
                continue
            log = open(log_path(logdir, name), 'wb')
            proc = subprocess.Popen(['bash', os.path.join(HERE, 'test.sh'), name], stdout=log,
                                    stderr=subprocess.STDOUT, env=dict(os.environ, NUMAOPS_LANE='1'))
            running[name] = (proc, log, time.time())
            print('lanes: %s started at %s' % (name, _minutes(time.time() - start)), flush=True)
        time.sleep(1)
        for name, (proc, log, started) in list(running.items()):
            if proc.poll() is None:
                continue
            log.close()
            del running[name]
            ok = proc.returncode == 0
            done[name] = (ok, time.time() - started)
            order.append(name)
            with open(log.name, 'rb') as handle:
                text = handle.read().decode('utf-8', 'replace')
            print('\n' + '=' * 100, flush=True)
            print('== lanes: %s %s after %s (at %s into the run)' % (
                name, 'passed' if ok else 'FAILED (exit %d)' % proc.returncode, _minutes(done[name][1]),
                _minutes(time.time() - start)), flush=True)
            sys.stdout.write(text)
            sys.stdout.flush()
    failed = [n for n in order if not done[n][0]]
    print('\n' + '=' * 100)
    timings = '; '.join('%s %s%s' % (n, _minutes(done[n][1]), '' if done[n][0] else ' FAILED') for n in order)
    print('lanes: %s on %d lane(s) in %s' % (timings, args.jobs, _minutes(time.time() - start)))
    for name in failed:
        path = log_path(logdir, name)
        print('\n' + '!' * 100 + '\n!!! %s FAILED; the end of its output (all of it: %s):' % (name, path))
        if os.path.exists(path):
            with open(path, 'rb') as handle:
                lines = handle.read().decode('utf-8', 'replace').splitlines()
            print('\n'.join(lines[-150:]))
    if failed:
        # the reasons once more, each in a few lines, as the very last thing printed: a CI page that shows only
        # the head and the end of a long log still shows why
        for name in failed:
            path = log_path(logdir, name)
            if os.path.exists(path):
                with open(path, 'rb') as handle:
                    lines = handle.read().decode('utf-8', 'replace').splitlines()
                print('\nlanes: why %s failed (its error lines, the last %d):' % (name, ERROR_LINES))
                print('\n'.join(error_lines(lines)) or '  (no error line found; see its output above)')
        print('\nlanes: FAILED: %s' % ', '.join(failed))
        return 1
    print('\nlanes: every job passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
