# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""STAND-IN kubelet and containerd for the node_prep molecule scenarios (tests only).

No kubelet or NRI-capable containerd can run on the test machine (no systemd, Debian's containerd is
1.6). These stand-ins are started and stopped by the role through node_prep_kubelet_start_command /
node_prep_kubelet_stop_command / node_prep_containerd_restart_command, and behave like the real
daemons in what the role observes:

kubelet start --config FILE --state-dir DIR --pidfile FILE --log FILE [--unhealthy-if KEY=VALUE]
    Reads the KubeletConfiguration; refuses to start (exits, so /healthz is refused) when the file is not
    a KubeletConfiguration or when cpu_manager_state / memory_manager_state record another policy than the
    configuration ("configured policy X differs from state checkpoint policy Y", as the kubelet does);
    otherwise writes the state files it would write (new policy) and serves GET /healthz on
    healthzBindAddress:healthzPort (127.0.0.1:10248 by default). With --unhealthy-if KEY=VALUE, a
    configuration whose KEY equals VALUE makes /healthz answer 500 (failure injection).
kubelet stop --pidfile FILE
    SIGTERM and wait, like `systemctl stop kubelet`; not running is fine.
containerd restart --config FILE --address SOCKET --root DIR --pidfile FILE --log FILE [--crash-if-nri-enabled]
    Stops the previous instance, then starts in the background: parses config.toml (version 2 or 3),
    listens on SOCKET, and, when [plugins."io.containerd.nri.v1.nri"] has disable = false (and not
    disable_connections), creates the NRI socket at DIR + socket_path. With --crash-if-nri-enabled an
    enabled NRI makes it exit with an error in its log before listening (failure injection).
stop --pidfile FILE
    Stop whichever stand-in the pid file names.
