# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A read-only HTTP server on 127.0.0.1 for the test VM's large files (tests only).

    python3 file_server.py start DIR STATE_FILE [--lifetime SECONDS]
    python3 file_server.py stop STATE_FILE

Why: under emulation (TCG) the guest's SSH decrypts at a few hundred KB/s, so copying a kubelet binary or a
Volcano image archive with ansible.builtin.copy takes minutes; the same file over plain HTTP through QEMU's user
network takes seconds (measured: 60 MB in 6 s against 4 min). The VM reaches the host's loopback as 10.0.2.2,
nothing else reaches 127.0.0.1. The guest checks every file's SHA-256 (ansible.builtin.get_url checksum).

start binds a free port, writes {"port": N, "pid": P} to STATE_FILE and leaves the server running in the
background (its own session) for at most --lifetime seconds (default 3 hours), so that a run that never
reaches destroy leaves nothing behind for long. stop ends it (only if the pid is still this server).
"""
import functools
import json
import os
import signal
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request log on the terminal of a molecule run
        pass


def ours(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as handle:
            return os.path.basename(__file__).encode() in handle.read()
    except (IOError, OSError):
        return False


def start(directory, state_file, lifetime):
    server = ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(QuietHandler, directory=directory))
    pid = os.fork()
    if pid:
        with open(state_file, 'w') as handle:
            json.dump({'port': server.server_address[1], 'pid': pid}, handle)
        print(json.dumps({'port': server.server_address[1], 'pid': pid}))
        return
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    threading.Timer(lifetime, server.shutdown).start()
    server.serve_forever()
    os._exit(0)


def stop(state_file):
    try:
        with open(state_file) as handle:
            pid = json.load(handle)['pid']
    except (IOError, OSError, ValueError, KeyError):
        return
    if ours(pid):
        os.kill(pid, signal.SIGTERM)
    os.unlink(state_file)


def main(argv):
    if len(argv) >= 3 and argv[0] == 'start':
        lifetime = int(argv[argv.index('--lifetime') + 1]) if '--lifetime' in argv else 3 * 3600
        start(argv[1], argv[2], lifetime)
    elif len(argv) == 2 and argv[0] == 'stop':
        stop(argv[1])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
