# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Command line of the Kubernetes API stand-in.

  python tests/k8s_standin --kubeconfig /tmp/sk/kubeconfig                 # foreground, Ctrl-C stops
  python tests/k8s_standin --daemon --state-file /tmp/sk/state.json --kubeconfig /tmp/sk/kubeconfig --nodes 2
  python tests/k8s_standin --stop --state-file /tmp/sk/state.json         # exit 1 if requests were unhandled

(``python -m k8s_standin`` with tests/ on PYTHONPATH works the same.) It prints one JSON line:
{"server": ..., "kubeconfig": ..., "pid": ...}.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import urllib.request

if __package__ in (None, ''):
    # run as `python tests/k8s_standin`: import the package from its parent, not its own directory
    _HERE = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _HERE]
    sys.path.insert(0, os.path.dirname(_HERE))
    from k8s_standin.server import StandIn, random_token  # pylint: disable=import-error
else:
    from .server import StandIn, random_token


def parse_args(argv):
    parser = argparse.ArgumentParser(prog='k8s_standin', description='Kubernetes API stand-in for tests')
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=0, help='0 (default): a free port')
    parser.add_argument('--token', default=None, help='bearer token to require (default: a random one)')
    parser.add_argument('--no-token', action='store_true', help='accept requests without a token')
    parser.add_argument('--kubeconfig', default=None, help='write a kubeconfig for the server here')
    parser.add_argument('--nodes', type=int, default=0, help='create this many Ready nodes node-1..node-N')
    parser.add_argument('--node', action='append', default=[], help='create a Ready node with this name (repeatable)')
    parser.add_argument('--never-ready', action='append', default=[],
                        help='namespace/name of a Deployment/DaemonSet that never becomes ready, or "*" (repeatable)')
    parser.add_argument('--daemon', action='store_true', help='run in the background; return once it serves')
    parser.add_argument('--state-file', default=None, help='with --daemon/--stop: where the pid and URL are kept')
    parser.add_argument('--log', default=os.devnull, help='with --daemon: request log file')
    parser.add_argument('--stop', action='store_true', help='stop the daemon named by --state-file')
    parser.add_argument('--verbose', action='store_true', help='log every request to stderr')
    return parser.parse_args(argv)


def _is_standin(pid):
    """Whether process ``pid`` is a stand-in daemon (a state file left by an earlier run may name a pid that has
    since been reused by another process, which must not be killed)."""
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as handle:
            return b'k8s_standin' in handle.read()
    except OSError:
        return False


def stop(state_file):
    with open(state_file) as handle:
        state = json.load(handle)
    if not _is_standin(state['pid']):
        # a stale state file (the stand-in of an earlier run is gone): nothing to stop and nothing to ask it
        os.unlink(state_file)
        print(json.dumps({'stale': state['pid']}))
        return 0
    unhandled = []
    try:
        with urllib.request.urlopen(state['server'] + '/standin/unhandled', timeout=10) as response:
            unhandled = json.load(response)['unhandled']
    except OSError as exc:
        unhandled = ['could not ask the stand-in for unhandled requests: %s' % exc]
    try:
        os.kill(state['pid'], signal.SIGTERM)
        for _attempt in range(100):
            os.kill(state['pid'], 0)
            time.sleep(0.05)
    except ProcessLookupError:
        pass
    os.unlink(state_file)
    print(json.dumps({'stopped': state['pid'], 'unhandled': unhandled}))
    return 1 if unhandled else 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.stop:
        if not args.state_file:
            sys.exit('--stop needs --state-file')
        return stop(args.state_file)
    token = None if args.no_token else (args.token or random_token())
    nodes = list(args.node) + ['node-%d' % i for i in range(1, args.nodes + 1)]
    if args.daemon:
        if not args.state_file:
            sys.exit('--daemon needs --state-file')
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid:
            os.close(write_end)
            with os.fdopen(read_end) as pipe:
                line = pipe.read()
            if not line:
                sys.exit('the stand-in failed to start (see %s)' % args.log)
            print(line.strip())
            return 0
        os.close(read_end)
        os.setsid()
        log = open(args.log, 'a')
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
    standin = StandIn(token=token, host=args.host, port=args.port, nodes=nodes, verbose=args.verbose or args.daemon)
    standin.set_never_ready(*args.never_ready)
    standin.start()
    info = {'server': standin.url, 'pid': os.getpid()}
    if args.kubeconfig:
        info['kubeconfig'] = os.path.abspath(standin.write_kubeconfig(args.kubeconfig))
    if args.state_file:
        with open(args.state_file, 'w') as handle:
            json.dump(info, handle)

    def terminate(signum, frame):  # pylint: disable=unused-argument
        standin.stop()
        os._exit(0)

    signal.signal(signal.SIGTERM, terminate)
    if args.daemon:
        with os.fdopen(write_end, 'w') as pipe:
            pipe.write(json.dumps(info) + '\n')
    else:
        print(json.dumps(info), flush=True)
    try:
        standin.serve_forever()
    except KeyboardInterrupt:
        standin.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
