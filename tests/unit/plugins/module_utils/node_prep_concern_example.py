# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A new node_prep concern, as docs/developer/concerns.md shows it: automatic NUMA balancing turned off."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns as nc
from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_services


def _enabled(settings):
    return settings.get('numa_balancing') is not None


def _files(settings, plan=None):
    return [settings.get('sysctl_path') or '/etc/sysctl.d/90-numaops.conf']


def _done(settings, result):
    return 'sysctl %s changed (kernel.numa_balancing = %s)' % (_files(settings)[0], result.get('value'))


def _plan_entry(result):
    return result.get('value') if result.get('changed') else None


def _plan_labels(plan):
    return ['kernel.numa_balancing ->%s' % plan['numa_balancing']] if plan.get('numa_balancing') else []


def _report(now, changed, get, settings):
    return {'changed': changed, 'value': now.get('value') or ''}


def _summary_line(report, settings, get):
    section = report['numa_balancing']
    return 'numa_balancing: ' + ('kernel.numa_balancing changed to %s' % section['value'] if section['changed']
                                 else 'ok')


def _parts(report):
    return ['numa_balancing'] if (report.get('numa_balancing') or {}).get('changed') else []


NUMA_BALANCING = nc.Concern(
    name='numa_balancing', title='automatic NUMA balancing', module='numaops.colocation.sysctl',
    enabled_by='node_prep_numa_balancing', enabled=_enabled, reads=_files, files=_files, done=_done,
    plan_key='numa_balancing', plan_entry=_plan_entry, plan_labels=_plan_labels, report=_report,
    summary_line=_summary_line, fleet_parts=_parts, drift_parts=_parts,
    service_setting='sysctl_service', after='restart', verify='systemd-sysctl is active after its restart',
    # restarted with systemd after the write, and again after a rollback: node_prep_services.systemd's lines
    service=node_prep_services.systemd('Sysctl | Restart'),
    # its options of node_config, each fed by one role variable (also in meta/argument_specs.yml and
    # defaults/main.yml): the pre-flight plans the concern with them, and the apply writes with the same
    inputs={'value': 'node_prep_numa_balancing', 'path': 'node_prep_sysctl_path', 'backup': nc.Fixed(False)})

# node_prep's registry with the new concern, applied after the others
REGISTRY = nc.REGISTRY + (NUMA_BALANCING,)
