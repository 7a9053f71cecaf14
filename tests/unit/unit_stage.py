# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which tests under tests/unit run in the plain pytest stages of scripts/test.sh, never under ``ansible-test units``.

scripts/test.sh runs every test once: ``ansible-test units`` (the ``units`` stage) runs the tests of tests/unit that
need nothing but the collection and tests/unit/requirements.txt; the ``unit`` stage runs, with plain pytest from the
repository, tests/system and only the tests of tests/unit that ``ansible-test units`` does not run, selected with
``-m unit_stage``. Those are the tests on the real control plane of tests/cluster (every test using the
``k8s_cluster`` fixture, see ``CLUSTER_FIXTURES``), the modules that declare themselves with :func:`only_here` (whole
playbook runs, tests sharing one playbook run, the AWX job, tests needing tools of tests/requirements-dev.txt or the
git history) and the tests marked with :func:`this_test`. Under ``ansible-test units`` exactly these are skipped,
with a reason naming the stage that runs them.

A test that imports a module declared with :func:`only_here` belongs to the unit stage too (declare its module or
mark it with :func:`this_test`): under ansible-test units the import skips it, and the unit stage would not select it.
"""
from __future__ import annotations

import os

import pytest

MARK = 'unit_stage'
MARK_HELP = MARK + ': run by the unit stage of scripts/test.sh (plain pytest), skipped under ansible-test units'
# the fixtures that start (or share) the real control plane of tests/cluster
CLUSTER_FIXTURES = frozenset(['k8s_cluster'])
# why a module whose tests share one ansible-playbook run (a module-scoped fixture) belongs to the unit stage
SHARED_PLAYBOOK_RUN = ('its tests share one ansible-playbook run, which ansible-test units would repeat for every test '
                       '(it runs each test in a fork of its own, where a module-scoped fixture does not last)')
# ansible-test units sets this in the environment of the tests it runs
UNDER_ANSIBLE_TEST_UNITS = bool(os.environ.get('ANSIBLE_CONTROLLER_MIN_PYTHON_VERSION'))


def reason(what, stage='unit'):
    return '%s: run by the %s stage (scripts/test.sh %s), not under ansible-test units' % (what, stage, stage)


def only_here(what, stage='unit'):
    """At the top of a test module that ansible-test units must not run: under it, skip the module (before its
    imports of tools ansible-test's environment does not have); otherwise the mark for the module's ``pytestmark``."""
    if UNDER_ANSIBLE_TEST_UNITS:
        pytest.skip(reason(what, stage), allow_module_level=True)
    return getattr(pytest.mark, MARK)


def this_test(what):
    """The mark for one test of a module that ansible-test units otherwise runs (e.g. one that imports a module of
    the unit stage): under ansible-test units the test is skipped at collection, naming ``what``."""
    return getattr(pytest.mark, MARK)(what)


def needs_control_plane(item):
    return bool(CLUSTER_FIXTURES.intersection(getattr(item, 'fixturenames', ())))


def mark_items(items):
    """Mark the collected tests of the unit stage; under ansible-test units, skip them."""
    for item in items:
        if needs_control_plane(item):
            item.add_marker(getattr(pytest.mark, MARK))
        marker = item.get_closest_marker(MARK)
        if UNDER_ANSIBLE_TEST_UNITS and marker:
            what = 'a test on the real control plane of tests/cluster' if needs_control_plane(item) else (
                marker.args[0] if marker.args else 'marked ' + MARK)
            item.add_marker(pytest.mark.skip(reason=reason(what)))
