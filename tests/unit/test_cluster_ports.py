# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/cluster's ports: taken below the kernel's ephemeral range, so an outgoing connection elsewhere on the
machine cannot take one between the choice and the control-plane component's own bind."""
from __future__ import annotations

import socket

from ansible_collections.numaops.colocation.tests.cluster import controlplane


def test_ports_are_below_the_ephemeral_range_distinct_and_free():
    low = controlplane._ephemeral_low()
    ports = [controlplane.free_port() for _index in range(20)]
    assert len(set(ports)) == 20
    for port in ports:
        assert 10000 <= port < low
        with socket.socket() as sock:
            sock.bind((controlplane.HOST, port))


def test_a_port_that_is_listened_on_is_not_handed_out(monkeypatch):
    with socket.socket() as taken:
        taken.bind((controlplane.HOST, 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        # every random choice lands on the taken port, then on a free one
        choices = iter([port, port, port])
        monkeypatch.setattr(controlplane, '_ephemeral_low', lambda: 65000)
        monkeypatch.setattr(controlplane.random.SystemRandom, 'randint',
                            lambda self, a, b: next(choices, 12345 if port != 12345 else 12346))
        got = controlplane.free_port()
        assert got != port


def test_ephemeral_low_falls_back(tmp_path):
    assert controlplane._ephemeral_low(str(tmp_path / 'absent')) == 32768
    bad = tmp_path / 'range'
    bad.write_text('junk\n')
    assert controlplane._ephemeral_low(str(bad)) == 32768
    bad.write_text('40000\t60999\n')
    assert controlplane._ephemeral_low(str(bad)) == 40000


def test_no_room_below_the_range_falls_back_to_the_kernel(monkeypatch):
    monkeypatch.setattr(controlplane, '_ephemeral_low', lambda: 10500)
    assert controlplane.free_port() > 0
