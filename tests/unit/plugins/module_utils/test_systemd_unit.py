# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's effective --config from its unit and drop-ins, read as systemd reads them."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.module_utils import systemd_unit as su

ETC = '/r/etc/systemd/system'
USR = '/r/usr/lib/systemd/system'
DIRS = [ETC, USR]
UNIT = '[Unit]\nDescription=kubelet\n[Service]\nExecStart=/usr/bin/kubelet\nRestart=always\n'
KUBEADM = '''# Note: This dropin only works with kubeadm and kubelet v1.11+
[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
'''


def config(texts, env=None):
    return su.kubelet_config_path(texts, DIRS, 'kubelet', env or {}, root='/r')


def test_kubeadm_drop_in():
    found = config({USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM})
    assert found['config'] == '/var/lib/kubelet/config.yaml'
    assert found['unit'] == USR + '/kubelet.service'
    assert found['drop_ins'] == [USR + '/kubelet.service.d/10-kubeadm.conf']


def test_commented_lines_are_ignored():
    unit = '[Service]\n# ExecStart=/usr/bin/kubelet --config=/old.yaml\n;ExecStart=/x --config=/semi.yaml\nExecStart=/usr/bin/kubelet\n'
    assert config({USR + '/kubelet.service': unit})['config'] == ''


def test_later_drop_in_wins_and_empty_execstart_resets():
    texts = {
        USR + '/kubelet.service': UNIT.replace('/usr/bin/kubelet', '/usr/bin/kubelet --config=/unit.yaml'),
        USR + '/kubelet.service.d/10-a.conf': '[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --config=/a.yaml\n',
        ETC + '/kubelet.service.d/20-b.conf': '[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --config /b.yaml\n',
    }
    assert config(texts)['config'] == '/b.yaml'
    # path order would have put /etc first; systemd sorts by file name: 30 after 20 even from /usr/lib
    texts[USR + '/kubelet.service.d/30-c.conf'] = '[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --config=/c.yaml\n'
    assert config(texts)['config'] == '/c.yaml'


def test_drop_in_of_etc_hides_the_same_name_in_usr_lib():
    texts = {
        USR + '/kubelet.service': UNIT,
        USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM,
        ETC + '/kubelet.service.d/10-kubeadm.conf': KUBEADM.replace('/var/lib/kubelet/config.yaml', '/etc/k.yaml'),
    }
    found = config(texts)
    assert found['config'] == '/etc/k.yaml' and found['drop_ins'] == [ETC + '/kubelet.service.d/10-kubeadm.conf']


def test_unit_of_etc_masks_usr_lib():
    texts = {USR + '/kubelet.service': UNIT.replace('kubelet\n', 'kubelet --config=/usr.yaml\n', 1),
             ETC + '/kubelet.service': UNIT.replace('/usr/bin/kubelet', '/usr/bin/kubelet --config=/etc.yaml')}
    assert config(texts)['config'] == '/etc.yaml'


