#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: kubelet_health
short_description: Wait on the node until the kubelet's /healthz answers ok, and check that the kubelet stays up
version_added: 1.0.0
description:
  - Asks the kubelet's C(/healthz) on the node every O(interval) seconds until it answers C(ok) (HTTP 200, body
    C(ok)) or O(timeout) seconds have passed by the clock - the time each request takes counts, so the task ends
    after about O(timeout) seconds however slow the node is. Each request waits at most O(request_timeout) seconds,
    and no longer than the time left. No proxy is used.
  - The URL is O(url) when given. Otherwise it comes from the configuration the kubelet runs - C(healthzBindAddress)
    and C(healthzPort) of O(config_path), with the drop-ins of O(config_dir) merged over it in the kubelet's order
    (a later drop-in wins; V(null) in a drop-in removes the key, so the kubelet's default applies). Port C(10248) and
    address C(127.0.0.1) by default; an address that listens everywhere (C(0.0.0.0), C(::), empty) is asked on
    C(127.0.0.1); an IPv6 address is put in brackets.
  - C(healthzPort) 0 turns the kubelet's endpoint off; then nothing is asked, RV(checked) is V(false), the task
    does not fail and warns that the kubelet's health was not checked.
  - The kubelet serves C(/healthz) before its container manager reads C(cpu_manager_state) and
    C(memory_manager_state), so one that refuses them answers C(ok), exits, and systemd starts it again. With
    O(settle) above 0, after the first C(ok) the module watches the main process and the restart count of the
    systemd unit O(service) (C(systemctl show)) for O(settle) seconds - a new main process, a restart or no main
    process fails the task - and then C(/healthz) must answer C(ok) once more. An answer of C(systemctl show)
    without C(MainPID=) and C(NRestarts=) (systemd, busy, can answer nothing and still exit 0) is read again twice,
    a second apart, before the task fails saying that the unit cannot be watched.
  - On failure the message names the host (O(host_label)), the URL, which phase failed (never answered C(ok), or
    answered and did not stay up, with what was seen), the real elapsed time and the number of requests, and the
    last O(log_lines) lines of C(journalctl -u <service>) (or of O(log_file)).
  - The file names are read as they are (no root prefix is added). Standard library only on the node.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: The module only reads and asks; it does the same in check mode and never reports a change.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  url:
    description:
      - The kubelet's health URL. When given, O(config_path) and O(config_dir) are not read.
    type: str
  config_path:
    description: The kubelet's main configuration file (YAML or JSON), read for C(healthzPort) and
      C(healthzBindAddress) (top-level keys only).
    type: path
    default: /var/lib/kubelet/config.yaml
  config_dir:
    description:
      - The kubelet's drop-in directory (its C(--config-dir)). Every file below it whose name ends in C(.conf) is
        read in the kubelet's order (links to directories are not followed; when O(config_dir) itself is a link,
        the kubelet reads nothing from it and neither does this module). A directory that does not exist is noted
        in RV(notes) and read as empty.
      - Not set, no drop-in is read, as for a kubelet started without C(--config-dir).
    type: path
  timeout:
    description: Seconds, by the clock, to wait for C(/healthz) to answer C(ok). At least 1.
    type: float
    default: 180
  interval:
    description: Seconds between two requests (and between two looks at the unit during O(settle)). More than 0.
    type: float
    default: 5
  request_timeout:
    description: Seconds one request may take (at most the time left before O(timeout)). At least 1.
    type: float
    default: 5
  settle:
    description:
      - Seconds the kubelet must stay up after C(/healthz) first answered C(ok) - the same main process and restart
        count of the systemd unit O(service) - before C(/healthz) is asked once more. V(0) turns this off; use V(0)
        for a kubelet that systemd does not run.
    type: float
    default: 20
  service:
    description: The kubelet's systemd unit, watched during O(settle) and whose journal a failure shows.
    type: str
    default: kubelet
  log_file:
    description: Show the last lines of this file instead of C(journalctl -u <service>) when the task fails (a
      kubelet that systemd does not run).
    type: path
  log_lines:
    description: How many of the kubelet's last log lines a failure shows.
    type: int
    default: 20
  host_label:
    description: The name of this node in the messages (for example C(inventory_hostname)); not set, they say
      "the kubelet".
    type: str
notes:
  - Without O(url), only the top-level lines of a block-style YAML file that set a plain value (or the top-level keys
    of a JSON one) are read; a kubelet that takes its healthz address from command-line flags needs O(url).
