# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The drop-in merge of kubelet_config (module_utils/kubelet/dropin.py) against the real kubelets 1.31 and 1.37
(built from their Go modules by scripts/upstream.sh; a missing one fails the test, naming the command that builds
it).

Each case is a main file and a drop-in directory. The kubelet is started with ``--config`` and ``--config-dir``
on them and no container runtime: it either refuses the merged configuration (validation, an unknown feature gate,
a drop-in it cannot load) or gets past it and stops at the missing runtime. The module must predict which, from
the value its merged view gives to the one key a case makes invalid."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import dropin

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
H = {'apiVersion': kubelet.API_VERSION, 'kind': kubelet.KIND}
BOGUS = dict(H, topologyManagerPolicy='bogus')
NONE = dict(H, topologyManagerPolicy='none')
GATE = 'NoSuchGateForTheDropInTest'
REFUSED = ('failed to validate kubelet configuration', 'failed to merge kubelet configs',
           'unrecognized feature gate')
PAST_CONFIG = 'failed to run Kubelet'

# (name, main file keys, {drop-in name: document}); None as the directory: --config-dir names a missing directory;
# a name starting with LINK: --config-dir names a symbolic link to the directory
CASES = [
    ('a drop-in value wins over the main file', {'topologyManagerPolicy': 'bogus'}, {'10.conf': NONE}),
    ('a later drop-in wins', {}, {'10.conf': BOGUS, '20.conf': NONE}),
    ('an earlier drop-in loses', {}, {'10.conf': NONE, '20.conf': BOGUS}),
    ('a sub-directory comes at its place in name order', {}, {'a/1.conf': BOGUS, 'a.conf': NONE}),
    ('null over the main file', {'topologyManagerPolicy': 'bogus'}, {'10.conf': dict(H, topologyManagerPolicy=None)}),
    ('a file not ending in .conf is not read', {}, {'10.yaml': BOGUS, '10.CONF': BOGUS}),
    ('a drop-in without apiVersion and kind', {}, {'10.conf': {'topologyManagerPolicy': 'none'}}),
    ('an empty drop-in', {}, {'10.conf': ''}),
    ('feature gate maps merge', {}, {'10.conf': dict(H, featureGates={GATE: True}),
                                     '20.conf': dict(H, featureGates={'CPUManagerPolicyAlphaOptions': True})}),
    ('a null entry removes a gate', {}, {'10.conf': dict(H, featureGates={GATE: True}),
                                         '20.conf': dict(H, featureGates={GATE: None})}),
    ('a missing directory', {}, None),
    ('LINK: the directory is a symbolic link', {'topologyManagerPolicy': 'bogus'}, {'10.conf': NONE}),
]


def kubelet_binary(release):
    script = os.path.join(REPO, 'scripts', 'upstream.sh')
    proc = subprocess.run([script, 'path', 'kubelet-' + release], capture_output=True, text=True, check=False)
    directory = proc.stdout.strip() if proc.returncode == 0 else ''
    if directory and os.access(os.path.join(directory, 'kubelet'), os.X_OK):
        return os.path.join(directory, 'kubelet')
    pytest.fail('no kubelet %s binary here: `scripts/upstream.sh build kubelet-%s` builds it (scripts/test.sh '
                'upstream does, and every stage that needs it when run alone)' % (release, release))
    return None


def predict(name, main, dropins, minor):
    """'refused' or 'passed', from the module's merged view."""
    if dropins is None:
        return 'refused'
    if name.startswith('LINK'):
        dropins = {}  # the action plugin reads none, with dropin.link_root_warning()
    loaded = []
    for name in dropin.dropin_files('/d', [('/d/' + name, False) for name in dropins])[0]:
        config = dropins[name[len('/d/'):]]
        try:
            dropin.check_dropin(config if config != '' else None, name)
        except kubelet.KubeletConfigError:
            return 'refused'
        loaded.append((name, config))
    merged = dropin.effective_config(dict(H, **main), loaded, minor)
    if merged.get('topologyManagerPolicy') == 'bogus' or GATE in (merged.get('featureGates') or {}):
        return 'refused'
    return 'passed'


def _unmount_under(top):
    with open('/proc/self/mountinfo') as handle:
        points = [line.split()[4] for line in handle if line.split()[4].startswith(top + '/')]
    for point in sorted(points, reverse=True):
        subprocess.run(['umount', '-l', point], check=False)


def run_kubelet(binary, main, dropins, link=False):
    top = tempfile.mkdtemp(prefix='numaops-dropin-')
    try:
        config = dict(H, failSwapOn=False, failCgroupV1=False, port=0, healthzPort=0, readOnlyPort=0,
                      cgroupDriver='cgroupfs', containerRuntimeEndpoint='unix://%s/no-runtime.sock' % top,
                      authentication={'anonymous': {'enabled': True}, 'webhook': {'enabled': False}},
                      authorization={'mode': 'AlwaysAllow'}, **main)
        with open(os.path.join(top, 'config.yaml'), 'w') as handle:
            json.dump(config, handle)
        config_dir = os.path.join(top, 'conf.d')
        for name, doc in (dropins or {}).items():
            path = os.path.join(config_dir, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as handle:
                handle.write(doc if isinstance(doc, str) else json.dumps(doc))
        if dropins is not None:
            os.makedirs(config_dir, exist_ok=True)
        if link:
            os.symlink(config_dir, config_dir + '.link')
            config_dir += '.link'
        proc = subprocess.run([binary, '--config', os.path.join(top, 'config.yaml'), '--config-dir', config_dir,
                               '--root-dir', os.path.join(top, 'root'), '--cert-dir', os.path.join(top, 'pki'),
                               '--hostname-override', 'dropin', '--v', '1'],
                              capture_output=True, text=True, timeout=120, check=False)
        out = proc.stdout + proc.stderr
        if any(mark in out for mark in REFUSED):
            return 'refused', out
        if PAST_CONFIG in out:
            return 'passed', out
        return 'unknown', out
    finally:
        _unmount_under(top)
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.parametrize('release, minor', [('1.31', 31), ('1.37', 37)])
def test_the_module_merges_drop_ins_as_the_real_kubelet_does(release, minor):
    binary = kubelet_binary(release)
    disagreements = []
    for name, main, dropins in CASES:
        verdict, out = run_kubelet(binary, main, dropins, link=name.startswith('LINK'))
        expected = predict(name, main, dropins, minor)
        if verdict != expected:
            disagreements.append('%s: the kubelet %s, the module predicts %s:\n%s' % (
                name, verdict, expected, out[-1500:]))
    assert not disagreements, '\n\n'.join(disagreements)
