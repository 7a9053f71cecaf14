# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/gen_kubelet_releases.py on a tiny source tree shaped like k8s.io/kubernetes and its staging modules."""
from __future__ import annotations

import ast
import importlib.util
import os

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import releases

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_SPEC = importlib.util.spec_from_file_location('gen_kubelet_releases',
                                               os.path.join(ROOT, 'scripts', 'gen_kubelet_releases.py'))
gen = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(gen)

KUBE_FEATURES = '''package features

import (
    genericfeatures "k8s.io/apiserver/pkg/features"
    utilfeature "k8s.io/apiserver/pkg/util/feature"
    "k8s.io/component-base/featuregate"
)

const (
    // a comment with "quotes" and a } brace
    CPUManagerPolicyOptions featuregate.Feature = "CPUManagerPolicyOptions"
    CPUManagerPolicyAlphaOptions featuregate.Feature = "CPUManagerPolicyAlphaOptions"
    CPUManagerPolicyBetaOptions featuregate.Feature = "CPUManagerPolicyBetaOptions"
    TopologyManagerPolicyOptions featuregate.Feature = "TopologyManagerPolicyOptions"
    TopologyManagerPolicyAlphaOptions featuregate.Feature = "TopologyManagerPolicyAlphaOptions"
    TopologyManagerPolicyBetaOptions featuregate.Feature = "TopologyManagerPolicyBetaOptions"
    SystemdWatchdog = featuregate.Feature("SystemdWatchdog")
    Unregistered featuregate.Feature = "Unregistered"
)

func init() {
    runtime.Must(utilfeature.DefaultMutableFeatureGate.AddVersioned(defaultVersionedKubernetesFeatureGates))
}

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
    CPUManagerPolicyOptions: {
        {Version: version.MustParse("1.22"), Default: false, PreRelease: featuregate.Alpha},
        {Version: version.MustParse("1.33"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}, // remove in 1.36
    },
    CPUManagerPolicyAlphaOptions: {
        {Version: version.MustParse("1.23"), Default: false, PreRelease: featuregate.Alpha},
    },
    CPUManagerPolicyBetaOptions: {
        {Version: version.MustParse("1.23"), Default: true, PreRelease: featuregate.Beta},
    },
    TopologyManagerPolicyOptions: {
        {Version: version.MustParse("1.28"), Default: true, PreRelease: featuregate.Beta},
        {Version: version.MustParse("1.32"), Default: true, PreRelease: featuregate.GA},
    },
    TopologyManagerPolicyAlphaOptions: {
        {Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha},
    },
    TopologyManagerPolicyBetaOptions: {
        {Version: version.MustParse("1.28"), Default: true, PreRelease: featuregate.Beta},
    },
    SystemdWatchdog: {
        {Version: version.MustParse("1.40"), Default: false, PreRelease: featuregate.Alpha},
    },
    genericfeatures.APIResponseCompression: {
        {Version: version.MustParse("1.16"), Default: true, PreRelease: featuregate.Beta},
    },
}

var notRegistered = map[featuregate.Feature]featuregate.FeatureSpec{
    Unregistered: {Default: true, PreRelease: featuregate.Beta},
}
'''

GENERIC = '''package features

import (
    utilfeature "k8s.io/apiserver/pkg/util/feature"
    "k8s.io/component-base/featuregate"
)

const (
    APIResponseCompression featuregate.Feature = "APIResponseCompression"
    OldGate featuregate.Feature = "OldGate"
)

func init() {
    runtime.Must(utilfeature.DefaultMutableFeatureGate.Add(defaultKubernetesFeatureGates))
}

var defaultKubernetesFeatureGates = map[featuregate.Feature]featuregate.FeatureSpec{
    OldGate: {Default: oldDefault, PreRelease: featuregate.Deprecated, LockToDefault: true},
}

const oldDefault = true
'''

LOGS = '''package v1

const ContextualLogging featuregate.Feature = "ContextualLogging"

func featureGates() map[featuregate.Feature]featuregate.VersionedSpecs {
    return map[featuregate.Feature]featuregate.VersionedSpecs{
        ContextualLogging: {
            {Version: version.MustParse("1.24"), Default: false, PreRelease: featuregate.Alpha},
            {Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta},
        },
    }
}

func AddFeatureGates(mutableFeatureGate featuregate.MutableVersionedFeatureGate) error {
    return mutableFeatureGate.AddVersioned(featureGates())
}
'''

