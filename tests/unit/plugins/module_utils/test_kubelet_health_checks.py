# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's /healthz URL from the configuration it runs, the wait bounded by the clock, and the settle check,
with a clock, a sleep, answers and a unit that the tests make up."""
from __future__ import annotations

import os

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet_health as health
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet_scalars import top_level_scalars

MAIN = '/var/lib/kubelet/config.yaml'
D = '/etc/kubernetes/kubelet.conf.d'
HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'


def url_of(main, dropins=None, config_dir=D):
    """configured_url over made-up files: ``main`` the main file's text, ``dropins`` {path: text}."""
    files = dict(dropins or {}, **{MAIN: main})

    def read(path):
        if path not in files:
            raise OSError(2, 'No such file or directory')
        return files[path]
    entries = [(path, False) for path in files if path != MAIN]
    return health.configured_url(MAIN, config_dir if dropins is not None else '', read=read,
                                 entries=lambda _dir: (entries, None))


# ---------------------------------------------------------------- the URL

@pytest.mark.parametrize('main, url', [
    (HEAD, 'http://127.0.0.1:10248/healthz'),
    (HEAD + 'healthzPort: 10258\n', 'http://127.0.0.1:10258/healthz'),
    (HEAD + 'healthzBindAddress: 0.0.0.0\nhealthzPort: 10248\n', 'http://127.0.0.1:10248/healthz'),
    (HEAD + 'healthzBindAddress: "::"\n', 'http://127.0.0.1:10248/healthz'),
    (HEAD + 'healthzBindAddress: ""\n', 'http://127.0.0.1:10248/healthz'),
    (HEAD + "healthzBindAddress: '10.0.0.5'  # the node's address\n", 'http://10.0.0.5:10248/healthz'),
    (HEAD + 'healthzBindAddress: fd00::5\nhealthzPort: 10300\n', 'http://[fd00::5]:10300/healthz'),
    (HEAD + 'healthzBindAddress: ::1\n', 'http://[::1]:10248/healthz'),
    (HEAD + 'healthzPort: null\n', 'http://127.0.0.1:10248/healthz'),
    (HEAD + 'authentication:\n  healthzPort: 1\n', 'http://127.0.0.1:10248/healthz'),  # nested: not the kubelet's
    ('{"kind": "KubeletConfiguration", "healthzPort": 10260, "healthzBindAddress": "::1"}',
     'http://[::1]:10260/healthz'),
])
def test_url_from_the_main_file(main, url):
    assert url_of(main)['url'] == url


def test_port_zero_turns_the_endpoint_off_and_says_where():
    found = url_of(HEAD + 'healthzPort: 0\n')
    assert found['url'] is None
    assert found['why'] == ('healthzPort is 0 in %s: the kubelet serves no /healthz, so its health cannot be checked '
                            'on the node' % MAIN)


def test_a_dropin_overrides_the_port_and_the_last_one_wins():
    found = url_of(HEAD + 'healthzPort: 10248\nhealthzBindAddress: 127.0.0.1\n', {
        D + '/10-port.conf': HEAD + 'healthzPort: 10300\n',
        D + '/20-port.conf': HEAD + 'healthzPort: 10301\n',
        D + '/30-other.conf': HEAD + 'maxPods: 50\n'})
    assert found['url'] == 'http://127.0.0.1:10301/healthz'
    assert found['why'] == ('healthzPort 10301 from %s/20-port.conf, healthzBindAddress 127.0.0.1 from %s'
                            % (D, MAIN))


def test_a_dropin_can_turn_the_endpoint_off_or_remove_the_port_back_to_the_default():
    off = url_of(HEAD + 'healthzPort: 10300\n', {D + '/10-off.conf': HEAD + 'healthzPort: 0\n'})
    assert off['url'] is None and off['why'].startswith('healthzPort is 0 in %s/10-off.conf' % D)
    removed = url_of(HEAD + 'healthzPort: 10300\n', {D + '/10-null.conf': HEAD + 'healthzPort: null\n'})
    assert removed['url'] == 'http://127.0.0.1:10248/healthz'
    assert removed['why'].startswith('healthzPort 10248 (the default: %s/10-null.conf sets none)' % D)


def test_only_conf_files_of_the_dropin_directory_count():
    found = url_of(HEAD, {D + '/10-port.yaml': HEAD + 'healthzPort: 10300\n',
                          D + '/20-json.conf': '{"healthzBindAddress": "fd00::1"}'})
    assert found['url'] == 'http://[fd00::1]:10248/healthz'


