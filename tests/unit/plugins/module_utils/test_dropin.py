# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's drop-in directory: which files it reads, in which order, the merged configuration, and the
values a drop-in takes away from the main file."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import dropin

D = '/etc/kubernetes/kubelet.conf.d'
HEAD = {'apiVersion': kubelet.API_VERSION, 'kind': kubelet.KIND}


def doc(**keys):
    return dict(HEAD, **keys)


# ----------------------------------------------------------------------------------------------
# Which files, in which order (filepath.WalkDir, *.conf only)

def test_only_conf_files_in_name_order_subdirectories_at_their_place():
    entries = [(D + '/20-b.conf', False), (D + '/10-a.conf', False), (D + '/a', True), (D + '/a/99-z.conf', False),
               (D + '/a.conf', False), (D + '/05.yaml', False), (D + '/x.conf~', False), (D + '/X.CONF', False),
               (D + '/.conf', False), (D + '/sub.conf', True), (D + '/sub.conf/1.conf', False)]
    files, skipped = dropin.dropin_files(D, entries)
    assert files == [D + '/.conf', D + '/10-a.conf', D + '/20-b.conf', D + '/a/99-z.conf', D + '/a.conf',
                     D + '/sub.conf/1.conf']
    assert skipped == [D + '/05.yaml', D + '/X.CONF', D + '/x.conf~']


def test_trailing_slash_and_entries_outside_are_ignored():
    files, skipped = dropin.dropin_files(D + '/', [(D + '/1.conf', False), ('/elsewhere/2.conf', False), (D, True)])
    assert files == [D + '/1.conf'] and skipped == []


def test_go_ext():
    assert dropin.go_ext('a.b.conf') == '.conf' and dropin.go_ext('conf') == '' and dropin.go_ext('.conf') == '.conf'


# ----------------------------------------------------------------------------------------------
# The merge: RFC 7386 over the main configuration (1.32+), decoded over it (1.31)

MAIN = doc(cpuManagerPolicy='static', systemReserved={'cpu': '1', 'memory': '1Gi'}, clusterDNS=['10.0.0.10'],
           featureGates={'A': True})


def test_maps_merged_scalars_and_lists_replaced():
    eff = dropin.effective_config(MAIN, [
        ('/d/10.conf', doc(cpuManagerPolicy='none', systemReserved={'memory': '2Gi'}, clusterDNS=['10.0.0.53'])),
        ('/d/20.conf', doc(featureGates={'B': False}))])
    assert eff['cpuManagerPolicy'] == 'none'
    assert eff['systemReserved'] == {'cpu': '1', 'memory': '2Gi'}
    assert eff['clusterDNS'] == ['10.0.0.53']
    assert eff['featureGates'] == {'A': True, 'B': False}
    assert MAIN['cpuManagerPolicy'] == 'static'  # the main configuration is not changed


def test_later_file_wins():
    eff = dropin.effective_config(MAIN, [('/d/10.conf', doc(cpuManagerPolicy='none')),
                                         ('/d/20.conf', doc(cpuManagerPolicy='static'))])
    assert eff['cpuManagerPolicy'] == 'static'


def test_null_removes_since_132_but_not_over_the_main_file_in_131():
    dropins = [('/d/10.conf', doc(cpuManagerPolicy=None, systemReserved={'cpu': None}))]
    eff = dropin.effective_config(MAIN, dropins, 37)
    assert 'cpuManagerPolicy' not in eff and eff['systemReserved'] == {'memory': '1Gi'}
    assert dropin.effective_config(MAIN, dropins) == eff  # unknown release: the current rules
    old = dropin.effective_config(MAIN, dropins, 31)
    assert old['cpuManagerPolicy'] == 'static' and old['systemReserved'] == {'cpu': '1', 'memory': '1Gi'}