SERVER = '''package app

import (
    logsapi "k8s.io/component-base/logs/api/v1"
)

func init() {
    utilruntime.Must(logsapi.AddFeatureGates(utilfeature.DefaultMutableFeatureGate))
}

func run() error {
        var cpuManagerPolicyOptions map[string]string
        if utilfeature.DefaultFeatureGate.Enabled(features.CPUManagerPolicyOptions) {
            cpuManagerPolicyOptions = s.CPUManagerPolicyOptions
        } else if s.CPUManagerPolicyOptions != nil {
            return fmt.Errorf("CPU Manager policy options %v require feature gates", s.CPUManagerPolicyOptions)
        }
        var topologyManagerPolicyOptions map[string]string
        if utilfeature.DefaultFeatureGate.Enabled(features.TopologyManagerPolicyOptions) {
            topologyManagerPolicyOptions = s.TopologyManagerPolicyOptions
        } else if s.TopologyManagerPolicyOptions != nil {
            return fmt.Errorf("topology manager policy options %v require feature gates", s.TopologyManagerPolicyOptions)
        }
}
'''


def policy_options(prefix, consts, alpha, beta, stable):
    return '''package x

const (
%s
)

var (
    alphaOptions = sets.New[string](%s)
    betaOptions = sets.NewString(%s)
    stableOptions = sets.New[string](%s)
)

func CheckPolicyOptionAvailable(option string) error {
    if alphaOptions.Has(option) && !utilfeature.DefaultFeatureGate.Enabled(kubefeatures.%sPolicyAlphaOptions) {
        return nil
    }
    if betaOptions.Has(option) && !utilfeature.DefaultFeatureGate.Enabled(kubefeatures.%sPolicyBetaOptions) {
        return nil
    }
    return nil
}
''' % ('\n'.join('\t%s string = "%s"' % item for item in consts), alpha, beta, stable, prefix, prefix)


FEATUREGATE = '''package featuregate

const (
    allAlphaGate Feature = "AllAlpha"
    allBetaGate Feature = "AllBeta"
)
'''