@pytest.mark.parametrize('text, problem', [
    (HEAD + 'healthzPort: 70000\n', "healthzPort is '70000'; the kubelet takes a port number from 0"),
    (HEAD + 'healthzPort: http\n', "healthzPort is 'http'"),
    ('{"healthzPort": ', 'starts with "{" but is not a JSON object'),
])
def test_a_port_that_makes_no_sense_is_refused_naming_the_file(text, problem):
    with pytest.raises(health.HealthzConfigError) as err:
        url_of(text)
    assert str(err.value).startswith(MAIN) and problem in str(err.value)


def test_a_main_file_that_cannot_be_read_is_refused():
    with pytest.raises(health.HealthzConfigError) as err:
        health.configured_url('/nonexistent/config.yaml', '')
    assert str(err.value) == ('the kubelet configuration /nonexistent/config.yaml cannot be read (No such file or '
                              'directory), so its healthz address and port are unknown')


def test_the_dropin_directory_on_disk(tmp_path):
    main = tmp_path / 'config.yaml'
    main.write_text(HEAD + 'healthzPort: 10248\n')
    conf = tmp_path / 'conf.d'
    (conf / 'sub').mkdir(parents=True)
    (conf / 'sub' / '50-port.conf').write_text(HEAD + 'healthzPort: 10310\n')
    (conf / '40-port.conf').write_text(HEAD + 'healthzPort: 10309\n')
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    (elsewhere / '99-port.conf').write_text(HEAD + 'healthzPort: 10399\n')
    os.symlink(str(elsewhere), str(conf / 'zz-link'))  # a link to a directory: not followed
    assert health.configured_url(str(main), str(conf))['url'] == 'http://127.0.0.1:10310/healthz'
    missing = health.configured_url(str(main), str(tmp_path / 'none.d'))
    assert missing['url'] == 'http://127.0.0.1:10248/healthz'
    assert missing['notes'] == ['the drop-in directory %s does not exist: no drop-in was read' % (tmp_path / 'none.d')]
    os.symlink(str(conf), str(tmp_path / 'link.d'))
    linked = health.configured_url(str(main), str(tmp_path / 'link.d'))
    assert linked['url'] == 'http://127.0.0.1:10248/healthz' and 'symbolic link' in linked['notes'][0]


def test_top_level_scalars_of_json_are_written_as_yaml_shows_them():
    assert top_level_scalars('{"a": 1, "b": null, "c": true, "d": "x", "e": {"f": 1}}', ('a', 'b', 'c', 'd', 'e')) == {
        'a': '1', 'b': 'null', 'c': 'true', 'd': 'x'}


# ---------------------------------------------------------------- the wait, by the clock

