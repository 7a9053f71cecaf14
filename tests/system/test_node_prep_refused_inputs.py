# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/node_prep.yml and audit.yml with values that do not fit, end to end with ansible-playbook on a sandbox
node: each is refused, naming host, variable, value and what is allowed, before any node is locked or changed
(every file byte-identical, no lock left); a blank AWX survey answer is not an answer."""
from __future__ import annotations

import os

import pytest

from ansible_collections.numaops.colocation.tests.system import test_node_prep_fleet as fleet

NODE = fleet.NODE
top = fleet.top_fixture  # noqa: F811  (the same fixture)


def _refused(top, extra, *fragments, host_vars=None):
    tree = fleet._sandbox(top, 'refused-%d' % len(list(top.iterdir())))
    before = fleet._files(tree)
    inventory = fleet._inventory(top, [tree], {NODE: host_vars} if host_vars else None)
    rc, out = fleet._playbook(inventory, 'node_prep.yml', extra=extra, report_dir=str(top / 'r'))
    assert rc != 0, out[-3000:]
    for fragment in fragments:
        assert fragment in out, out[-4000:]
    assert fleet._files(tree) == before
    assert not os.path.exists(str(tree / fleet.LOCK)), 'no lock is left behind'
    return out


def test_maybe_is_not_a_boolean(top):
    # it used to be read as false, and turned NRI off
    _refused(top, {'node_prep_nri_enabled': 'maybe'},
             "host %s: node_prep_nri_enabled='maybe' is not a boolean: give true or false." % NODE)


def test_a_misspelt_boolean_of_the_inventory_is_refused(top):
    _refused(top, None, "host %s: node_prep_drain='ture' is not a boolean" % NODE, host_vars={'node_prep_drain': 'ture'})


def test_a_bare_string_is_not_a_list_of_kernel_arguments(top):
    # it used to be written to grub one character per argument
    _refused(top, {'node_prep_kernel_args': 'nosmt'},
             "host %s: node_prep_kernel_args='nosmt' is not a list (a string): give a list, such as ['nosmt']." % NODE)


def test_max_unavailable_zero_is_refused(top):
    # it used to put the whole fleet in one batch
    _refused(top, {'node_prep_max_unavailable': 0},
             'node_prep_max_unavailable=0 is not a batch size: give a whole number from 1', 'Nothing was locked or changed')


@pytest.mark.parametrize('value', ['half', 150])
def test_an_invalid_max_fail_percentage_fails_before_any_lock(top, value):
    # it used to stop the run between its plays, after every node that changes had been locked
    _refused(top, {'node_prep_max_fail_percentage': value}, 'node_prep_max_fail_percentage=%r' % value,
             'Nothing was locked or changed')


def test_survey_answers_of_only_spaces_are_not_answers(top):
    tree = fleet._sandbox(top, 'spaces')
    inventory = fleet._inventory(top, [tree])
    blank = {'node_prep_survey_max_fail_percentage': '   ', 'node_prep_survey_max_unavailable': ' ',
             'node_prep_survey_drain': '  '}
    rc, out = fleet._playbook(inventory, 'node_prep.yml', extra=blank, report_dir=str(top / 'r'))
    assert rc == 0, out[-3000:]
    assert fleet._recap(out)['failed'] == 0
    assert not os.path.exists(str(tree / fleet.LOCK))
    # an answer that is not one fails before any lock
    rc, out = fleet._playbook(inventory, 'node_prep.yml', extra={'node_prep_survey_max_unavailable': 'all'},
                              report_dir=str(top / 'r'))
    assert rc != 0 and "node_prep_survey_max_unavailable='all' is not a batch size" in out, out[-3000:]


def test_audit_refuses_a_misspelt_fail_on_drift(top):
    # it used to be read as false: drift, and exit 0
    tree = fleet._sandbox(top, 'audit')
    inventory = fleet._inventory(top, [tree])
    rc, out = fleet._playbook(inventory, 'audit.yml', '--check', '-e', 'colocation_audit_fail_on_drift=flase',
                              report_dir=str(top / 'r'))
    assert rc != 0
    assert "colocation_audit_fail_on_drift='flase' is not a boolean: give true or false. Nothing was run." in out, \
        out[-3000:]


def test_a_missing_numa_textfile_directory_fails_the_preflight_not_the_node_after_its_changes(top, tmp_path):
    # it used to fail the host after its kubelet and containerd files were written, without rollback
    missing = str(tmp_path / 'no-such-dir')
    _refused(top, {'node_prep_numa_textfile_dir': missing},
             'node_prep: %s: node_prep_numa_textfile_dir=%s cannot take the output written there after the changes '
             '(%s: no such directory). Create the directory, or leave node_prep_numa_textfile_dir empty.'
             % (NODE, missing, missing))