def test_131_null_cancels_an_earlier_drop_in_only():
    dropins = [('/d/10.conf', doc(systemReserved={'pid': '100'})), ('/d/20.conf', doc(systemReserved={'pid': None}))]
    assert dropin.effective_config(MAIN, dropins, 31)['systemReserved'] == {'cpu': '1', 'memory': '1Gi'}


def test_no_drop_ins_is_the_main_configuration_itself():
    assert dropin.effective_config(MAIN, []) is MAIN


def test_eviction_entries_merge_into_the_kubelet_defaults_when_the_main_file_sets_none():
    eff = dropin.effective_config(doc(), [('/d/1.conf', doc(evictionHard={'nodefs.available': '5%'}))])
    assert eff['evictionHard']['memory.available'] == '100Mi' and eff['evictionHard']['nodefs.available'] == '5%'
    main = doc(evictionHard={'nodefs.available': '7%'})
    eff = dropin.effective_config(main, [('/d/1.conf', doc(evictionHard={'imagefs.available': '20%'}))])
    assert eff['evictionHard'] == {'nodefs.available': '7%', 'imagefs.available': '20%'}
    main = doc(evictionHard={'nodefs.available': '7%'}, mergeDefaultEvictionSettings=True)
    eff = dropin.effective_config(main, [('/d/1.conf', doc(evictionHard={'imagefs.available': '20%'}))])
    assert eff['evictionHard']['memory.available'] == '100Mi'
    eff = dropin.effective_config(doc(), [('/d/1.conf', doc(evictionHard=None))])
    assert eff['evictionHard'] == {}
    assert dropin.effective_config(doc(), [('/d/1.conf', doc(evictionHard={'x': '1'}))], 31)['evictionHard'][
        'memory.available'] == '100Mi'


def test_merge_default_eviction_settings_acts_on_the_main_file_only():
    main = doc(evictionHard={'nodefs.available': '7%'})
    eff = dropin.effective_config(main, [('/d/1.conf', doc(mergeDefaultEvictionSettings=True))], 37)
    assert eff['evictionHard'] == {'nodefs.available': '7%'} and eff['mergeDefaultEvictionSettings'] is False
    errors, warnings = [], []
    assert kubelet.eviction_memory(eff, warnings, errors, 37) == 0
    main = doc(evictionHard={'nodefs.available': '7%'}, mergeDefaultEvictionSettings=True)
    eff = dropin.effective_config(main, [('/d/1.conf', doc(maxPods=5, mergeDefaultEvictionSettings=True))], 37)
    assert eff['evictionHard']['memory.available'] == '100Mi'
    # before 1.33 the kubelet has no mergeDefaultEvictionSettings
    eff = dropin.effective_config(main, [('/d/1.conf', doc(evictionHard={'imagefs.available': '20%'}))], 32)
    assert eff['evictionHard'] == {'nodefs.available': '7%', 'imagefs.available': '20%'}
    assert 'evictionHard' not in dropin.effective_config(doc(), [('/d/1.conf', doc(maxPods=10))])


def test_merge_patch_rfc7386_examples():
    assert dropin.merge_patch({'a': 'b'}, {'a': 'c'}) == {'a': 'c'}
    assert dropin.merge_patch({'a': 'b'}, {'b': 'c'}) == {'a': 'b', 'b': 'c'}
    assert dropin.merge_patch({'a': 'b'}, {'a': None}) == {}
    assert dropin.merge_patch({'a': ['b']}, {'a': 'c'}) == {'a': 'c'}
    assert dropin.merge_patch({'a': {'b': 'c'}}, {'a': {'b': 'd', 'c': None}}) == {'a': {'b': 'd'}}
    assert dropin.merge_patch({}, {'a': {'bb': {'ccc': None}}}) == {'a': {'bb': {}}}
    assert dropin.merge_patch({'a': 'foo'}, ['c']) == ['c']


# ----------------------------------------------------------------------------------------------
# What the kubelet refuses in a drop-in

