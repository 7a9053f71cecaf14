# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A real Prometheus server (Debian's prometheus) loading the collection's recording rules and scraping node_exporter
targets: one helper for tests/system/test_numa_prometheus.py (node_exporter on 127.0.0.1) and the vm molecule scenario
(node_exporter on the VM, reached through an SSH local forward over the scenario's SSH connection).

As a program (the vm scenario runs it in the background and stops it by creating the stop file):

    python3 prometheus_live.py serve STATE_JSON --rules RULES --workdir DIR [--ssh-forward JSON_ARGV REMOTE_PORT]
                                     [--target HOST:PORT] [--timeout SECONDS]

writes {"prometheus": url, "targets": [...], "pid": pid} to STATE_JSON once Prometheus answers, and stops everything it
started when STATE_JSON + ".stop" exists or after --timeout seconds. Standard library only."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

RULES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     'files', 'prometheus', 'numaops-numa.rules.yml')


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def program(name, package):
    """The path of ``name`` or an AssertionError naming the Debian package that has it."""
    path = shutil.which(name) or (os.path.exists('/usr/bin/' + name) and '/usr/bin/' + name)
    if not path:
        raise AssertionError('%s is not installed (Debian package %s, listed in tests/apt-packages.txt; '
                             'scripts/lib.sh ensure_apt)' % (name, package))
    return path


def start(command, url, log, timeout=60):
    """Start ``command`` and wait until ``url`` answers."""
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    proc.wait()
    log.seek(0)
    raise AssertionError('%s did not answer on %s: %s' % (command[0], url, log.read().decode()[-2000:]))


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def query(port, expr):
    """{numa_node label: value} of an instant query."""
    url = 'http://127.0.0.1:%d/api/v1/query?%s' % (port, urllib.parse.urlencode({'query': expr}))
    with urllib.request.urlopen(url, timeout=10) as response:
        body = json.loads(response.read().decode())
    assert body['status'] == 'success', body
    return dict((item['metric'].get('numa_node'), float(item['value'][1])) for item in body['data']['result'])


@contextlib.contextmanager
def prometheus(workdir, targets, rules=RULES, interval='1s'):
    """A real Prometheus on a free 127.0.0.1 port scraping ``targets`` (job node) with ``rules`` loaded: yields
    (port, log file)."""
    workdir = str(workdir)
    config = os.path.join(workdir, 'prometheus.yml')
    with open(config, 'w') as handle:
        json.dump({'global': {'scrape_interval': interval, 'evaluation_interval': interval},
                   'rule_files': [rules],
                   'scrape_configs': [{'job_name': 'node', 'static_configs': [{'targets': list(targets)}]}]}, handle)
    port = free_port()
    with open(os.path.join(workdir, 'prometheus.log'), 'w+b') as log:
        proc = start([program('prometheus', 'prometheus'), '--config.file=%s' % config,
                      '--storage.tsdb.path=%s' % os.path.join(workdir, 'data'),
                      '--web.listen-address=127.0.0.1:%d' % port],
                     'http://127.0.0.1:%d/-/ready' % port, log)
        try:
            yield port, log
        finally:
            stop(proc)


def wait_for(port, exprs, seconds=60):
    """Query ``exprs`` every second until each has a result: {expr: {numa_node: value}}; AssertionError after
    ``seconds``."""
    deadline = time.monotonic() + seconds
    found = {}
    while time.monotonic() < deadline:
        found = dict((expr, query(port, expr)) for expr in exprs)
        if all(found.values()):
            return found
        time.sleep(1)
    raise AssertionError('no result after %d s: %s' % (seconds, found))


def serve(args):
    stop_file = args.state + '.stop'
    if os.path.exists(stop_file):
        os.unlink(stop_file)
    os.makedirs(args.workdir, exist_ok=True)
    targets = list(args.target or [])
    with contextlib.ExitStack() as stack:
        if args.ssh_forward:
            argv, remote = json.loads(args.ssh_forward[0]), int(args.ssh_forward[1])
            local = free_port()
            log = stack.enter_context(open(os.path.join(args.workdir, 'ssh-forward.log'), 'w+b'))
            forward = subprocess.Popen(argv[:1] + ['-N', '-o', 'ExitOnForwardFailure=yes', '-o', 'ControlPath=none',
                                                   '-L', '127.0.0.1:%d:127.0.0.1:%d' % (local, remote)] + argv[1:],
                                       stdout=log, stderr=subprocess.STDOUT)
            stack.callback(stop, forward)
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % local, timeout=10):
                        break
                except OSError:
                    if forward.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        raise AssertionError('the SSH forward to the node port %d does not answer: %s'
                                             % (remote, log.read().decode()[-2000:]))
                    time.sleep(0.5)
            targets.append('127.0.0.1:%d' % local)
        port, _log = stack.enter_context(prometheus(args.workdir, targets, rules=args.rules, interval=args.interval))
        with open(args.state + '.tmp', 'w') as handle:
            json.dump({'prometheus': 'http://127.0.0.1:%d/' % port, 'port': port, 'targets': targets,
                       'pid': os.getpid()}, handle)
        os.rename(args.state + '.tmp', args.state)
        deadline = time.monotonic() + args.timeout
        while not os.path.exists(stop_file) and time.monotonic() < deadline:
            time.sleep(0.5)
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', 1)[0])
    sub = parser.add_subparsers(dest='command', required=True)
    run = sub.add_parser('serve')
    run.add_argument('state')
    run.add_argument('--rules', default=RULES)
    run.add_argument('--workdir', required=True)
    run.add_argument('--target', action='append')
    run.add_argument('--ssh-forward', nargs=2, metavar=('JSON_ARGV', 'REMOTE_PORT'))
    run.add_argument('--interval', default='1s')
    run.add_argument('--timeout', type=float, default=900)
    return serve(parser.parse_args(argv))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