def test_environment_file_overrides_environment_and_is_found_under_root():
    dropin = KUBEADM + ''
    env = {'/r/etc/default/kubelet': 'KUBELET_EXTRA_ARGS="--config=/extra.yaml"\n'}
    assert config({USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': dropin},
                  env)['config'] == '/extra.yaml'  # the last --config of the command line wins
    env = {'/r/etc/default/kubelet': '# KUBELET_EXTRA_ARGS=--config=/commented.yaml\n'}
    assert config({USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': dropin},
                  env)['config'] == '/var/lib/kubelet/config.yaml'


def test_environment_file_not_named_by_the_unit_is_not_read():
    env = {'/r/etc/sysconfig/kubelet': 'KUBELET_EXTRA_ARGS=--config=/nope.yaml\n'}
    found = config({USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM}, env)
    assert found['config'] == '/var/lib/kubelet/config.yaml'


def test_continuation_lines_and_prefixes():
    unit = '[Service]\nExecStart=-/usr/bin/kubelet \\\n  --v=2 \\\n  --config=/cont.yaml\n'
    assert config({USR + '/kubelet.service': unit})['config'] == '/cont.yaml'


def test_undefined_variable_is_not_a_path():
    unit = '[Service]\nExecStart=/usr/bin/kubelet --config=${CONFIG_FILE}x\n'
    assert config({USR + '/kubelet.service': unit})['config'] == 'x'
    unit = '[Service]\nExecStart=/usr/bin/kubelet $ARGS\n'
    assert config({USR + '/kubelet.service': unit})['config'] == ''


def test_other_sections_do_not_count_and_no_unit_means_nothing():
    unit = '[Unit]\nExecStart=/usr/bin/kubelet --config=/unit-section.yaml\n[Service]\nExecStart=/usr/bin/kubelet\n'
    assert config({USR + '/kubelet.service': unit})['config'] == ''
    assert config({})['config'] == '' and config({})['unit'] is None


def test_flag_value_forms():
    assert su.flag_value(['k', '--config', '/a', '-config=/b'], 'config') == '/b'
    assert su.flag_value(['k', '--config'], 'config') is None
    assert su.flag_value(['k', '--configx=/a'], 'config') is None


def test_config_dir_from_the_kubeadm_env_file():
    texts = {USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM}
    env = {'/r/var/lib/kubelet/kubeadm-flags.env': 'KUBELET_KUBEADM_ARGS="--config-dir=/etc/kubernetes/kubelet.conf.d"\n'}
    found = config(texts, env)
    assert found['config'] == '/var/lib/kubelet/config.yaml'
    assert found['config_dir'] == '/etc/kubernetes/kubelet.conf.d'


def test_config_dir_separate_word_last_wins_and_absent():
    unit = '[Service]\nExecStart=/usr/bin/kubelet --config-dir /a.d --config=/c.yaml --config-dir=/b.d\n'
    found = config({USR + '/kubelet.service': unit})
    assert found['config_dir'] == '/b.d' and found['config'] == '/c.yaml'
    found = config({USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM})
    assert found['config_dir'] == ''


def test_config_dir_does_not_take_config_and_config_does_not_take_config_dir():
    unit = '[Service]\nExecStart=/usr/bin/kubelet --config-dir=/d\n'
    found = config({USR + '/kubelet.service': unit})
    assert found['config'] == '' and found['config_dir'] == '/d'


def test_config_dir_from_an_extra_args_drop_in_of_etc():
    texts = {
        USR + '/kubelet.service': UNIT,
        USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM,
        ETC + '/kubelet.service.d/20-dir.conf': '[Service]\nEnvironment="KUBELET_EXTRA_ARGS=--config-dir=/etc/kubelet.d"\n',
    }
    assert config(texts)['config_dir'] == '/etc/kubelet.d'


# ----------------------------------------------------------------------------------------------
# --config-dir added through a unit drop-in of the module's own

OURS = ETC + '/kubelet.service.d/90-numaops-config-dir.conf'


def test_config_dir_dropin_repeats_the_kubelet_command_with_the_flag():
    texts = {USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM}
    env = {'/r/var/lib/kubelet/kubeadm-flags.env': 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=x"\n'}
    plan = su.config_dir_dropin(texts, DIRS, 'kubelet', OURS, '/etc/kubernetes/kubelet.conf.d', env, root='/r')
    assert plan['errors'] == []
    assert plan['content'].endswith(
        '[Service]\nExecStart=\nExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS '
        '$KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS --config-dir=/etc/kubernetes/kubelet.conf.d\n')
    after = su.kubelet_config_path(dict(texts, **{OURS: plan['content']}), DIRS, 'kubelet', env, root='/r')
    assert after['config'] == '/var/lib/kubelet/config.yaml'
    assert after['config_dir'] == '/etc/kubernetes/kubelet.conf.d'
    assert after['drop_ins'] == [USR + '/kubelet.service.d/10-kubeadm.conf', OURS]
    assert plan['after']['argv'] == plan['before']['argv'] + ['--config-dir=/etc/kubernetes/kubelet.conf.d']
    # our own drop-in as it is does not count: the plan is made from the others
    again = su.config_dir_dropin(dict(texts, **{OURS: plan['content']}), DIRS, 'kubelet', OURS,
                                 '/etc/kubernetes/kubelet.conf.d', env, root='/r')
    assert again['content'] == plan['content']


def test_config_dir_dropin_keeps_the_same_flag_and_refuses_another():
    texts = {USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM}
    env = {'/r/etc/default/kubelet': 'KUBELET_EXTRA_ARGS=--config-dir=/etc/k.d/\n'}
    plan = su.config_dir_dropin(texts, DIRS, 'kubelet', OURS, '/etc/k.d', env, root='/r')
    assert plan['content'] is None and plan['errors'] == []
    plan = su.config_dir_dropin(texts, DIRS, 'kubelet', OURS, '/etc/other.d', env, root='/r')
    assert plan['content'] is None and 'started with --config-dir=/etc/k.d/' in plan['errors'][0]


def test_config_dir_dropin_refuses_without_a_unit_or_after_a_later_execstart():
    plan = su.config_dir_dropin({}, DIRS, 'kubelet', OURS, '/etc/k.d')
    assert 'no kubelet.service with an ExecStart= was found' in plan['errors'][0]
    later = USR + '/kubelet.service.d/99-site.conf'
    texts = {USR + '/kubelet.service': UNIT, USR + '/kubelet.service.d/10-kubeadm.conf': KUBEADM,
             later: '[Service]\nExecStart=\nExecStart=/usr/local/bin/kubelet --config=/x.yaml\n'}
    plan = su.config_dir_dropin(texts, DIRS, 'kubelet', OURS, '/etc/k.d')
    assert plan['errors'] and later in plan['errors'][0] and 'sorts after 99-site.conf' in plan['errors'][0]


def test_config_dir_errors():
    assert su.config_dir_errors('/etc/kubernetes/kubelet.conf.d') == []
    for bad in ('relative/dir', '/with space', '/with$var', '/with%n', '/q"uote', ''):
        assert 'cannot be written into a systemd unit' in su.config_dir_errors(bad)[0], bad