@pytest.mark.parametrize('config, fragments', [
    (None, ['is empty']),
    (['a'], ['does not hold a YAML mapping (found list)']),
    ({'cpuManagerPolicy': 'static'}, ['kind is null', 'apiVersion is null', 'not a KubeletConfiguration']),
    (doc(kind='Other'), ['kind is "Other"']),
    (doc(CPUManagerPolicy='static'), ['CPUManagerPolicy', 'spelled cpuManagerPolicy']),
])
def test_refused_drop_ins_name_the_file(config, fragments):
    with pytest.raises(kubelet.KubeletConfigError) as err:
        dropin.check_dropin(config, '/d/10-x.conf')
    assert all(fragment in err.value.errors[0] for fragment in fragments), err.value.errors
    assert err.value.errors[0].startswith('/d/10-x.conf')


def test_a_drop_in_with_apiversion_kind_and_some_keys_is_taken():
    dropin.check_dropin(doc(maxPods=3), '/d/1.conf')
    dropin.check_dropin(doc(), '/d/1.conf')


# ----------------------------------------------------------------------------------------------
# Overrides and refusals

def test_overrides_name_file_and_key_map_entries_one_by_one():
    found = dropin.overrides([('/d/10.conf', doc(cpuManagerPolicy='none', maxPods=3, systemReserved={'memory': '2Gi'})),
                              ('/d/20.conf', doc(featureGates=None))])
    assert found == [{'file': '/d/10.conf', 'key': 'cpuManagerPolicy', 'value': 'none'},
                     {'file': '/d/10.conf', 'key': 'systemReserved.memory', 'value': '2Gi'},
                     {'file': '/d/20.conf', 'key': 'featureGates', 'value': None}]


def _conflicts(asked, planned, dropins, minor=None):
    eff = dropin.effective_config(planned, dropins, minor)
    return dropin.conflicts(asked, planned, eff, dropins, '/d', '/main.yaml')


def test_asked_value_overridden_is_refused_naming_file_key_value_and_what_to_do():
    errors = _conflicts({'cpuManagerPolicy': None}, doc(cpuManagerPolicy='static'),
                        [('/d/10.conf', doc(cpuManagerPolicy='static')), ('/d/90.conf', doc(cpuManagerPolicy='none'))])
    assert len(errors) == 1
    for fragment in ('/d/90.conf sets cpuManagerPolicy to "none"', 'drop-in directory /d over /main.yaml',
                     'instead of cpuManagerPolicy set to "static"', 'option cpu_manager_policy',
                     'Remove cpuManagerPolicy from /d/90.conf'):
        assert fragment in errors[0], errors[0]


def test_same_value_in_a_drop_in_is_no_conflict():
    assert _conflicts({'cpuManagerPolicy': None, 'reservedSystemCPUs': None},
                      doc(cpuManagerPolicy='static', reservedSystemCPUs='0-1'),
                      [('/d/1.conf', doc(cpuManagerPolicy='static', reservedSystemCPUs='0,1'))]) == []


def test_unasked_key_overridden_is_no_conflict():
    assert _conflicts({'topologyManagerPolicy': None}, doc(topologyManagerPolicy='restricted'),
                      [('/d/1.conf', doc(cpuManagerPolicy='none'))]) == []


def test_removal_asked_but_a_drop_in_sets_it():
    errors = _conflicts({'memoryManagerPolicy': None}, doc(), [('/d/1.conf', doc(memoryManagerPolicy='Static'))])
    assert len(errors) == 1 and 'sets memoryManagerPolicy to "Static"' in errors[0]
    assert 'instead of memoryManagerPolicy removed' in errors[0]


def test_null_in_a_drop_in_removes_an_asked_value():
    errors = _conflicts({'topologyManagerScope': None}, doc(topologyManagerScope='pod'),
                        [('/d/1.conf', doc(topologyManagerScope=None))], 37)
    assert len(errors) == 1 and '/d/1.conf removes topologyManagerScope' in errors[0]
    assert _conflicts({'topologyManagerScope': None}, doc(topologyManagerScope='pod'),
                      [('/d/1.conf', doc(topologyManagerScope=None))], 31) == []


