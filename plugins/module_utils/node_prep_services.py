# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The service steps of node_prep's concerns: how the role restarts and verifies a concern's service after the
write, restarts it again once a rollback put its files back, and the lines that name what happened.

A concern with a service declares one ``Service`` (its ``service`` in module_utils/node_prep_concerns.py). The
decision lists the steps of a node (``steps``: the plan's ``services``); roles/node_prep/tasks/service.yml runs one
step, after the write and in the rollback, and ``done_line`` names what it did.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

# How a step is run: the task of roles/node_prep/tasks/service.yml that restarts and verifies the service
# (containerd_nri_verify: restarted, then containerd answering and, after the write, the NRI socket; systemd:
# ansible.builtin.systemd_service restarted, the state it ends in named), or the kubelet's own tasks (kubelet:
# kubelet_service.yml, then kubelet_health.yml).
RUNS = ('containerd_nri_verify', 'systemd', 'kubelet')


class Service(object):
    """What happens to a concern's service (its name: the concern's ``service_setting``).

    - ``runs``: one of RUNS.
    - ``task``: the name of the task that restarts it after the write (what a failure of the run names).
    - ``done(unit, result)``: the apply's line once it was restarted (``result``: that task's result).
    - ``put_back``: the rollback's note once it was restarted again; ``put_back_failed``: its note when that failed
      (``{unit}``: the service; ``{msg}`` stays in it, for the task's message).
    """

    def __init__(self, runs, task, done, put_back, put_back_failed):
        if runs not in RUNS:
            raise ValueError('node_prep service: runs %r is not one of %s' % (runs, ', '.join(RUNS)))
        self.runs = runs
        self.task = task
        self.done = done
        self.put_back = put_back
        self.put_back_failed = put_back_failed

    def __repr__(self):
        return 'Service(%r)' % self.task


def step(concern, settings):
    """The step of ``concern`` on a node whose role settings are ``settings``: plain data for the role."""
    service = concern.service
    unit = settings[concern.service_setting]
    return {'concern': concern.name, 'unit': unit, 'runs': service.runs, 'task': service.task,
            'after': concern.after,
            'put_back': service.put_back.format(unit=unit),
            'put_back_failed': service.put_back_failed.format(unit=unit, msg='{msg}')}


def steps(settings, concerns):
    """Every service step of ``concerns``, in the order the apply takes them: the services restarted after the
    write (registry order), then those started after the reboot (the kubelet)."""
    with_service = [concern for concern in concerns if concern.service is not None]
    return [step(concern, settings) for after in ('restart', 'start') for concern in with_service
            if concern.after == after]


def done_line(step_, result, concerns):
    """The apply's line once the service of ``step_`` was restarted and verified (``result``: the task's)."""
    concern = dict((c.name, c) for c in concerns)[step_['concern']]
    return concern.service.done(step_['unit'], result or {})


def containerd_done(unit, result):
    return 'containerd restarted' + ((', NRI socket %s up' % result.get('nri_socket')) if result.get('nri_ready') else '')


def systemd_done(unit, result):
    state = (result.get('status') or {}).get('ActiveState') or 'state unknown'
    return '%s restarted (%s)' % (unit, state)


def kubelet_done(unit, result):
    return 'kubelet restarted and healthy'


CONTAINERD = Service(
    runs='containerd_nri_verify', task='Containerd | Restart and verify NRI', done=containerd_done,
    put_back='containerd restarted and answering',
    put_back_failed='containerd did NOT come back after the rollback: {msg} — check journalctl -u {unit}')

KUBELET = Service(
    runs='kubelet', task='Kubelet | Start', done=kubelet_done, put_back='kubelet restarted and healthy',
    put_back_failed='the kubelet is NOT healthy after the rollback: {msg} — check journalctl -u {unit}')


def systemd(task):
    """A service restarted with systemd (irqbalance): ``task`` names its restart."""
    return Service(runs='systemd', task=task, done=systemd_done, put_back='{unit} restarted',
                   put_back_failed='{unit} could NOT be restarted after the rollback: {msg} - check journalctl -u {unit}')