@pytest.fixture
def tree(tmp_path):
    files = {
        'kubernetes/pkg/features/kube_features.go': KUBE_FEATURES,
        'kubernetes/pkg/features/kube_features_test.go': 'package features\nvar x = "ignored"\n',
        'kubernetes/cmd/kubelet/app/server.go': SERVER,
        'kubernetes/pkg/kubelet/kubelet.go': 'package kubelet\n',
        'kubernetes/pkg/kubelet/cm/cpumanager/policy_options.go': policy_options(
            'CPUManager', [('FullPCPUsOnlyOption', 'full-pcpus-only'), ('AlignBySocketOption', 'align-by-socket'),
                           ('StrictOption', 'strict-cpu-reservation')],
            'AlignBySocketOption', 'StrictOption', 'FullPCPUsOnlyOption'),
        'kubernetes/pkg/kubelet/cm/topologymanager/policy_options.go': policy_options(
            'TopologyManager', [('PreferClosestNUMANodes', 'prefer-closest-numa-nodes')], '', 'PreferClosestNUMANodes',
            ''),
        'apiserver/pkg/features/kube_features.go': GENERIC,
        'apiserver/pkg/util/feature/feature_gate.go': 'package feature\n',
        'component-base/logs/api/v1/kube_features.go': LOGS,
        'component-base/featuregate/feature_gate.go': FEATUREGATE,
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    asked = []

    def module_dir(module, version):
        asked.append((module, version))
        return str(tmp_path / module.split('/', 1)[1])

    return module_dir, asked


def test_parse_release(tree):
    module_dir, asked = tree
    release = gen.parse_release(gen.Tree('1.33.4', module_dir))
    assert ('k8s.io/kubernetes', 'v1.33.4') in asked and ('k8s.io/apiserver', 'v0.33.4') in asked
    assert release['gates'] == {
        'AllAlpha': ('Special', False, False), 'AllBeta': ('Special', False, False),
        'APIResponseCompression': ('Beta', True, False),
        'CPUManagerPolicyAlphaOptions': ('Alpha', False, False),
        'CPUManagerPolicyBetaOptions': ('Beta', True, False),
        'CPUManagerPolicyOptions': ('GA', True, True),
        'ContextualLogging': ('Beta', True, False),
        'OldGate': ('Deprecated', True, True),
        'SystemdWatchdog': ('PreAlpha', False, False),
        'TopologyManagerPolicyAlphaOptions': ('Alpha', False, False),
        'TopologyManagerPolicyBetaOptions': ('Beta', True, False),
        'TopologyManagerPolicyOptions': ('GA', True, False),
    }
    assert release['cpu_options'] == {'align-by-socket': 'Alpha', 'strict-cpu-reservation': 'Beta',
                                      'full-pcpus-only': 'GA'}
    assert release['cpu_option_gates'] == {'Alpha': 'CPUManagerPolicyAlphaOptions',
                                           'Beta': 'CPUManagerPolicyBetaOptions'}
    assert release['topology_options'] == {'prefer-closest-numa-nodes': 'Beta'}
    assert release['options_map_gates'] == {'cpuManagerPolicyOptions': 'CPUManagerPolicyOptions',
                                            'topologyManagerPolicyOptions': 'TopologyManagerPolicyOptions'}


def test_build_and_render_steps(tree):
    module_dir, _asked = tree
    older = gen.parse_release(gen.Tree('1.31.2', module_dir))
    newer = gen.parse_release(gen.Tree('1.33.4', module_dir))
    del newer['gates']['OldGate']  # as if the release removed it
    table = gen.build_table([older, newer])
    assert table['RELEASES'] == ('1.31.2', '1.33.4')
    assert table['FEATURE_GATES']['CPUManagerPolicyOptions'] == ((31, ('Alpha', False, False)), (33, ('GA', True, True)))
    assert table['FEATURE_GATES']['OldGate'] == ((31, ('Deprecated', True, True)), (33, None))
    text = gen.render(table)
    assert 'GENERATED by scripts/gen_kubelet_releases.py' in text
    module = ast.parse(text)
    values = dict((node.targets[0].id, ast.literal_eval(node.value)) for node in module.body
                  if isinstance(node, ast.Assign) and node.targets[0].id != '__metaclass__')
    assert values['RELEASES'] == ('1.31.2', '1.33.4')
    assert values['GATES']['OldGate'] == '31:DtL 33:x'
    # what the collection reads back (kubelet/releases.py) is the table the generator built
    for name, steps in table['FEATURE_GATES'].items():
        assert releases.decode_steps(values['GATES'][name], releases.decode_gate) == steps
    for key in ('CPU_MANAGER_OPTIONS', 'TOPOLOGY_MANAGER_OPTIONS'):
        assert dict((name, releases.decode_steps(text, releases.decode_stage))
                    for name, text in values[key].items()) == table[key]
    assert values['RELEASE_RULES'] == table['RELEASE_RULES']


def test_unknown_spec_shape_fails_loudly(tree, tmp_path):
    module_dir, _asked = tree
    path = tmp_path / 'apiserver/pkg/features/kube_features.go'
    path.write_text(GENERIC.replace('Default: oldDefault', 'Default: computeDefault()'))
    with pytest.raises(gen.SourceError, match='is not a boolean this generator can resolve'):
        gen.parse_release(gen.Tree('1.33.4', module_dir))


def test_missing_option_set_fails_loudly(tree, tmp_path):
    module_dir, _asked = tree
    path = tmp_path / 'kubernetes/pkg/kubelet/cm/cpumanager/policy_options.go'
    path.write_text(path.read_text().replace('betaOptions', 'someOptions'))
    with pytest.raises(gen.SourceError, match='betaOptions not found'):
        gen.parse_release(gen.Tree('1.33.4', module_dir))


@pytest.mark.parametrize('text,expected', [
    ('a := "x" // c "y"\nb', 'a := "x" \nb'),
    ('a /* c\n c */ b', 'a   b'),
    ('s := `//raw`', 's := `//raw`'),
    ('"esc\\"aped" // x', '"esc\\"aped" '),
])
def test_strip_comments(text, expected):
    assert gen.strip_comments(text) == expected


def test_config_key():
    assert gen._config_key('CPUManagerPolicyOptions') == 'cpuManagerPolicyOptions'
    assert gen._config_key('TopologyManagerPolicyOptions') == 'topologyManagerPolicyOptions'


def test_committed_table_lists_its_releases():
    assert gen.committed_releases() == ['1.31.14', '1.32.13', '1.33.13', '1.34.4', '1.35.4', '1.36.3', '1.37.2',
                                        '1.38.0-beta.0']


@pytest.mark.parametrize('release,ok', [('1.38.0-beta.0', True), ('1.38.0-rc.1', True), ('1.38.0', True),
                                        ('1.38', False), ('1.38.0-beta', False), ('v1.38.0', False)])
def test_release_names(release, ok):
    assert bool(gen.RELEASE_RE.match(release)) is ok


def test_a_pre_release_sorts_before_its_release():
    assert sorted(['1.38.0', '1.38.0-beta.0', '1.37.2', '1.38.0-alpha.3', '1.38.0-rc.1'], key=gen.release_key) == \
        ['1.37.2', '1.38.0-alpha.3', '1.38.0-beta.0', '1.38.0-rc.1', '1.38.0']