def test_map_entries_asked_are_judged_one_by_one():
    planned = doc(systemReserved={'cpu': '1', 'memory': '1Gi'}, featureGates={'A': True, 'B': True})
    dropins = [('/d/1.conf', doc(systemReserved={'memory': '2Gi'}, featureGates={'B': False}))]
    assert _conflicts({'systemReserved': ['cpu'], 'featureGates': ['A']}, planned, dropins) == []
    errors = _conflicts({'systemReserved': ['memory'], 'featureGates': ['B']}, planned, dropins)
    assert len(errors) == 2
    assert 'sets systemReserved.memory to "2Gi"' in errors[0] and 'sets featureGates.B to false' in errors[1]


def test_whole_map_asked_names_the_entries_a_drop_in_adds():
    planned = doc(cpuManagerPolicyOptions={'full-pcpus-only': 'true'})
    dropins = [('/d/1.conf', doc(cpuManagerPolicyOptions={'align-by-socket': 'true'}))]
    errors = _conflicts({'cpuManagerPolicyOptions': None}, planned, dropins)
    assert len(errors) == 1 and 'sets cpuManagerPolicyOptions.align-by-socket to "true"' in errors[0]
    assert 'instead of cpuManagerPolicyOptions.align-by-socket removed' in errors[0]


def test_quantities_that_mean_the_same_are_no_conflict():
    assert _conflicts({'kubeReserved': ['memory']}, doc(kubeReserved={'memory': '1Gi'}),
                      [('/d/1.conf', doc(kubeReserved={'memory': '1024Mi'}))]) == []


# ----------------------------------------------------------------------------------------------
# Drop-in mode: the module's own drop-in

OURS = D + '/90-numaops-colocation.conf'


@pytest.mark.parametrize('name, fragment', [
    ('90-numaops-colocation.conf', None), ('99.conf', None),
    ('x.yaml', 'does not end in .conf'), ('x.CONF', 'does not end in .conf'), ('a/b.conf', 'is not a file name'),
    ('.hidden.conf', 'is not a file name'), ('', 'is not a file name'), (None, 'is not a file name')])
def test_the_name_of_our_drop_in(name, fragment):
    errors = dropin.check_dropin_name(name)
    assert (errors == []) if fragment is None else (fragment in errors[0]), errors


def test_split_at_our_place_in_the_kubelets_order():
    files = [(D + '/10-a.conf', {}), (D + '/90-numaops-colocation.conf', {}), (D + '/a/1.conf', {}),
             (D + '/95-b.conf', {}), (D + '/90-numaops-colocation.conf.d/x.conf', {})]
    before, after = dropin.split_at(files, OURS)
    assert [p for p, _config in before] == [D + '/10-a.conf']
    assert [p for p, _config in after] == [D + '/a/1.conf', D + '/95-b.conf', D + '/90-numaops-colocation.conf.d/x.conf']


CHANGES = ['cpuManagerPolicy', 'systemReserved', 'kubeReserved', 'topologyManagerPolicy', 'topologyManagerScope',
           'featureGates']


