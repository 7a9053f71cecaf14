# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""numaops.colocation.perf_profile as a module: check mode predicts the real run, a second run changes nothing, bad
input and failures leave every file byte-identical, links and modes stay."""
from __future__ import annotations

import os
import shutil
import stat

import pytest

from ansible_collections.numaops.colocation.plugins.modules import perf_profile
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.perf_trees import root
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

XEON = root('xeon8358-2s')
TX2 = root('thunderx2-2s')
PROFILE = {'cpu': {'reserved': 'auto'}, 'numa': {'topology_policy': 'single-numa-node'},
           'hugepages': {'default_size': '1G', 'pages': [{'size': '1G', 'count': 4, 'node': 0},
                                                         {'size': '2M', 'count': 256, 'node': 1}]}}
IRQ = '# my comment, kept\nENABLED="1"\n#IRQBALANCE_BANNED_CPULIST=\nONESHOT="0"\n'


@pytest.fixture
def node(tmp_path):
    etc = tmp_path / 'etc'
    (etc / 'default').mkdir(parents=True)
    (etc / 'systemd' / 'system').mkdir(parents=True)
    irq = etc / 'default' / 'irqbalance'
    irq.write_text(IRQ)
    irq.chmod(0o600)
    return {'irqbalance_path': str(irq), 'unit_path': str(etc / 'systemd' / 'system' / 'numaops-hugepages.service')}


def snapshot(base):
    found = {}
    for directory, _dirs, files in os.walk(base):
        for name in files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                found[path] = ('link', os.readlink(path))
            else:
                with open(path, 'rb') as handle:
                    found[path] = (handle.read(), stat.S_IMODE(os.lstat(path).st_mode))
    return found


def run(capsys, node, profile=None, topology=XEON, **kwargs):
    return run_module(perf_profile, capsys, profile=profile or PROFILE, topology_root=topology,
                      **dict(node, **kwargs))


def test_check_mode_predicts_the_run_and_the_second_run_changes_nothing(capsys, node, tmp_path):
    before = snapshot(str(tmp_path))
    checked = run(capsys, node, check_mode=True, diff=True)
    assert snapshot(str(tmp_path)) == before
    done = run(capsys, node, diff=True)
    assert checked['changed'] is True and done['changed'] is True
    assert checked['diff'] == done['diff']
    for key in ('kubelet', 'kernel_args', 'irqbalance', 'hugepages_unit', 'hugepages_drift', 'reserved_cpus'):
        assert checked[key] == done[key]
    with open(node['irqbalance_path']) as handle:
        assert handle.read() == IRQ.replace('#IRQBALANCE_BANNED_CPULIST=\n', '#IRQBALANCE_BANNED_CPULIST=\n'
                                            'IRQBALANCE_BANNED_CPULIST=1-31,33-63,65-95,97-127\n')
    assert stat.S_IMODE(os.stat(node['irqbalance_path']).st_mode) == 0o600
    with open(node['unit_path']) as handle:
        assert 'Before=kubelet.service' in handle.read()
    link = os.path.join(os.path.dirname(node['unit_path']), 'multi-user.target.wants', 'numaops-hugepages.service')
    assert os.readlink(link) == node['unit_path']
    assert done['hugepages_unit'] == {'path': node['unit_path'], 'link': link, 'changed': True}
    assert done['hugepages_drift'] == [{'node': 0, 'size': '1G', 'wanted': 4, 'allocated': 8},
                                       {'node': 1, 'size': '2M', 'wanted': 256, 'allocated': 1024}]
    assert done['kubelet']['reserved_system_cpus'] == '0,32,64,96'
    after = snapshot(str(tmp_path))
    again = run(capsys, node, diff=True)
    checked_again = run(capsys, node, check_mode=True)
    assert again['changed'] is False and checked_again['changed'] is False and again['diff'] == []
    assert snapshot(str(tmp_path)) == after


@pytest.mark.parametrize('profile', [
    {'cpu': {'reserved': '0', 'isolated': '1-127'}},
    {'hugepages': {'pages': [{'size': '1G', 'count': 500, 'node': 1}]}},
    {'cpu': {'reserved': 'auto'}, 'realtime': True},
])
def test_bad_profile_leaves_every_file_byte_identical(capsys, node, tmp_path, profile):
    before = snapshot(str(tmp_path))
    result = run(capsys, node, profile=profile)
    assert result['failed'] and result['msg'].startswith('perf_profile: profile.')
    assert result['msg'].endswith('Nothing was changed.')
    assert snapshot(str(tmp_path)) == before


def test_hex_mask_refused_before_the_unit_is_written(capsys, node, tmp_path):
    with open(node['irqbalance_path'], 'a') as handle:
        handle.write('IRQBALANCE_BANNED_CPUS=0000000f\n')
    before = snapshot(str(tmp_path))
    result = run(capsys, node)
    assert result['failed'] and 'IRQBALANCE_BANNED_CPUS=0000000f is set' in result['msg']
    assert snapshot(str(tmp_path)) == before


def test_a_failing_write_puts_back_what_the_run_changed(capsys, node, tmp_path):
    # the unit's directory is missing: irqbalance is written first, then put back
    unit = str(tmp_path / 'missing' / 'numaops-hugepages.service')
    before = snapshot(str(tmp_path))
    result = run(capsys, dict(node, unit_path=unit))
    assert result['failed']
    assert 'its directory %s does not exist' % os.path.dirname(unit) in result['msg']
    assert 'put back: %s' % node['irqbalance_path'] in result['msg']
    assert snapshot(str(tmp_path)) == before


def test_links_stay_links(capsys, node, tmp_path):
    real = tmp_path / 'real-irqbalance'
    real.write_text(IRQ)
    os.unlink(node['irqbalance_path'])
    os.symlink(str(real), node['irqbalance_path'])
    result = run(capsys, node)
    assert result['changed'] and os.path.islink(node['irqbalance_path'])
    assert 'IRQBALANCE_BANNED_CPULIST=1-31' in real.read_text()


def test_a_foreign_enable_link_is_refused(capsys, node, tmp_path):
    wants = os.path.join(os.path.dirname(node['unit_path']), 'multi-user.target.wants')
    os.makedirs(wants)
    os.symlink('/lib/systemd/system/other.service', os.path.join(wants, 'numaops-hugepages.service'))
    before = snapshot(str(tmp_path))
    result = run(capsys, node)
    assert result['failed'] and 'is there and is not a link to %s' % node['unit_path'] in result['msg']
    assert snapshot(str(tmp_path)) == before


def test_huge_pages_only_touches_no_irqbalance_and_no_kernel(capsys, node, tmp_path):
    profile = {'hugepages': {'pages': [{'size': '2M', 'count': 1024, 'node': 0},
                                       {'size': '2M', 'count': 256, 'node': 1}]}}
    result = run(capsys, node, profile=profile)
    assert result['changed'] and result['kernel_args'] == [] and result['kubelet'] == {}
    assert result['irqbalance'] == {'path': None, 'banned_cpus': None, 'changed': False}
    with open(node['irqbalance_path']) as handle:
        assert handle.read() == IRQ


def test_kernel_args_replacing_names_the_running_values(capsys, node):
    # the ThunderX2 booted with isolcpus=1-27,29-55: the profile's isolcpus adds managed_irq
    result = run(capsys, node, profile={'cpu': {'reserved': 'auto'}}, topology=TX2, check_mode=True)
    assert result['isolated_cpus'] == '1-27,29-55'
    assert result['kernel_args_replacing'] == ['isolcpus=1-27,29-55']


def test_no_irqbalance_file_is_a_note(capsys, tmp_path, monkeypatch):
    # the default files are looked for below topology_root
    monkeypatch.setattr(perf_profile.irqbalance, 'DEFAULT_PATHS', ('/etc/default/irqb-a', '/etc/sysconfig/irqb-b'))
    result = run_module(perf_profile, capsys, profile={'cpu': {'reserved': 'auto'}}, topology_root=XEON)
    assert result['changed'] is False
    assert result['notes'] == ['irqbalance left alone: neither %s/etc/default/irqb-a nor %s/etc/sysconfig/irqb-b '
                               'exists (irqbalance not installed)' % (XEON, XEON)]


def test_openeuler_sysconfig_file_is_found_below_the_topology_root(capsys, tmp_path):
    tree = tmp_path / 'tree'
    shutil.copytree(XEON, str(tree), symlinks=True)
    (tree / 'etc' / 'sysconfig').mkdir(parents=True)
    (tree / 'etc' / 'sysconfig' / 'irqbalance').write_text(IRQ)
    result = run_module(perf_profile, capsys, profile={'cpu': {'reserved': 'auto'}}, topology_root=str(tree),
                        check_mode=True)
    assert result['irqbalance']['path'] == str(tree / 'etc' / 'sysconfig' / 'irqbalance')
    assert result['irqbalance']['changed'] is True and result['reboot_required'] is False


def test_write_plans_and_writes_only_the_files_it_names(capsys, node, tmp_path):
    before = snapshot(str(tmp_path))
    derived = run(capsys, node, write=[])
    assert derived['changed'] is False and snapshot(str(tmp_path)) == before
    assert derived['irqbalance']['path'] is None and derived['hugepages_unit']['path'] is None
    assert derived['kernel_args'] and derived['reboot_required'] is False
    irq = run(capsys, node, write=['irqbalance'])
    assert irq['irqbalance']['changed'] is True and irq['hugepages_unit']['path'] is None
    assert not os.path.exists(node['unit_path']) and irq['reboot_required'] is False
    unit = run(capsys, node, write=['hugepages_unit'])
    assert unit['hugepages_unit']['changed'] is True and unit['irqbalance']['path'] is None
    assert unit['reboot_required'] is True and os.path.islink(unit['hugepages_unit']['link'])
    assert run(capsys, node)['changed'] is False


def test_a_unit_of_an_earlier_profile_is_left_and_named(capsys, node):
    run(capsys, node)
    with open(node['unit_path'], 'rb') as handle:
        unit = handle.read()
    result = run(capsys, node, profile={'cpu': {'reserved': 'auto'}})
    assert result['changed'] is False and result['hugepages_unit']['path'] is None
    assert result['notes'] == ['%s (of an earlier profile) left in place: it still sets huge pages at boot; the '
                               'profile names no NUMA node for its pages. Disable and remove it to stop that.'
                               % node['unit_path']]
    with open(node['unit_path'], 'rb') as handle:
        assert handle.read() == unit


def test_running_huge_page_pairs_are_merged_and_a_count_that_would_change_size_is_refused(capsys, node, tmp_path):
    # a copy of the ThunderX2 tree, booted with a 1G and a 2M pair: kernel_cmdline replaces the 1G count in place
    # and keeps the 2M pair, so the profile is taken
    topology = str(tmp_path / 'tx2')
    shutil.copytree(TX2, topology)
    with open(os.path.join(topology, 'proc/cmdline'), 'w') as handle:
        handle.write('ro hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=64 quiet\n')
    result = run(capsys, node, profile={'cpu': {'reserved': 'auto'}, 'hugepages': {'pages': [
        {'size': '1G', 'count': 1, 'node': 1}]}}, topology=topology)
    assert not result.get('failed'), result.get('msg')
    assert result['kernel_args'][-2:] == ['hugepagesz=1G', 'hugepages=1:1']
    assert result['kernel_args_replacing'] == ['hugepagesz=1G', 'hugepages=2']
    # booted with a count of the default size: with default_hugepagesz=1G those pages would become 1G pages
    with open(os.path.join(topology, 'proc/cmdline'), 'w') as handle:
        handle.write('ro hugepages=16 quiet\n')
    before = snapshot(str(tmp_path / 'etc'))
    result = run(capsys, node, profile={'cpu': {'reserved': 'auto'}, 'hugepages': {'default_size': '1G', 'pages': [
        {'size': '1G', 'count': 1, 'node': 1}]}}, topology=topology)
    assert result['failed']
    assert ('the node booted with hugepages=16, and kernel_cmdline would refuse the profile\'s default_hugepagesz=1G '
            'hugepagesz=1G hugepages=1:1: the node has \'hugepages=16\': a hugepages= of the default size') in \
        result['msg']
    assert snapshot(str(tmp_path / 'etc')) == before
