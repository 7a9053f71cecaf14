#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: containerd_nri_verify
short_description: Restart containerd, prove it and its NRI socket are back, and roll back the config if not
version_added: 1.0.0
description:
  - Restarts containerd (C(systemctl restart) or O(restart_command)), waits until containerd answers on its
    gRPC socket (C(ctr version) when C(ctr) is installed, else a connection to the socket), then waits until
    the NRI socket has been created anew by this start.
  - C(ctr plugins ls) reports the NRI plugin as C(ok) even when NRI is disabled, so it proves nothing; the NRI
    socket does. It is not waited for when NRI is disabled or C(disable_connections) is set (see O(nri)).
  - When containerd does not answer within O(timeout), the files in O(restore) are put back (backups copied
    back, files created by the change removed), containerd is restarted once more, and the task fails with
    containerd's error lines since the restart (RV(journal_errors)) and the last lines of its journal in the
    message, saying whether containerd came back with the previous configuration.
  - A containerd that answered but stops again before the NRI socket appears (containerd 1.7 serves its socket
    before its CRI service starts NRI, and exits when NRI cannot start) counts as not answering, with the same
    restore, restart and failure - also when its service manager has started it again meanwhile (systemd
    C(Restart=always)) and the next start answers at that moment - its socket was created anew, so it is not the
    containerd that answered. One that still answers, the same one, without the NRI socket fails with its
    configuration kept.
  - Meant as a handler after M(numaops.colocation.containerd_nri). Standard library only on the node.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reports what it would do (restart, what it would wait for) and does nothing.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  service:
    description: The systemd unit restarted, and whose journal is shown on failure.
    type: str
    default: containerd
  restart:
    description: Restart containerd first. V(false) only waits and checks (for a containerd restarted otherwise).
    type: bool
    default: true
  restart_command:
    description:
      - Program and arguments run instead of C(systemctl restart <service>), for hosts without systemd.
      - It must return once containerd has been started in the background, with containerd's output not attached
        to the command's own standard output and error.
    type: list
    elements: str
  address:
    description: containerd's gRPC socket.
    type: path
    default: /run/containerd/containerd.sock
  ctr_binary:
    description: The C(ctr) program used to ask containerd for its version. When it is not installed, a successful
      connection to O(address) counts as an answer.
    type: str
    default: ctr
  nri:
    description:
      - The RV(numaops.colocation.containerd_nri#module:nri) result of M(numaops.colocation.containerd_nri). Its
        C(socket_path) is the socket waited for, and nothing is waited for when C(disable) or C(disable_connections)
        is true. Overrides O(nri_socket_path) and O(wait_for_nri).
    type: dict
  nri_socket_path:
    description: The NRI socket to wait for when O(nri) is not given.
    type: path
    default: /var/run/nri/nri.sock
  wait_for_nri:
    description: Wait for the NRI socket (when O(nri) is not given).
    type: bool
    default: true
  timeout:
    description: Seconds to wait for containerd to answer, and again for the NRI socket.
    type: int
    default: 60
  restore:
    description:
      - Files to put back when containerd does not come back, usually the RV(numaops.colocation.containerd_nri#module:restore)
        result of M(numaops.colocation.containerd_nri).
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: The file to restore.
        type: path
        required: true
      backup_file:
        description: The copy to put back. Null means the file did not exist before, and it is removed.
        type: path
  journal_lines:
    description: How many of the last journal lines to show when something fails.
    type: int
    default: 30
  log_file:
    description: Show the last lines of this file instead of C(journalctl -u <service>) (for containerd started
      without systemd).
    type: path
notes:
  - A failure to come back is reported as a failed task even when the restore brought containerd back, so the
    run stops on that node; the message says which.
seealso:
  - module: numaops.colocation.containerd_nri
'''

EXAMPLES = r'''
- name: Enable NRI
  numaops.colocation.containerd_nri:
    backup: true
  register: containerd_nri
  notify: Restart containerd and verify NRI

# handlers/main.yml
- name: Restart containerd and verify NRI
  numaops.colocation.containerd_nri_verify:
    nri: "{{ containerd_nri.nri }}"
    restore: "{{ containerd_nri.restore }}"
    timeout: 90

- name: Check, without a restart, that containerd and NRI answer
  numaops.colocation.containerd_nri_verify:
    restart: false
'''

RETURN = r'''
restarted:
  description: Whether containerd was restarted (would be, in check mode).
  returned: always
  type: bool
containerd_ready:
  description: containerd answered on O(address).
  returned: always
  type: bool
server_version:
  description: containerd's version as reported by C(ctr version), when C(ctr) is installed.
  returned: when containerd answered through ctr
  type: str
  sample: 1.7.24~ds1
nri_socket:
  description: The NRI socket waited for, or null when NRI connections are off.
  returned: always
  type: str
  sample: /var/run/nri/nri.sock
nri_ready:
  description: The NRI socket was created by this start of containerd (null when not waited for).
  returned: always
  type: bool
restored:
  description: Files put back after containerd did not come back.
  returned: on failure after a restore
  type: list
  elements: str
journal:
  description: The last lines of containerd's journal (or O(log_file)).
  returned: on failure
  type: list
  elements: str
journal_errors:
  description:
    - The lines of containerd's journal since this task restarted it (or of O(log_file)) that say why it stopped -
      containerd's C(level=error), C(fatal) and C(panic) lines, the error its command line exits with (an
      unreadable configuration, for example) and systemd's lines about the unit failing - each once, at most 10.
    - They are also in the message, before the last lines; when systemd has started containerd again meanwhile,
      the last lines show only that new start, and these show the reason.
  returned: when containerd did not answer
  type: list
  elements: str
  sample:
    - >-
      2026-12-03T12:47:50+00:00 testnode containerd[1650]: time="2026-12-03T12:47:50.1Z" level=fatal
      msg="Failed to run CRI service" error="failed to set up NRI for CRI service: failed to start NRI interface:
      failed to create socket \"/var/run/nri/nri.sock\": mkdir /var/run/nri: not a directory"
    - "2026-12-03T12:47:50+00:00 testnode systemd[1]: containerd.service: Failed with result 'exit-code'."
plan:
  description: What the module does (in check mode, would do), step by step.
  returned: always
  type: list
  elements: str
'''

import os
import shutil
import socket
import stat
import subprocess
import tempfile
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numaops.colocation.plugins.module_utils.containerd import journal_errors
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import tail_lines

ARGUMENT_SPEC = dict(
    service=dict(type='str', default='containerd'),
    restart=dict(type='bool', default=True),
    restart_command=dict(type='list', elements='str'),
    address=dict(type='path', default='/run/containerd/containerd.sock'),
    ctr_binary=dict(type='str', default='ctr'),
    nri=dict(type='dict'),
    nri_socket_path=dict(type='path', default='/var/run/nri/nri.sock'),
    wait_for_nri=dict(type='bool', default=True),
    timeout=dict(type='int', default=60),
    restore=dict(type='list', elements='dict', default=[], options=dict(
        path=dict(type='path', required=True),
        backup_file=dict(type='path'),
    )),
    journal_lines=dict(type='int', default=30),
    log_file=dict(type='path'),
)

POLL_INTERVAL = 0.5
# the most of containerd's error lines shown (journal_errors), and the most of O(log_file) read (its last bytes)
MAX_ERROR_LINES = 10
MAX_LOG_BYTES = 4 * 1024 * 1024


def _socket_identity(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISSOCK(st.st_mode):
        return None
    return (st.st_ino, st.st_mtime_ns if hasattr(st, 'st_mtime_ns') else st.st_mtime)


def _connects(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(2)
    try:
        sock.connect(path)
        return True, None
    except (OSError, socket.error) as err:
        return False, str(err)
    finally:
        sock.close()


def _server_version(output):
    in_server = False
    for line in output.splitlines():
        if line.strip().startswith('Server:'):
            in_server = True
        elif in_server and line.strip().startswith('Version:'):
            return line.split(':', 1)[1].strip()
    return None


class Verifier(object):

    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.ctr = module.get_bin_path(self.params['ctr_binary'])
        self.started = None

    def restart(self):
        if self.params['restart_command']:
            argv = self.params['restart_command']
        else:
            systemctl = self.module.get_bin_path('systemctl')
            if not systemctl:
                self.module.fail_json(msg='systemctl was not found on this node, so containerd cannot be restarted '
                                          'through systemd; set restart_command to the command that restarts it.',
                                      restarted=False, containerd_ready=False, nri_socket=None, nri_ready=None,
                                      plan=[])
            argv = [systemctl, 'restart', self.params['service']]
        if self.started is None:
            self.started = time.time()
        rc, out, err = self.module.run_command(argv)
        return rc, (out + err).strip(), ' '.join(argv)

    def containerd_answers(self):
        """(answered, detail, server_version)."""
        address = self.params['address']
        ok, error = _connects(address)
        if not ok:
            return False, 'cannot connect to %s: %s' % (address, error), None
        if not self.ctr:
            return True, 'connected to %s' % address, None
        try:
            proc = subprocess.run([self.ctr, '--address', address, '--connect-timeout', '2s', 'version'],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10, check=False,
                                  universal_newlines=True)
        except subprocess.TimeoutExpired:
            return False, '`ctr version` did not answer within 10s', None
        if proc.returncode != 0:
            return False, '`ctr version` failed: %s' % (proc.stderr or proc.stdout).strip()[-300:], None
        return True, 'ctr version answered', _server_version(proc.stdout)

    def wait_containerd(self):
        deadline = time.monotonic() + self.params['timeout']
        while True:
            answered, detail, version = self.containerd_answers()
            if answered or time.monotonic() >= deadline:
                return answered, detail, version
            time.sleep(POLL_INTERVAL)

    def wait_nri(self, socket_path, before):
        deadline = time.monotonic() + self.params['timeout']
        while True:
            identity = _socket_identity(socket_path)
            if identity is not None and identity != before:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_INTERVAL)

    def log_file_lines(self):
        """The lines of the last MAX_LOG_BYTES of O(log_file); raises OSError when it cannot be read."""
        return tail_lines(self.params['log_file'], MAX_LOG_BYTES)

    def journal(self):
        lines = self.params['journal_lines']
        if self.params['log_file']:
            try:
                return self.log_file_lines()[-lines:]
            except (IOError, OSError) as err:
                return ['(could not read %s: %s)' % (self.params['log_file'], err)]
        journalctl = self.module.get_bin_path('journalctl')
        if not journalctl:
            return ['(journalctl is not installed; set log_file to show containerd\'s log)']
        rc, out, err = self.module.run_command([journalctl, '-u', self.params['service'], '-n', str(lines),
                                                '--no-pager', '-o', 'short-iso'])
        if rc != 0:
            return ['(journalctl failed: %s)' % (err or out).strip()]
        return out.splitlines()[-lines:]

    def errors(self):
        """containerd's error lines since the first restart of this task (journal_errors): the reason it stopped,
        which the last lines alone miss when systemd has started it again meanwhile (each start logs dozens of
        lines before it fails again). Without a restart the last 5000 journal lines are read; from O(log_file), its
        last MAX_LOG_BYTES."""
        if self.params['log_file']:
            try:
                return journal_errors(self.log_file_lines(), MAX_ERROR_LINES)
            except (IOError, OSError):
                return []
        journalctl = self.module.get_bin_path('journalctl')
        if not journalctl:
            return []
        argv = [journalctl, '-u', self.params['service'], '--no-pager', '-o', 'short-iso']
        if self.started is not None:
            argv += ['--since', '@%d' % (int(self.started) - 1)]
        else:
            argv += ['-n', '5000']
        rc, out, _err = self.module.run_command(argv)
        if rc != 0:
            return []
        return journal_errors(out.splitlines(), MAX_ERROR_LINES)

    def restore(self):
        restored, problems = [], []
        for entry in self.params['restore']:
            path, backup = entry['path'], entry.get('backup_file')
            try:
                if backup:
                    directory = os.path.dirname(path) or '.'
                    fd, tmp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), dir=directory)
                    os.close(fd)
                    shutil.copy2(backup, tmp)
                    self.module.atomic_move(tmp, path)
                    restored.append('%s (from %s)' % (path, backup))
                elif os.path.lexists(path):
                    os.remove(path)
                    restored.append('%s (removed: it did not exist before)' % path)
            except (IOError, OSError) as err:
                problems.append('could not restore %s: %s' % (path, err))
        return restored, problems


def log_source(params):
    return params['log_file'] or 'journalctl -u %s' % params['service']


def read_log(verifier, result):
    """containerd's last journal lines and its error lines since the restart, kept in ``result`` too."""
    result['journal'] = verifier.journal()
    result['journal_errors'] = verifier.errors()
    return result['journal'], result['journal_errors']


def log_text(verifier, journal, errors):
    """The part of a failure message after its first sentences: containerd's error lines, when any were found,
    then the last lines of its journal (or O(log_file))."""
    source = log_source(verifier.params)
    text = ''
    if errors:
        text = "containerd's errors%s (%s):\n%s\n" % (
            ' since the restart' if verifier.started is not None and not verifier.params['log_file'] else '',
            source, '\n'.join(errors))
    return text + 'Last %d lines of %s:\n%s' % (len(journal), source, '\n'.join(journal))


def fail_down(module, verifier, result, what):
    """Fail because containerd is not answering: with its journal and errors, after putting back O(restore) and
    restarting it once more when this task restarted it."""
    params = module.params
    journal, errors = read_log(verifier, result)
    if params['restore'] and params['restart']:
        restored, problems = verifier.restore()
        result['restored'] = restored
        rc2, output2, command = verifier.restart()
        ready2, detail2, _version2 = verifier.wait_containerd()
        if restored:
            what += ' Restored %s.' % '; '.join(restored)
        if problems:
            what += ' ' + '; '.join(problems) + '.'
        if ready2:
            what += (' Restarted again: containerd is back with the previous configuration - the new one is '
                     'broken, see the journal below.')
        else:
            what += (' Restarted again: containerd is STILL DOWN (%s%s) - the node needs attention now.'
                     % (detail2, '' if rc2 == 0 else '; `%s` rc=%d: %s' % (command, rc2, output2[-300:])))
    elif params['restart']:
        what += ' This task restored no files (its restore list is empty).'
    module.fail_json(msg=what + ' ' + log_text(verifier, journal, errors), **result)


def run(module):
    params = module.params
    nri = params['nri']
    if nri is not None:
        socket_path = nri.get('socket_path') or '/var/run/nri/nri.sock'
        wait_nri = not nri.get('disable') and not nri.get('disable_connections')
    else:
        socket_path = params['nri_socket_path']
        wait_nri = params['wait_for_nri']
    result = dict(changed=False, restarted=False, containerd_ready=False, nri_socket=socket_path if wait_nri else None,
                  nri_ready=None, plan=[])
    if params['timeout'] < 1:
        module.fail_json(msg='timeout=%d must be at least 1 second.' % params['timeout'], **result)
    verifier = Verifier(module)
    plan = result['plan']
    if params['restart']:
        if params['restart_command']:
            how = ' '.join(params['restart_command'])
        else:
            how = 'systemctl restart %s' % params['service']
        plan.append('restart containerd with: %s' % how)
    plan.append('wait up to %ds for containerd to answer on %s (%s)'
                % (params['timeout'], params['address'], 'ctr version' if verifier.ctr else 'socket connection'))
    if wait_nri:
        plan.append('wait up to %ds for the NRI socket %s to be created' % (params['timeout'], socket_path))
    else:
        plan.append('not waiting for the NRI socket (NRI %s)'
                    % ('disabled' if nri and nri.get('disable') else 'connections disabled' if nri else 'check off'))
    if params['restore']:
        plan.append('if containerd does not answer: restore %s, restart again and fail'
                    % ', '.join(e['path'] for e in params['restore']))
    if module.check_mode:
        result['changed'] = result['restarted'] = params['restart']
        module.exit_json(msg='check mode: ' + '; '.join(plan), **result)

    before = _socket_identity(socket_path) if params['restart'] else None
    if params['restart']:
        rc, output, command = verifier.restart()
        result['changed'] = result['restarted'] = True
        restart_error = None if rc == 0 else '`%s` failed (rc=%d): %s' % (command, rc, output[-500:])
    else:
        restart_error = None
    ready, detail, version = verifier.wait_containerd()
    result['containerd_ready'] = ready
    if version:
        result['server_version'] = version
    if not ready:
        what = 'containerd did not answer on %s within %ds%s (%s).' % (
            params['address'], params['timeout'], ' after the restart' if params['restart'] else '', detail)
        if restart_error:
            what += ' ' + restart_error.strip().rstrip('.') + '.'
        fail_down(module, verifier, result, what)
    if wait_nri:
        # the socket containerd answered on: containerd creates it anew each time it starts
        served = _socket_identity(params['address'])
        nri_ready = verifier.wait_nri(socket_path, before)
        result['nri_ready'] = nri_ready
        if not nri_ready:
            # containerd 1.7 serves its socket before its CRI service starts NRI, and exits when that fails:
            # answering once is not staying up
            answers, detail, _version = verifier.containerd_answers()
            if not answers:
                result['containerd_ready'] = False
                fail_down(module, verifier, result, 'containerd answered on %s after the restart, but the NRI socket %s '
                          'was not created within %ds and containerd no longer answers (%s): it stopped after it had '
                          'started.' % (params['address'], socket_path, params['timeout'], detail))
            if served is not None and _socket_identity(params['address']) != served:
                # and when its service manager starts it again at once (systemd Restart=always), the next start
                # may be answering at this moment: its socket is not the one that answered before
                result['containerd_ready'] = False
                fail_down(module, verifier, result, 'containerd answered on %s after the restart, but the NRI socket %s '
                          'was not created within %ds and containerd did not stay up: it exited and was started '
                          'again meanwhile (its socket was created anew), as a containerd does that fails after it '
                          'has started.' % (params['address'], socket_path, params['timeout']))
            journal, errors = read_log(verifier, result)
            module.fail_json(msg=(
                'containerd answers, but the NRI socket %s was not created within %ds. NRI is not active: check that '
                'containerd is 1.7 or later, that [plugins."io.containerd.nri.v1.nri"] has disable = false in the '
                'config containerd actually loads (`containerd config dump`), and that socket_path matches. The '
                'configuration was kept. %s' % (socket_path, params['timeout'], log_text(verifier, journal, errors))),
                **result)
    module.exit_json(msg='containerd answers on %s%s' % (
        params['address'], ' and the NRI socket %s is up' % socket_path if wait_nri else ''), **result)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    run(module)


if __name__ == '__main__':
    main()
