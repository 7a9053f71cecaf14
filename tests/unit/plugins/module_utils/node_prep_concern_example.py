# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A new node_prep concern, as docs/developer/concerns.md shows it: irqbalance kept off the isolated CPUs."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns as nc


def _enabled(settings):
    return settings.get('irqbalance_banned_cpus') is not None


def _files(settings, plan=None):
    return [settings.get('irqbalance_defaults_path') or '/etc/default/irqbalance']


def _done(settings, result):
    return 'irqbalance %s changed (banned CPUs %s)' % (_files(settings)[0], result.get('banned_cpus') or '')


def _plan_entry(result):
    return result.get('banned_cpus') if result.get('changed') else None


def _plan_labels(plan):
    return ['irqbalance banned CPUs ->%s' % plan['irqbalance']] if plan.get('irqbalance') else []


def _report(now, changed, get, settings):
    return {'changed': changed, 'banned_cpus': now.get('banned_cpus') or ''}


def _summary_line(report, settings, get):
    section = report['irqbalance']
    return 'irqbalance: ' + ('banned CPUs changed to %s' % section['banned_cpus'] if section['changed'] else 'ok')


def _parts(report):
    return ['irqbalance'] if (report.get('irqbalance') or {}).get('changed') else []


IRQBALANCE = nc.Concern(
    name='irqbalance', title='irqbalance banned CPUs', module='numaops.colocation.irqbalance',
    enabled_by='node_prep_irqbalance_banned_cpus', enabled=_enabled, reads=_files, files=_files, done=_done,
    plan_key='irqbalance', plan_entry=_plan_entry, plan_labels=_plan_labels, report=_report,
    summary_line=_summary_line, fleet_parts=_parts, drift_parts=_parts,
    service_setting='irqbalance_service', after='restart', verify='the service is active after its restart')

# node_prep's registry with the new concern, applied after the three of today
REGISTRY = nc.REGISTRY + (IRQBALANCE,)