class Clock(object):
    """A clock that only moves when the code sleeps or a request takes time."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        assert seconds > 0
        self.sleeps.append(seconds)
        self.now += seconds


def answers(clock, replies, took=0.0):
    """A fetch giving ``replies`` in turn (the last one again and again), each taking ``took`` seconds."""
    asked = []

    def fetch(url, timeout):
        asked.append((url, timeout, clock.now))
        clock.now += min(took, timeout)
        return replies[min(len(asked), len(replies)) - 1]
    fetch.asked = asked
    return fetch


URL = 'http://127.0.0.1:10248/healthz'
OK = (200, 'ok', None)
REFUSED = (None, '', 'no answer ([Errno 111] Connection refused)')


def test_ok_at_the_third_request():
    clock = Clock()
    fetch = answers(clock, [REFUSED, (500, '[-]ping failed', None), OK])
    poller = health.Poller(clock, clock.sleep, fetch, 5)
    assert health.wait_healthy(poller, URL, 60, 2)
    assert poller.attempts == 3 and clock.sleeps == [2, 2] and poller.last == 'HTTP 200: ok'


def test_the_timeout_is_the_clock_not_a_number_of_requests():
    # each request takes 7 s (a loaded node): 60 s hold 7 requests and their pauses, not 60 / 5 = 12 of them
    clock = Clock()
    fetch = answers(clock, [REFUSED], took=7)
    poller = health.Poller(clock, clock.sleep, fetch, 10)
    start = clock.now
    assert not health.wait_healthy(poller, URL, 60, 5)
    # the last request is made at the deadline, and takes at most one second
    assert 60 <= clock.now - start <= 61
    assert poller.attempts == 6
    # every request waits no longer than the time left (at least one second)
    assert all(timeout <= max(1, 60 - (at - start)) for _url, timeout, at in fetch.asked)
    assert poller.last == 'no answer ([Errno 111] Connection refused)'


def test_a_request_that_hangs_is_cut_at_the_deadline():
    clock = Clock()
    fetch = answers(clock, [(None, '', 'no answer within 5s')], took=100)
    poller = health.Poller(clock, clock.sleep, fetch, 5)
    assert not health.wait_healthy(poller, URL, 12, 1)
    assert clock.now - 1000.0 <= 13  # a request takes at least one second, at most the time left
    assert [round(timeout, 3) for _url, timeout, _at in fetch.asked] == [5, 5, 1]


def test_an_ok_body_other_than_ok_is_not_healthy():
    clock = Clock()
    poller = health.Poller(clock, clock.sleep, answers(clock, [(200, 'not ok', None)]), 5)
    assert not health.wait_healthy(poller, URL, 3, 1)
    assert poller.last == 'HTTP 200: not ok'


# ---------------------------------------------------------------- the settle check

def unit(states):
    """A unit whose (MainPID, NRestarts) are ``states`` in turn, the last one again and again."""
    seen = []

    def read():
        seen.append(1)
        return states[min(len(seen), len(states)) - 1]
    return read


def test_the_same_process_for_the_settle_time_then_ok_again():
    clock = Clock()
    poller = health.Poller(clock, clock.sleep, answers(clock, [OK]), 5)
    stayed, detail, states = health.settle(poller, URL, 20, 5, unit([(1804, 0)]))
    assert stayed and detail == 'main process 1804 and restarts 0 unchanged'
    assert states == [(1804, 0), (1804, 0)] and clock.sleeps == [5, 5, 5, 5] and poller.attempts == 1


def test_a_restart_during_the_settle_time_fails_at_once():
    clock = Clock()
    poller = health.Poller(clock, clock.sleep, answers(clock, [OK]), 5)
    stayed, detail, states = health.settle(poller, URL, 20, 5, unit([(1804, 0), (1804, 0), (1912, 1)]))
    assert not stayed and detail == 'main process 1804 -> 1912, restarts 0 -> 1'
    assert states == [(1804, 0), (1912, 1)] and clock.sleeps == [5, 5] and poller.attempts == 0


def test_a_kubelet_that_stopped_is_not_up():
    clock = Clock()
    poller = health.Poller(clock, clock.sleep, answers(clock, [OK]), 5)
    stayed, detail, _states = health.settle(poller, URL, 20, 5, unit([(0, 3)]))
    assert not stayed and 'MainPID 0' in detail and clock.sleeps == []


def test_no_ok_after_the_settle_time():
    clock = Clock()
    poller = health.Poller(clock, clock.sleep, answers(clock, [(500, 'bad', None)]), 5)
    stayed, detail, _states = health.settle(poller, URL, 3, 5, unit([(7, 0)]))
    assert not stayed and detail == 'the same main process 7, but /healthz then answered: HTTP 500: bad'
    assert clock.sleeps == [3]


def test_unit_state_from_systemctl_show():
    assert health.parse_unit_state('MainPID=1804\nNRestarts=2\n') == (1804, 2)
    with pytest.raises(ValueError) as err:
        health.parse_unit_state('MainPID=1804\n')
    assert 'not MainPID= and NRestarts=' in str(err.value)


# ---------------------------------------------------------------- the message

def test_the_failure_says_the_real_time_the_requests_the_phase_and_the_log():
    never = health.failure_message('node-1', URL, 60, 'never_ok', 61.2, 7, 'no answer (Connection refused)', 20,
                                   'journalctl -u kubelet', ['E1 refused', '', 'E2 exit'])
    assert never == ('the kubelet on node-1 did not answer ok on %s within 60s: 7 attempts in 61.2s, the last: no '
                     'answer (Connection refused). Last lines of journalctl -u kubelet: E1 refused | E2 exit' % URL)
    down = health.failure_message('node-1', URL, 60, 'not_stayed_up', 30.5, 2, 'main process 1 -> 2, restarts 0 -> 1',
                                  20, '/var/log/kubelet.log', [])
    assert down == ('the kubelet on node-1 answered ok on %s but did not stay up for 20s (main process 1 -> 2, '
                    'restarts 0 -> 1; 2 requests in 30.5s): it exits or restarts after starting, for example because '
                    'it refuses its configuration or state files. Last lines of /var/log/kubelet.log: (none)' % URL)