seealso:
  - module: numaops.colocation.kubelet_config
'''

EXAMPLES = r'''
- name: Wait up to 3 minutes for the kubelet, which must then stay up for 20 seconds
  numaops.colocation.kubelet_health:
    config_path: /var/lib/kubelet/config.yaml
    config_dir: /etc/kubernetes/kubelet.conf.d
    timeout: 180
    host_label: "{{ inventory_hostname }}"

- name: A kubelet started without systemd, on its own port
  numaops.colocation.kubelet_health:
    url: http://127.0.0.1:10258/healthz
    settle: 0
    log_file: /var/log/kubelet.log
'''

RETURN = r'''
url:
  description: The URL asked, or null when the kubelet's endpoint is off (C(healthzPort) 0).
  returned: always
  type: str
  sample: http://127.0.0.1:10248/healthz
url_source:
  description: Where the URL comes from - O(url), or the file that sets each of C(healthzPort) and
    C(healthzBindAddress) (or that they are the defaults).
  returned: always
  type: str
  sample: healthzPort 10248 from /var/lib/kubelet/config.yaml, healthzBindAddress 127.0.0.1 from /var/lib/kubelet/config.yaml
checked:
  description: Whether the kubelet's health was checked (false when its endpoint is off).
  returned: always
  type: bool
healthy:
  description: Whether it answered C(ok) and, with O(settle), stayed up and answered C(ok) again. Null when not
    checked.
  returned: always
  type: bool
phase:
  description: V(healthy), V(never_ok) (no C(ok) within O(timeout)), V(not_stayed_up) (C(ok), then a restart, a new
    or no main process, or no C(ok) after O(settle)) or V(not_checked).
  returned: always
  type: str
  sample: healthy
elapsed:
  description: Seconds the whole check took, by the clock.
  returned: always
  type: float
  sample: 24.3
attempts:
  description: How many requests were made to the URL.
  returned: always
  type: int
  sample: 2
last_answer:
  description: "The last answer of the URL (C(HTTP 200: ok), C(HTTP 500: ...), or why there was none)."
  returned: when a request was made
  type: str
  sample: 'no answer ([Errno 111] Connection refused)'
main_pid:
  description: The main process of O(service) at the start and at the end of the settle time (null when not
    watched).
  returned: always
  type: list
  elements: int
  sample: [1804, 1804]
restarts:
  description: The restart count of O(service) at the start and at the end of the settle time (null when not
    watched).
  returned: always
  type: list
  elements: int
  sample: [0, 0]
log_lines:
  description: The kubelet's last log lines (C(journalctl -u <service>), or O(log_file)).
  returned: on failure
  type: list
  elements: str
notes:
  description: What was not read and why (a drop-in directory that does not exist or is a link).
  returned: always
  type: list
  elements: str
