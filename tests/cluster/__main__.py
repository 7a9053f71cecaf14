# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Command line of the test control plane (molecule prepare/cleanup, ansible-runner tests, by hand).

  python tests/cluster start --dir /tmp/k8s --nodes 2 [--node NAME ...] [--never-ready ns/name ...]
  python tests/cluster stop --dir /tmp/k8s
  python tests/cluster set-never-ready --dir /tmp/k8s ns/name ...
  python tests/cluster requests --dir /tmp/k8s [--since N]    # the audit log: what the tests' users sent
  python tests/cluster node-kubeconfig --dir /tmp/k8s --node testnode --host 10.0.2.2 --out kubelet.conf

``start`` returns once the API serves and the nodes are Ready, leaving the processes running in their own
process groups; it prints one JSON line (server, kubeconfig, processes, startup_seconds)
and keeps the same in ``<dir>/state.json``. ``stop`` ends exactly those process groups.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

if __package__ in (None, ''):
    # run as `python tests/cluster`: import the package from its parent, not from its own directory
    _HERE = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _HERE]
    sys.path.insert(0, os.path.dirname(_HERE))
    from cluster import controlplane  # pylint: disable=import-error
else:
    from . import controlplane


def main(argv=None):
    parser = argparse.ArgumentParser(prog='tests/cluster', description='a real Kubernetes control plane for tests')
    sub = parser.add_subparsers(dest='command', required=True)
    start = sub.add_parser('start')
    start.add_argument('--dir', required=True)
    start.add_argument('--nodes', type=int, default=2, help='Ready kwok nodes node-1..node-N (default 2)')
    start.add_argument('--node', action='append', default=[], help='a Ready kwok node of this name (repeatable)')
    start.add_argument('--never-ready', action='append', default=[],
                       help='namespace/name of a Deployment/DaemonSet whose pods never become ready (repeatable)')
    start.add_argument('--no-kwok', dest='kwok', action='store_false',
                       help='no kwok (the nodes are real kubelets): with --nodes 0, no --node and no --never-ready')
    stop = sub.add_parser('stop')
    stop.add_argument('--dir', required=True)
    requests = sub.add_parser('requests', help='what the admin user sent (the audit log), as JSON')
    requests.add_argument('--dir', required=True)
    requests.add_argument('--since', type=int, default=0, help='skip this many requests')
    nodeconf = sub.add_parser('node-kubeconfig', help="a real kubelet's kubeconfig (system:node:<node>)")
    nodeconf.add_argument('--dir', required=True)
    nodeconf.add_argument('--node', required=True)
    nodeconf.add_argument('--host', default=controlplane.HOST,
                          help='the address the node dials (%s from a QEMU guest)' % controlplane.QEMU_HOST_ALIAS)
    nodeconf.add_argument('--out', required=True)
    client = sub.add_parser('client-cert', help='a client certificate and key signed by the cluster CA (PEM, as JSON)')
    client.add_argument('--dir', required=True)
    client.add_argument('--name', required=True, help='user name (the certificate\'s common name)')
    client.add_argument('--group', action='append', default=[], help='a group (organization; repeatable)')
    never = sub.add_parser('set-never-ready')
    never.add_argument('--dir', required=True)
    never.add_argument('workloads', nargs='*')
    args = parser.parse_args(argv)
    directory = os.path.abspath(args.dir)
    if args.command == 'stop':
        if not os.path.exists(os.path.join(directory, 'state.json')):
            print(json.dumps({'stopped': [], 'note': 'no control plane in %s' % directory}))
            return 0
        state = controlplane.stop_state(directory)
        print(json.dumps({'stopped': state['processes']}))
        return 0
    if args.command == 'requests':
        time.sleep(0.5)  # kube-apiserver writes an event just after the response
        entries = controlplane.audit_requests(os.path.join(directory, 'logs', 'audit.log'))
        print(json.dumps({'requests': entries[args.since:], 'count': len(entries)}))
        return 0
    if args.command == 'node-kubeconfig':
        with open(os.path.join(directory, 'state.json')) as handle:
            plane = controlplane.ControlPlane.attach(json.load(handle))
        print(json.dumps({'kubeconfig': plane.node_kubeconfig(args.node, os.path.abspath(args.out), args.host)}))
        return 0
    if args.command == 'client-cert':
        cert, key = controlplane.client_cert(directory, args.name, args.group)
        print(json.dumps({'cert': cert, 'key': key}))
        return 0
    if args.command == 'set-never-ready':
        with open(os.path.join(directory, 'state.json')) as handle:
            state = json.load(handle)
        plane = controlplane.ControlPlane.attach(state)
        try:
            plane.set_never_ready(args.workloads)
        except controlplane.ControlPlaneError as exc:
            sys.exit(str(exc))
        print(json.dumps({'never_ready': sorted(plane.never_ready)}))
        return 0
    if os.path.exists(os.path.join(directory, 'state.json')):
        sys.exit('a control plane already runs in %s (stop it first)' % directory)
    os.makedirs(directory, exist_ok=True)
    nodes = list(args.node) + ['node-%d' % i for i in range(1, args.nodes + 1)]
    try:
        plane = controlplane.ControlPlane(directory, nodes=nodes, never_ready=args.never_ready, kwok=args.kwok).start()
    except controlplane.ControlPlaneError as exc:
        sys.exit('the control plane did not start: %s' % exc)
    with open(os.path.join(directory, 'state.json')) as handle:
        print(handle.read().replace('\n', ' ').strip())
    return 0


if __name__ == '__main__':
    sys.exit(main())