def test_dropin_values_scalars_maps_and_removals():
    base = doc(systemReserved={'cpu': '500m', 'memory': '1Gi'}, featureGates={'A': True, 'B': True},
               topologyManagerPolicy='best-effort')
    current = doc(kubeReserved={'memory': '512Mi'}, maxPods=90, topologyManagerScope='pod')
    planned = doc(systemReserved={'memory': '2Gi'}, featureGates={'A': True, 'C': True}, cpuManagerPolicy='static',
                  kubeReserved={'memory': '512Mi', 'cpu': '1'})
    asked = {'systemReserved': None, 'featureGates': ['B', 'C'], 'cpuManagerPolicy': None,
             'topologyManagerPolicy': None, 'topologyManagerScope': None, 'kubeReserved': ['cpu']}
    new = dropin.dropin_values(current, planned, base, asked)
    assert new == doc(maxPods=90, cpuManagerPolicy='static', systemReserved={'memory': '2Gi', 'cpu': None},
                      featureGates={'C': True, 'B': None}, topologyManagerPolicy=None,
                      kubeReserved={'memory': '512Mi', 'cpu': '1'})
    # the removed scope was set nowhere below ours: it leaves the drop-in
    assert 'topologyManagerScope' not in new
    assert dropin.dropin_changes(current, new) == CHANGES
    assert dropin.dropin_changes(new, new) == []
    # a spelling that means the same keeps the drop-in's own
    same = dropin.dropin_values(doc(reservedSystemCPUs='0,1'), doc(reservedSystemCPUs='0-1'), doc(),
                                {'reservedSystemCPUs': None})
    assert same == doc(reservedSystemCPUs='0,1') and dropin.dropin_changes(doc(reservedSystemCPUs='0,1'), same) == []


def test_a_null_is_a_value_for_dropin_changes():
    assert dropin.dropin_changes(doc(cpuManagerPolicy=None), doc()) == ['cpuManagerPolicy']
    assert dropin.dropin_changes(doc(), doc(cpuManagerPolicy=None)) == ['cpuManagerPolicy']
    assert dropin.dropin_changes(doc(systemReserved={'cpu': None}), doc(systemReserved={'cpu': '1'})) == [
        'systemReserved']


def test_what_leaves_our_drop_in_is_reported_with_its_source():
    main = doc(topologyManagerPolicy='restricted', systemReserved={'cpu': '1'})
    current = doc(topologyManagerPolicy='single-numa-node', topologyManagerScope='pod',
                  systemReserved={'cpu': '2', 'memory': '1Gi'})
    new = doc(systemReserved={'cpu': '2'})
    site = (D + '/10-site.conf', doc(topologyManagerPolicy='best-effort'))
    merged = dropin.effective_config(main, [site, (OURS, new)])
    assert dropin.removed_from_dropin(current, new, main, [site, (OURS, new)], merged, '/main.yaml') == [
        {'key': 'systemReserved.memory', 'value': '1Gi', 'effective': None, 'from': 'the kubelet default'},
        {'key': 'topologyManagerPolicy', 'value': 'single-numa-node', 'effective': 'best-effort',
         'from': D + '/10-site.conf'},
        {'key': 'topologyManagerScope', 'value': 'pod', 'effective': None, 'from': 'the kubelet default'}]
    assert dropin.source_of('systemReserved', 'cpu', main, [], '/main.yaml') == '/main.yaml'


def test_kubelet_131_cannot_remove_what_the_main_file_sets_from_a_drop_in():
    main = doc(systemReserved={'cpu': '500m'}, cpuManagerReconcilePeriod='5s')
    ours = doc(systemReserved={'memory': '1Gi', 'cpu': None}, cpuManagerReconcilePeriod=None)
    planned = doc(systemReserved={'memory': '1Gi'})
    asked = {'systemReserved': None, 'cpuManagerReconcilePeriod': None}
    merged31 = dropin.effective_config(main, [(OURS, ours)], 31)
    errors = dropin.unreached(asked, planned, merged31, '/main.yaml', OURS, 31)
    assert len(errors) == 2 and errors[1].startswith('/main.yaml sets systemReserved.cpu to "500m"')
    assert 'kubelet 1.31 does not let a drop-in remove' in errors[0] and 'cpuManagerReconcilePeriod' in errors[0]
    merged32 = dropin.effective_config(main, [(OURS, ours)], 32)
    assert dropin.unreached(asked, planned, merged32, '/main.yaml', OURS, 32) == []