'''

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet_health as health
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import tail_lines

ARGUMENT_SPEC = dict(
    url=dict(type='str'),
    config_path=dict(type='path', default='/var/lib/kubelet/config.yaml'),
    config_dir=dict(type='path'),
    timeout=dict(type='float', default=180),
    interval=dict(type='float', default=5),
    request_timeout=dict(type='float', default=5),
    settle=dict(type='float', default=20),
    service=dict(type='str', default='kubelet'),
    log_file=dict(type='path'),
    log_lines=dict(type='int', default=20),
    host_label=dict(type='str'),
)

# the most of O(log_file) read: its last bytes
MAX_LOG_BYTES = 1024 * 1024


def bad_input(params):
    problems = []
    for name, least in (('timeout', 1), ('request_timeout', 1), ('settle', 0), ('log_lines', 0)):
        if params[name] < least:
            problems.append('%s=%s must be at least %s' % (name, params[name], least))
    if params['interval'] <= 0:
        problems.append('interval=%s must be more than 0' % params['interval'])
    return problems


def log_source(params):
    return params['log_file'] or 'journalctl -u %s' % params['service']


def read_log(module):
    """The kubelet's last log lines, or one line saying why there are none."""
    params = module.params
    count = params['log_lines']
    if params['log_file']:
        try:
            lines = tail_lines(params['log_file'], MAX_LOG_BYTES)
        except (IOError, OSError) as err:
            return ['(could not read %s: %s)' % (params['log_file'], err.strerror or err)]
        return lines[-count:] if count else []
    journalctl = module.get_bin_path('journalctl')
    if not journalctl:
        return ['(journalctl is not installed here; log_file names the kubelet\'s log file)']
    rc, out, err = module.run_command([journalctl, '-u', params['service'], '-n', str(count), '--no-pager', '-o', 'cat'])
    if rc != 0:
        return ['(journalctl failed: %s)' % (err or out).strip()]
    return out.splitlines()[-count:] if count else []


UNIT_READS = 3  # systemctl show can answer nothing, with status 0, while systemd is busy; read again before failing
UNIT_REREAD_PAUSE = 1.0


def unit_reader(module, service, sleep=time.sleep):
    systemctl = module.get_bin_path('systemctl')

    def read():
        if not systemctl:
            raise ValueError('systemctl is not installed here')
        for attempt in range(1, UNIT_READS + 1):
            rc, out, err = module.run_command([systemctl, 'show', '-p', 'MainPID', '-p', 'NRestarts', service])
            if rc != 0:
                raise ValueError('systemctl show %s failed (rc=%d): %s' % (service, rc, (err or out).strip()[:300]))
            try:
                return health.parse_unit_state(out)
            except ValueError as err:
                if attempt == UNIT_READS:
                    raise ValueError('%s (%d reads, %gs apart)' % (err, UNIT_READS, UNIT_REREAD_PAUSE))
                sleep(UNIT_REREAD_PAUSE)
    return read


def run(module, clock=time.monotonic, sleep=time.sleep, fetch=health.fetch):
    params = module.params
    host = params['host_label']
    result = dict(changed=False, url=None, url_source='', checked=False, healthy=None, phase='not_checked',
                  elapsed=0.0, attempts=0, main_pid=None, restarts=None, notes=[])
    problems = bad_input(params)
    if problems:
        module.fail_json(msg='kubelet_health%s: %s. Nothing was asked.' % (
            ' on %s' % host if host else '', '; '.join(problems)), **result)

    if params['url']:
        url, result['url_source'] = params['url'], 'the url option'
    else:
        try:
            found = health.configured_url(params['config_path'], params['config_dir'] or '')
        except health.HealthzConfigError as err:
            module.fail_json(msg='%s: %s. Give the URL with the url option, or point config_path (and config_dir) '
                                 'at the files the kubelet reads.' % (host or 'kubelet_health', err), **result)
        url, result['url_source'], result['notes'] = found['url'], found['why'], found['notes']
    result['url'] = url
    if url is None:
        module.warn('%s%s.' % ('%s: ' % host if host else '', result['url_source']))
        module.exit_json(msg=result['url_source'], **result)

    result['checked'] = True
    poller = health.Poller(clock, sleep, fetch, params['request_timeout'])
    start = clock()
    healthy = health.wait_healthy(poller, url, params['timeout'], params['interval'])
    phase, detail = ('healthy', poller.last) if healthy else ('never_ok', poller.last)
    if healthy and params['settle'] > 0:
        try:
            stayed, detail, states = health.settle(poller, url, params['settle'], params['interval'],
                                                   unit_reader(module, params['service'], sleep))
        except ValueError as err:
            result.update(elapsed=round(clock() - start, 1), attempts=poller.attempts, last_answer=poller.last)
            module.fail_json(msg='%s answered ok on %s, but whether it stays up cannot be told: %s. settle needs the '
                                 'systemd unit of the kubelet (service=%s); set settle to 0 for a kubelet that systemd '
                                 'does not run.' % ('the kubelet on %s' % host if host else 'the kubelet', url, err,
                                                    params['service']), **result)
        result['main_pid'] = [state[0] for state in states]
        result['restarts'] = [state[1] for state in states]
        if not stayed:
            phase = 'not_stayed_up'
    result.update(healthy=phase == 'healthy', phase=phase, elapsed=round(clock() - start, 1),
                  attempts=poller.attempts, last_answer=poller.last)
    if phase != 'healthy':
        result['log_lines'] = read_log(module)
        module.fail_json(msg=health.failure_message(
            host, url, params['timeout'], phase, result['elapsed'], poller.attempts, detail, params['settle'],
            log_source(params), result['log_lines']), **result)
    module.exit_json(msg='%s answers ok on %s (%d request%s in %.1fs%s)' % (
        'the kubelet on %s' % host if host else 'the kubelet', url, poller.attempts,
        '' if poller.attempts == 1 else 's', result['elapsed'],
        '; it stayed up for %gs: %s' % (params['settle'], detail) if params['settle'] > 0 else ''), **result)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    run(module)


if __name__ == '__main__':
    main()
