# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Whether the kubelet on this node is healthy: its ``/healthz`` answers ``ok`` within a wall-clock deadline, and it
stays up for a settle time after that.

- The URL comes from the configuration the kubelet runs: ``healthzBindAddress`` and ``healthzPort`` of its main file
  with its drop-in directory (``--config-dir``) merged over it by the kubelet's rules (kubelet/dropin.py). Port 0
  disables the endpoint; an address that listens everywhere (``0.0.0.0``, ``::``, empty) is asked on 127.0.0.1; an
  IPv6 address goes in brackets; the defaults are 127.0.0.1 and 10248.
- :func:`wait_healthy` asks the URL every ``interval`` seconds until ``timeout`` seconds of the clock it is given
  have passed (not a number of attempts: each attempt's own time counts), each request bounded by the time left.
- The kubelet answers ``/healthz`` before its container manager has read ``cpu_manager_state`` and
  ``memory_manager_state``; one that refuses them answers ``ok`` once, exits, and systemd starts it again.
  :func:`settle` watches its unit's main process and restart count for ``settle`` seconds, then asks ``/healthz``
  once more.

The clock, the sleep, the HTTP request and the reading of the unit are passed in, so that all of it is tested without
a kubelet. Standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import posixpath
import socket

from http.client import HTTPException
from urllib.error import HTTPError, URLError
from urllib.request import ProxyHandler, build_opener

from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import dropin
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet_scalars import NULLS, top_level_scalars

DEFAULT_PORT = 10248
DEFAULT_ADDRESS = '127.0.0.1'
ANY_ADDRESSES = ('0.0.0.0', '::', '')
HEALTHZ_KEYS = ('healthzPort', 'healthzBindAddress')
# the most of an answer's body read, and shown
MAX_BODY = 512


class HealthzConfigError(ValueError):
    """A kubelet configuration whose healthz settings cannot be read."""


def healthz_settings(text, path):
    """``{key: value}`` of HEALTHZ_KEYS set at the top level of one configuration file's ``text``; a key set to null
    (which a drop-in uses to remove a key) is there with the value None. Raises HealthzConfigError naming ``path``."""
    try:
        found = top_level_scalars(text, HEALTHZ_KEYS)
    except ValueError as err:
        raise HealthzConfigError('%s starts with "{" but is not a JSON object (%s)' % (path, err))
    settings = {}
    for key, value in found.items():
        if value in NULLS:
            settings[key] = None
        elif key == 'healthzPort':
            try:
                port = int(value)
            except ValueError:
                port = -1
            if not 0 <= port <= 65535:
                raise HealthzConfigError('%s: healthzPort is %r; the kubelet takes a port number from 0 (the endpoint '
                                         'off) to 65535' % (path, value))
            settings[key] = port
        else:
            settings[key] = value
    return settings


def effective_settings(main, dropins):
    """The healthz settings the kubelet runs with: ``main`` ({key: value} of the main file) with ``dropins``
    ([(path, {key: value})], in the kubelet's order) merged over it (a null removes the key: the default)."""
    base = dict((key, value) for key, value in main.items() if value is not None)
    return dropin.effective_config(base, dropins)


def source_of(key, main_path, dropins):
    """Where ``key``'s value comes from: the last drop-in that sets or removes it, else the main file."""
    for path, settings in reversed(dropins):
        if key in settings:
            return path
    return main_path


def healthz_url(settings):
    """The /healthz URL of the effective ``settings``, or None when healthzPort is 0 (the endpoint is off)."""
    port = settings.get('healthzPort')
    port = DEFAULT_PORT if port is None else port
    if port == 0:
        return None
    address = settings.get('healthzBindAddress')
    address = (address or '').strip()
    if address in ANY_ADDRESSES:
        address = DEFAULT_ADDRESS
    elif ':' in address and not address.startswith('['):
        address = '[%s]' % address
    return 'http://%s:%d/healthz' % (address, port)


def dropin_entries(config_dir):
    """What the kubelet's walk of ``config_dir`` finds: ``(entries, note)``. ``entries``: (path, is_dir) of everything
    below it, a directory counted only when it is one itself (a link to one is not followed, as the kubelet's walk
    does not), for dropin.dropin_files; None with a ``note`` saying why when nothing is read there (the directory is
    a link, or does not exist). Raises OSError when it cannot be listed."""
    if os.path.islink(config_dir):
        return None, dropin.link_root_warning(config_dir)
    if not os.path.isdir(config_dir):
        return None, 'the drop-in directory %s does not exist: no drop-in was read' % config_dir
    entries = []
    pending = [config_dir]
    while pending:
        directory = pending.pop()
        for entry in os.scandir(directory):
            is_dir = entry.is_dir(follow_symlinks=False)
            entries.append((posixpath.join(directory, entry.name), is_dir))
            if is_dir:
                pending.append(posixpath.join(directory, entry.name))
    return entries, None


def read_text(path):
    with open(path, 'rb') as handle:
        return handle.read().decode('utf-8', 'replace')


def configured_url(config_path, config_dir, read=read_text, entries=dropin_entries):
    """The kubelet's /healthz URL from its main file ``config_path`` and its drop-in directory ``config_dir`` ('' for
    none). Returns {url (None when the endpoint is off), why (a sentence saying where the port and address come
    from), notes (what could not be read and was left out)}; raises HealthzConfigError when the main file cannot be
    read or a file's healthz settings make no sense."""
    try:
        main = healthz_settings(read(config_path), config_path)
    except (IOError, OSError) as err:
        raise HealthzConfigError('the kubelet configuration %s cannot be read (%s), so its healthz address and port '
                                 'are unknown' % (config_path, err.strerror or err))
    notes = []
    dropins = []
    if config_dir:
        try:
            found, note = entries(config_dir)
        except (IOError, OSError) as err:
            raise HealthzConfigError('the kubelet\'s drop-in directory %s cannot be listed (%s), so its healthz '
                                     'address and port are unknown' % (config_dir, err.strerror or err))
        if note:
            notes.append(note)
        if found is not None:
            files, _skipped = dropin.dropin_files(config_dir, found)
            for path in files:
                try:
                    dropins.append((path, healthz_settings(read(path), path)))
                except (IOError, OSError) as err:
                    raise HealthzConfigError('the kubelet drop-in %s cannot be read (%s), so its healthz address and '
                                             'port are unknown' % (path, err.strerror or err))
    settings = effective_settings(main, dropins)
    url = healthz_url(settings)
    port_from = source_of('healthzPort', config_path, dropins)
    if url is None:
        why = 'healthzPort is 0 in %s: the kubelet serves no /healthz, so its health cannot be checked on the node' % (
            port_from)
    else:
        address_from = source_of('healthzBindAddress', config_path, dropins)
        why = 'healthzPort %s, healthzBindAddress %s' % (
            '%d from %s' % (settings['healthzPort'], port_from) if 'healthzPort' in settings
            else '%d (the default: %s sets none)' % (DEFAULT_PORT, port_from),
            '%s from %s' % (settings['healthzBindAddress'], address_from) if settings.get('healthzBindAddress')
            else '%s (the default: %s sets none)' % (DEFAULT_ADDRESS, address_from))
    return {'url': url, 'why': why, 'notes': notes}


# ------------------------------------------------------------------ asking /healthz

def answer_ok(status, body):
    return status == 200 and (body or '').strip() == 'ok'


def describe(status, body, error):
    """One answer as the failure message shows it."""
    if error:
        return error
    body = (body or '').strip()
    return 'HTTP %s%s' % (status, ': %s' % body[:200] if body else ' with an empty body')


def fetch(url, timeout):
    """GET ``url`` (no proxy: the kubelet is asked on the node itself). Returns (status or None, body, error)."""
    opener = build_opener(ProxyHandler({}))
    try:
        response = opener.open(url, timeout=timeout)
        try:
            return response.getcode(), response.read(MAX_BODY).decode('utf-8', 'replace'), None
        finally:
            response.close()
    except HTTPError as err:
        try:
            body = err.read(MAX_BODY).decode('utf-8', 'replace')
        except (HTTPException, OSError, ValueError):  # the body of an error answer is only shown
            body = ''
        return err.code, body, None
    except URLError as err:
        reason = err.reason
        return None, '', 'no answer (%s)' % (getattr(reason, 'strerror', None) or reason)
    except socket.timeout:
        return None, '', 'no answer within %gs' % timeout
    except (HTTPException, OSError) as err:
        return None, '', 'no answer (%s)' % (getattr(err, 'strerror', None) or err)


class Poller(object):
    """The clock, the sleep and the request, for :func:`wait_healthy` and :func:`settle`."""

    def __init__(self, clock, sleep, fetch_url=fetch, request_timeout=5.0):
        self.clock = clock
        self.sleep = sleep
        self.fetch = fetch_url
        self.request_timeout = request_timeout
        self.attempts = 0
        self.last = None

    def ask(self, url, left=None):
        """Ask ``url`` once, the request bounded by ``left`` seconds (at least one); returns whether it answered ok."""
        timeout = self.request_timeout if left is None else max(1.0, min(self.request_timeout, left))
        self.attempts += 1
        status, body, error = self.fetch(url, timeout)
        self.last = describe(status, body, error)
        return answer_ok(status, body)


def wait_healthy(poller, url, timeout, interval):
    """Ask ``url`` every ``interval`` seconds until it answers ok or ``timeout`` seconds of the poller's clock have
    passed since the call. Returns whether it answered ok."""
    deadline = poller.clock() + timeout
    while True:
        if poller.ask(url, deadline - poller.clock()):
            return True
        left = deadline - poller.clock()
        if left <= 0:
            return False
        poller.sleep(min(interval, left))


def settle(poller, url, seconds, interval, unit_state):
    """Whether the kubelet stays up for ``seconds``: ``unit_state()`` ((main PID, restart count) of its unit; raises
    ValueError with the reason when it cannot be read) the same at every look, the main PID not 0, then ``url``
    answering ok once more. Returns (stayed up, what was seen, states [(pid, restarts)] first and last)."""
    first = unit_state()
    if first[0] == 0:
        return False, 'its unit has no main process (MainPID 0): the kubelet is not running', [first]
    end = poller.clock() + seconds
    last = first
    while True:
        left = end - poller.clock()
        if left > 0:
            poller.sleep(min(interval, left))
        last = unit_state()
        if last != first or last[0] == 0:
            return False, 'main process %d -> %d, restarts %d -> %d' % (first[0], last[0], first[1], last[1]), [
                first, last]
        if end - poller.clock() <= 0:
            break
    if not poller.ask(url):
        return False, 'the same main process %d, but /healthz then answered: %s' % (last[0], poller.last), [
            first, last]
    return True, 'main process %d and restarts %d unchanged' % last, [first, last]


def parse_unit_state(text):
    """(MainPID, NRestarts) from ``systemctl show -p MainPID -p NRestarts`` output; raises ValueError."""
    fields = {}
    for line in (text or '').splitlines():
        key, sep, value = line.partition('=')
        if sep:
            fields[key.strip()] = value.strip()
    try:
        return int(fields['MainPID']), int(fields['NRestarts'])
    except (KeyError, ValueError):
        raise ValueError('systemctl show answered %r, not MainPID= and NRestarts=' % (text or '').strip()[:200])


def failure_message(host, url, timeout, phase, elapsed, attempts, detail, settle_seconds, log_source, log_lines):
    """The failure of one check, for the person reading the job's output."""
    who = 'the kubelet on %s' % host if host else 'the kubelet'
    if phase == 'never_ok':
        text = ('%s did not answer ok on %s within %gs: %d attempts in %.1fs, the last: %s.' % (
            who, url, timeout, attempts, elapsed, detail))
    else:
        text = ('%s answered ok on %s but did not stay up for %gs (%s; %d requests in %.1fs): it exits or restarts '
                'after starting, for example because it refuses its configuration or state files.' % (
                    who, url, settle_seconds, detail, attempts, elapsed))
    lines = [line for line in log_lines if line.strip()]
    return '%s Last lines of %s: %s' % (text, log_source, ' | '.join(lines) if lines else '(none)')
