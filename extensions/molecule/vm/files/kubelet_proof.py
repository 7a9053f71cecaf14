# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The state-file promise of kubelet_config, proven on the test VM's real kubelet (vm scenario, tasks/transition.yml).

    kubelet_proof.py save                       keep the kubelet configuration and state files in /run/numaops-proof
    (kubelet_config then makes a change and removes the state files the kubelet would refuse)
    kubelet_proof.py prove [--removed PATH ...] [--configz PEM]
                                                kubelet restarts, one JSON object as the last line of stdout
                                                (the tools it runs keep their messages off it: over SSH with a
                                                terminal, stderr and stdout are one stream):
        skipped   the removed state files put back (the removal skipped), kubelet restarted
        removed   the same files removed again (what kubelet_config did), kubelet restarted; with nothing
                  removed it is the same node as skipped, so that restart is not made again ("same_as": "skipped")
        restored  the configuration and state files put back as saved, for node_prep to make the change from them,
                  kubelet restarted; with nothing removed the kubelet is not restarted on them ({"outcome":
                  "put back"}): node_prep's restart, next, runs its change, and the files it decides on stay as
                  saved. With state files removed it is: a kubelet running the new policy would write its
                  checkpoint under that policy again (at the drain) before node_prep decides on it.
      each restart {"outcome": "started" | "refused" | "undecided", "error": <the kubelet's fatal line>,
      "seconds": ...};
      with --configz (a PEM file of a client certificate and key of the cluster CA, removed once loaded), removed
      also has "configz": the kubelet's /configz document while it runs the change.

The configuration saved and put back is the main file, the drop-in of kubelet_config and node_prep (DROPIN) and the
state files.

"refused": the kubelet's journal since the restart has its fatal "command failed" or "Failed to start
ContainerManager" line (it then exits, and systemd restarts it every 10 s). "started": /healthz answered ok and
kept answering for --settle seconds with neither such a line nor a restart of the unit: the kubelet serves
/healthz before its container manager has read the checkpoints, so one ok alone tells nothing. Standard library
only: it runs on the node.
"""
import argparse
import json
import os
import shutil
import ssl
import subprocess
import sys
import time
import urllib.request

FATAL = ('"command failed"', 'Failed to start ContainerManager')
SAVE = '/run/numaops-proof'
DROPIN = '/etc/kubernetes/kubelet.conf.d/90-numaops-colocation.conf'
FILES = ('/var/lib/kubelet/config.yaml', DROPIN, '/var/lib/kubelet/cpu_manager_state',
         '/var/lib/kubelet/memory_manager_state')


def journal(since):
    out = subprocess.run(['journalctl', '-u', 'kubelet', '-o', 'cat', '--no-pager', '--since', '@%d' % since],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True, check=False).stdout
    return [line for line in out.splitlines() if any(f in line for f in FATAL)]


def restarts():
    out = subprocess.run(['systemctl', 'show', '-P', 'NRestarts', 'kubelet'], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True, check=False).stdout.strip()
    return int(out or 0)


def healthz():
    try:
        with urllib.request.urlopen('http://127.0.0.1:10248/healthz', timeout=2) as response:
            return response.read().decode().strip() == 'ok'
    except Exception:  # pylint: disable=broad-except
        return False


def restart(settle, timeout):
    since = int(time.time()) + 1
    time.sleep(since - time.time())  # the journal's --since has whole seconds: nothing of the previous run in it
    done = subprocess.run(['systemctl', 'restart', 'kubelet'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=False)
    if done.returncode != 0:
        raise SystemExit('systemctl restart kubelet failed (rc=%d): %s' % (done.returncode, done.stdout.strip()))
    start = time.monotonic()
    base = restarts()
    ok_since = None
    result = {'outcome': 'undecided', 'error': None}
    while time.monotonic() - start < timeout:
        fatal = journal(since)
        if fatal:
            result = {'outcome': 'refused', 'error': fatal[0]}
            break
        if healthz() and restarts() == base:
            ok_since = ok_since or time.monotonic()
            if time.monotonic() - ok_since >= settle:
                result = {'outcome': 'started', 'error': None}
                break
        else:
            ok_since = None
        time.sleep(1)
    result['seconds'] = round(time.monotonic() - start, 1)
    return result


def tls_context(pem):
    context = ssl.create_default_context()
    # the kubelet serves /configz with the self-signed certificate it made itself (it was given none)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        context.load_cert_chain(pem)
    finally:
        os.unlink(pem)
    return context


def configz(context):
    error = None
    for _attempt in range(20):
        try:
            with urllib.request.urlopen('https://127.0.0.1:10250/configz', context=context, timeout=10) as answer:
                return json.load(answer)['kubeletconfig']
        except Exception as exc:  # pylint: disable=broad-except
            error = exc
            time.sleep(3)
    raise SystemExit('https://127.0.0.1:10250/configz: %s' % error)


def put_back(paths):
    for path in paths:
        saved = os.path.join(SAVE, os.path.basename(path))
        if os.path.exists(saved):
            shutil.copy2(saved, path)
        elif os.path.exists(path):
            os.unlink(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('command', choices=('save', 'prove'))
    parser.add_argument('--removed', action='append', default=[])
    parser.add_argument('--configz')
    parser.add_argument('--settle', type=float, default=20)
    parser.add_argument('--timeout', type=float, default=180)
    args = parser.parse_args()
    if args.command == 'save':
        shutil.rmtree(SAVE, ignore_errors=True)
        os.makedirs(SAVE)
        for path in FILES:
            if os.path.exists(path):
                shutil.copy2(path, os.path.join(SAVE, os.path.basename(path)))
        print(json.dumps({'saved': sorted(os.listdir(SAVE))}))
        return 0
    out = {}
    context = tls_context(args.configz) if args.configz else None
    put_back(args.removed)
    out['skipped'] = restart(args.settle, args.timeout)
    if args.removed:
        for path in args.removed:
            os.unlink(path)
        out['removed'] = restart(args.settle, args.timeout)
    else:
        out['removed'] = dict(out['skipped'], same_as='skipped')
    if context and out['removed']['outcome'] == 'started':
        out['removed']['configz'] = configz(context)
    put_back(FILES)
    out['restored'] = restart(args.settle, args.timeout) if args.removed else {'outcome': 'put back'}
    print(json.dumps(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