"""

import argparse
import json
import os
import signal
import socket
import sys
import time

try:
    import tomllib
except ImportError:  # pragma: no cover - Python < 3.11
    tomllib = None
import yaml
from http.server import BaseHTTPRequestHandler, HTTPServer


def log(path, message):
    with open(path, 'a') as handle:
        handle.write('%s %s\n' % (time.strftime('%Y-%m-%dT%H:%M:%S'), message))


def is_standin(pid):
    """Whether process ``pid`` is one of these stand-ins (a pid file left by an earlier run may name a process
    that has since been reused for something else, which must not be killed)."""
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as handle:
            return os.path.basename(__file__).encode() in handle.read()
    except (IOError, OSError):
        return False


def stop(pidfile):
    try:
        with open(pidfile) as handle:
            pid = int(handle.read().strip())
    except (IOError, OSError, ValueError):
        return
    if not is_standin(pid):
        os.remove(pidfile)  # stale: the stand-in is gone
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        pass
    for _attempt in range(100):
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.05)
    try:
        os.remove(pidfile)
    except OSError:
        pass


def daemonize(pidfile, logfile):
    """Fork into the background; return True in the daemon, False in the caller."""
    if os.fork() > 0:
        return False
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    out = os.open(logfile, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(devnull, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    with open(pidfile, 'w') as handle:
        handle.write(str(os.getpid()))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    return True


def state_file(path, policy, extra):
    body = dict(policyName=policy, **extra)
    # The checksum the kubelet computes (FNV-1a of the go-spew dump of its checkpoint struct) for these empty states.
    if 'defaultCpuSet' in body:
        dump = ('(*state.CPUManagerCheckpoint){PolicyName:(string)%s DefaultCPUSet:(string)%s '
                'Entries:(map[string]map[string]string)map[] Checksum:(checksum.Checksum)0}' % (policy, body['defaultCpuSet']))
    else:
        dump = ('(*state.MemoryManagerCheckpoint){PolicyName:(string)%s MachineState:(state.NUMANodeMap)map[] '
                'Entries:(state.ContainerMemoryAssignments)map[] Checksum:(checksum.Checksum)0}' % policy)
    value = 0x811c9dc5
    for byte in bytearray(dump.encode()):
        value = ((value ^ byte) * 0x01000193) & 0xffffffff
    body['checksum'] = value
    with open(path, 'w') as handle:
        handle.write(json.dumps(body, separators=(',', ':')))


def kubelet_start(args):
    stop(args.pidfile)
    if not daemonize(args.pidfile, args.log):
        time.sleep(0.2)
        return 0
    try:
        with open(args.config) as handle:
            config = yaml.safe_load(handle)
    except (IOError, OSError, yaml.YAMLError) as err:
        log(args.log, 'kubelet: failed to load kubelet config file %s: %s' % (args.config, err))
        os._exit(1)
    if not isinstance(config, dict) or config.get('kind') != 'KubeletConfiguration':
        log(args.log, 'kubelet: %s is not a KubeletConfiguration' % args.config)
        os._exit(1)
    policies = (('cpu_manager_state', config.get('cpuManagerPolicy') or 'none', {'defaultCpuSet': ''}),
                ('memory_manager_state', config.get('memoryManagerPolicy') or 'None', {'machineState': {}, 'entries': {}}))
    for name, policy, extra in policies:
        path = os.path.join(args.state_dir, name)
        if os.path.exists(path):
            with open(path) as handle:
                recorded = json.load(handle).get('policyName')
            if recorded != policy:
                log(args.log, 'kubelet: could not restore state from checkpoint %s: configured policy "%s" differs '
                              'from state checkpoint policy "%s"' % (path, policy, recorded))
                os._exit(1)
        else:
            state_file(path, policy, extra)
    unhealthy = False
    if args.unhealthy_if:
        key, _sep, value = args.unhealthy_if.partition('=')
        unhealthy = str(config.get(key)) == value
    address = config.get('healthzBindAddress') or '127.0.0.1'
    port = int(config.get('healthzPort', 10248))

    class Healthz(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            if self.path != '/healthz':
                self.send_response(404)
                self.end_headers()
                return
            body = b'[-]syncloop failed: injected\nhealthz check failed\n' if unhealthy else b'ok'
            self.send_response(500 if unhealthy else 200)
            self.send_header('Content-Type', 'text/plain; charset=utf-8')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    HTTPServer.allow_reuse_address = True
    server = HTTPServer((address, port), Healthz)
    log(args.log, 'kubelet: started with %s (cpuManagerPolicy=%s), healthz on %s:%d%s'
        % (args.config, config.get('cpuManagerPolicy') or 'none', address, port, ' (UNHEALTHY, injected)' if unhealthy else ''))
    server.serve_forever()
    return 0


def containerd_restart(args):
    stop(args.pidfile)
    if not daemonize(args.pidfile, args.log):
        time.sleep(0.2)
        return 0
    try:
        with open(args.config, 'rb') as handle:
            config = tomllib.load(handle)
    except (IOError, OSError, tomllib.TOMLDecodeError) as err:
        log(args.log, 'containerd: failed to load TOML from %s: %s' % (args.config, err))
        os._exit(1)
    if config.get('version') not in (2, 3):
        log(args.log, 'containerd: unsupported config version %r in %s' % (config.get('version'), args.config))
        os._exit(1)
    nri = (config.get('plugins') or {}).get('io.containerd.nri.v1.nri') or {}
    nri_on = nri.get('disable') is False
    if nri_on and args.crash_if_nri_enabled:
        log(args.log, 'containerd: failed to load plugin io.containerd.nri.v1.nri: injected failure; exiting')
        os._exit(1)
    listeners = []
    paths = [args.address]
    if nri_on and not nri.get('disable_connections'):
        paths.append(args.root + (nri.get('socket_path') or '/var/run/nri/nri.sock'))
    for path in paths:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.remove(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        sock.listen(16)
        listeners.append(sock)
    log(args.log, 'containerd: serving on %s; NRI %s' % (args.address, 'enabled, socket ' + paths[-1] if len(paths) > 1 else 'disabled'))
    while True:
        conn, _peer = listeners[0].accept()
        conn.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description='kubelet/containerd STAND-INs for the node_prep molecule scenarios')
    parser.add_argument('service', choices=['kubelet', 'containerd', 'stop'])
    parser.add_argument('action', nargs='?', choices=['start', 'stop', 'restart'])
    parser.add_argument('--config')
    parser.add_argument('--state-dir')
    parser.add_argument('--address')
    parser.add_argument('--root', default='')
    parser.add_argument('--pidfile', required=True)
    parser.add_argument('--log', default=os.devnull)
    parser.add_argument('--unhealthy-if')
    parser.add_argument('--crash-if-nri-enabled', action='store_true')
    args = parser.parse_args(argv)
    if args.service == 'stop' or args.action == 'stop':
        stop(args.pidfile)
        return 0
    if args.service == 'kubelet' and args.action == 'start':
        return kubelet_start(args)
    if args.service == 'containerd' and args.action == 'restart':
        return containerd_restart(args)
    parser.error('unsupported: %s %s' % (args.service, args.action))
    return 2


if __name__ == '__main__':
    sys.exit(main())
