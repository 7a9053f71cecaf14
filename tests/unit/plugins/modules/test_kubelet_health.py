# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubelet_health against a real HTTP server on 127.0.0.1 standing in for the kubelet's /healthz (answering ok,
an error, or ok only from its n-th request), and a stand-in ``systemctl`` on PATH for the unit's main process and
restart count."""
from __future__ import annotations

import http.server
import json
import os
import stat
import threading

import pytest

from ansible_collections.numaops.colocation.plugins.modules import kubelet_health

from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'


class Healthz(http.server.BaseHTTPRequestHandler):
    # set per server: (status, body) of each request in turn, the last one again and again
    replies = [(200, b'ok')]

    def do_GET(self):  # noqa: N802
        server = self.server
        server.requests.append(self.path)
        status, body = server.replies[min(len(server.requests), len(server.replies)) - 1]
        self.send_response(status)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args):
        pass


@pytest.fixture
def kubelet():
    server = http.server.HTTPServer(('127.0.0.1', 0), Healthz)
    server.requests = []
    server.replies = [(200, b'ok')]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.url = 'http://127.0.0.1:%d/healthz' % server.server_address[1]
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def log_file(tmp_path):
    path = tmp_path / 'kubelet.log'
    path.write_text(''.join('line %d\n' % n for n in range(1, 41)))
    return str(path)


@pytest.fixture
def systemctl(tmp_path, monkeypatch):
    """A ``systemctl`` whose ``show`` answers the lines of the file ``states``, one per call, the last one again; a
    line ``-`` answers nothing (and exit status 0), as systemd busy can."""
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    states = tmp_path / 'states'
    calls = tmp_path / 'calls'
    script = bin_dir / 'systemctl'
    script.write_text('#!/bin/sh\necho x >> %s\nn=$(wc -l < %s)\nline=$(sed -n "${n}p" %s)\n'
                      '[ -n "$line" ] || line=$(tail -n 1 %s)\n[ "$line" = - ] && exit 0\n'
                      'printf "MainPID=%%s\\nNRestarts=%%s\\n" $line\n'
                      % (calls, calls, states, states))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv('PATH', '%s%s%s' % (bin_dir, os.pathsep, os.environ.get('PATH', '')))

    def set_states(*lines):
        states.write_text(''.join('-\n' if line is None else '%d %d\n' % line for line in lines))
    return set_states


def test_ok_at_once(kubelet, capsys):
    res = run_module(kubelet_health, capsys, url=kubelet.url, settle=0, host_label='node-1')
    assert res.get('failed') is not True, res
    assert res['changed'] is False and res['checked'] and res['healthy'] and res['phase'] == 'healthy'
    assert res['attempts'] == 1 and res['last_answer'] == 'HTTP 200: ok'
    assert res['msg'].startswith('the kubelet on node-1 answers ok on %s (1 request in ' % kubelet.url)


def test_ok_from_the_third_request(kubelet, capsys):
    kubelet.replies = [(500, b'[-]syncloop failed'), (500, b'[-]syncloop failed'), (200, b'ok')]
    res = run_module(kubelet_health, capsys, url=kubelet.url, settle=0, interval=0.1, timeout=30)
    assert res['healthy'] and res['attempts'] == 3 and len(kubelet.requests) == 3


def test_never_ok_fails_with_the_url_the_attempts_the_last_answer_and_the_log(kubelet, log_file, capsys):
    kubelet.replies = [(500, b'[-]ping failed')]
    res = run_module(kubelet_health, capsys, url=kubelet.url, timeout=1, interval=0.2, log_file=log_file,
                     log_lines=3, host_label='node-1')
    assert res['failed'] and res['phase'] == 'never_ok' and res['healthy'] is False
    assert res['attempts'] == len(kubelet.requests) > 1
    assert res['msg'].startswith('the kubelet on node-1 did not answer ok on %s within 1s: %d attempts in '
                                 % (kubelet.url, res['attempts']))
    assert 'the last: HTTP 500: [-]ping failed.' in res['msg']
    assert res['msg'].endswith('Last lines of %s: line 38 | line 39 | line 40' % log_file)
    assert res['log_lines'] == ['line 38', 'line 39', 'line 40']


def test_nothing_listening(log_file, capsys):
    res = run_module(kubelet_health, capsys, url='http://127.0.0.1:1/healthz', timeout=1, interval=0.3,
                     log_file=log_file)
    assert res['failed'] and res['phase'] == 'never_ok'
    assert res['last_answer'].startswith('no answer (') and 'refused' in res['last_answer'].lower()


def test_the_url_from_the_main_file_and_a_dropin(kubelet, tmp_path, capsys):
    main = tmp_path / 'config.yaml'
    main.write_text(HEAD + 'healthzBindAddress: 0.0.0.0\nhealthzPort: 1\n')
    conf = tmp_path / 'conf.d'
    conf.mkdir()
    (conf / '50-healthz.conf').write_text(HEAD + 'healthzPort: %d\n' % kubelet.server_address[1])
    res = run_module(kubelet_health, capsys, config_path=str(main), config_dir=str(conf), settle=0)
    assert res.get('failed') is not True, res
    assert res['url'] == kubelet.url and res['healthy']
    assert res['url_source'] == ('healthzPort %d from %s, healthzBindAddress 0.0.0.0 from %s'
                                 % (kubelet.server_address[1], conf / '50-healthz.conf', main))


def test_port_zero_is_not_checked_and_says_why(tmp_path, capsys):
    main = tmp_path / 'config.yaml'
    main.write_text(HEAD + 'healthzPort: 0\n')
    res = run_module(kubelet_health, capsys, config_path=str(main), host_label='node-1')
    assert res.get('failed') is not True, res
    assert res['checked'] is False and res['healthy'] is None and res['url'] is None
    assert res['phase'] == 'not_checked' and res['attempts'] == 0
    said = ('node-1: healthzPort is 0 in %s: the kubelet serves no /healthz, so its health cannot be checked on the '
            'node.' % main)
    assert said in json.dumps(res['warnings'])  # ansible-core 2.19 returns structured warnings


def test_a_configuration_that_cannot_be_read_fails_naming_it(tmp_path, capsys):
    res = run_module(kubelet_health, capsys, config_path=str(tmp_path / 'none.yaml'), host_label='node-1')
    assert res['failed'] and res['attempts'] == 0
    assert res['msg'] == ('node-1: the kubelet configuration %s cannot be read (No such file or directory), so its '
                          'healthz address and port are unknown. Give the URL with the url option, or point '
                          'config_path (and config_dir) at the files the kubelet reads.' % (tmp_path / 'none.yaml'))


def test_bad_input_fails_before_asking(kubelet, capsys):
    res = run_module(kubelet_health, capsys, url=kubelet.url, timeout=0, interval=0)
    assert res['failed'] and kubelet.requests == []
    assert res['msg'] == 'kubelet_health: timeout=0.0 must be at least 1; interval=0.0 must be more than 0. Nothing was asked.'


def test_check_mode_asks_too(kubelet, capsys):
    res = run_module(kubelet_health, capsys, check_mode=True, url=kubelet.url, settle=0)
    assert res['healthy'] and res['changed'] is False and len(kubelet.requests) == 1


def test_settle_the_same_process_then_ok_again(kubelet, systemctl, capsys):
    systemctl((1804, 0))
    res = run_module(kubelet_health, capsys, url=kubelet.url, settle=0.4, interval=0.1)
    assert res.get('failed') is not True, res
    assert res['healthy'] and res['main_pid'] == [1804, 1804] and res['restarts'] == [0, 0]
    assert res['attempts'] == 2 and len(kubelet.requests) == 2
    assert 'it stayed up for 0.4s: main process 1804 and restarts 0 unchanged' in res['msg']


def test_settle_a_restart_fails_and_says_what_was_seen(kubelet, systemctl, log_file, capsys):
    systemctl((1804, 0), (1912, 1))
    res = run_module(kubelet_health, capsys, url=kubelet.url, settle=5, interval=0.1, log_file=log_file,
                     host_label='node-1')
    assert res['failed'] and res['phase'] == 'not_stayed_up' and res['healthy'] is False
    assert res['main_pid'] == [1804, 1912] and res['restarts'] == [0, 1]
    assert res['msg'].startswith('the kubelet on node-1 answered ok on %s but did not stay up for 5s (main process '
                                 '1804 -> 1912, restarts 0 -> 1; 1 requests in ' % kubelet.url)
    assert 'Last lines of %s: ' % log_file in res['msg']


def test_settle_reads_an_empty_answer_of_systemctl_again(kubelet, systemctl, capsys):
    systemctl((1804, 0), None, None, (1804, 0))
    res = run_module(kubelet_health, capsys, url=kubelet.url, settle=0.2, interval=0.1)
    assert res.get('failed') is not True, res
    assert res['healthy'] and res['main_pid'] == [1804, 1804]


def test_settle_three_empty_answers_fail_saying_the_unit_cannot_be_watched(kubelet, systemctl, capsys):
    systemctl(None)
    res = run_module(kubelet_health, capsys, url=kubelet.url, settle=5, interval=0.1, host_label='node-1')
    assert res['failed'] and res['phase'] == 'not_checked' and res['healthy'] is None
    assert ("whether it stays up cannot be told: systemctl show answered '', not MainPID= and NRestarts= (3 reads, "
            "1s apart)" in res['msg'])
