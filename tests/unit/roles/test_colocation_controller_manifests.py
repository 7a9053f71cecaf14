# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The manifests the colocation_controller role renders, checked against the Kubernetes schemas.

The role's templates are rendered by ansible-playbook itself (``tasks_from: render``), for several
variable sets, and every object is validated with kubernetes-validate (the Kubernetes OpenAPI
schemas as JSON Schema, shipped offline in the PyPI package, strict: unknown fields are errors)
for the Kubernetes versions listed below. ColocationConfiguration objects are validated against the
CRD's own openAPIV3Schema (types, bounds, defaults) with jsonschema, and the CRD schema is checked
to be structural the way the API server requires.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.numaops.colocation.tests.unit.unit_stage import only_here

# ansible-test's environment has only tests/unit/requirements.txt; the unit stage always has these
# (tests/requirements-dev.txt): there a missing one is a failure, never a skip
pytestmark = only_here('needs jsonschema and kubernetes-validate, and runs ansible-playbook')

# pylint: disable=wrong-import-position
import jsonschema  # noqa: E402
import kubernetes_validate  # noqa: E402

from ansible_collections.numaops.colocation.tests.unit import playbooks  # noqa: E402

KUBERNETES_VERSIONS = ['1.28.0', '1.30.0', '1.32.0', '1.34.0']

VARIABLE_SETS = {
    'defaults': {},
    'everything': {
        'colocation_controller_namespace': 'colo-system',
        'colocation_controller_image_registry': 'mirror.example.internal:5000',
        'colocation_controller_image_tag': 'v1.14.1',
        'colocation_controller_agent_image_tag': 'v1.14.1-hotfix',
        'colocation_controller_image_pull_policy': 'Always',
        'colocation_controller_image_pull_secrets': ['mirror-creds'],
        'colocation_controller_controller_replicas': 2,
        'colocation_controller_controller_node_selector': {'node-role.kubernetes.io/control-plane': ''},
        'colocation_controller_controller_tolerations': [
            {'key': 'node-role.kubernetes.io/control-plane', 'operator': 'Exists', 'effect': 'NoSchedule'}],
        'colocation_controller_agent_node_selector': {'volcano.sh/colocation': 'true'},
        'colocation_controller_agent_max_unavailable': 1,
        'colocation_controller_agent_network_qos': True,
        'colocation_controller_agent_oversubscription': True,
        'colocation_controller_agent_eviction': True,
        'colocation_controller_agent_cpu_burst': True,
        'colocation_controller_agent_config_overrides': {
            'globalConfig': {'evictingConfig': {'evictingMemoryHighWatermark': 70}}},
        'colocation_controller_extra_labels': {'team': 'platform'},
        'colocation_controller_agent_extend_resource_memory_name': 'example.com/batch-memory',
        'colocation_controller_agent_kube_cgroup_root': '/kubelet',
        'colocation_controller_agent_cgroup_driver': 'systemd',
        'colocation_controller_agent_extra_features': ['CPUThrottle', 'Eviction'],
        'colocation_controller_kubernetes_service_host': '10.0.2.2',
        'colocation_controller_kubernetes_service_port': 6443,
    },
    'agent_only_no_namespace': {
        'colocation_controller_deploy_controller': False,
        'colocation_controller_manage_namespace': False,
        'colocation_controller_install_crd': False,
        'colocation_controller_image_registry': '',
        'colocation_controller_controller_priority_class_name': '',
        'colocation_controller_agent_priority_class_name': '',
    },
}

PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Render
      ansible.builtin.include_role:
        name: numaops.colocation.colocation_controller
        tasks_from: render
    - name: Write
      ansible.builtin.copy:
        content: "{{ colocation_controller_manifests | to_json }}"
        dest: "{{ out }}"
        mode: "0600"
"""


def render(tmp_path, extra_vars):
    playbook = shutil.which('ansible-playbook', path=os.path.dirname(sys.executable)) or shutil.which('ansible-playbook')
    if not playbook:
        playbooks.missing('ansible-playbook is not installed', 'scripts/lib.sh ensure_venv installs it')
    (tmp_path / 'render.yml').write_text(PLAYBOOK)
    out = tmp_path / 'manifests.json'
    (tmp_path / 'vars.json').write_text(json.dumps(dict(extra_vars, out=str(out), ansible_python_interpreter=sys.executable)))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=playbooks.collections_path(), ANSIBLE_NOCOLOR='1',
               ANSIBLE_LOCALHOST_WARNING='0', ANSIBLE_INVENTORY_UNPARSED_WARNING='0')
    proc = subprocess.run([playbook, '-i', 'localhost,', '-c', 'local', str(tmp_path / 'render.yml'),
                           '-e', '@' + str(tmp_path / 'vars.json')],
                          env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


@pytest.fixture(scope='module', name='rendered')
def rendered_fixture(tmp_path_factory):
    result = {}
    for name, extra_vars in VARIABLE_SETS.items():
        result[name] = render(tmp_path_factory.mktemp(name), extra_vars)
    return result


def _by_kind(objects, kind):
    return [o for o in objects if o['kind'] == kind]


def _one(objects, kind, name=None):
    found = [o for o in _by_kind(objects, kind) if name is None or o['metadata']['name'] == name]
    assert len(found) == 1, (kind, name, [o['metadata']['name'] for o in objects])
    return found[0]


@pytest.mark.parametrize('version', KUBERNETES_VERSIONS)
@pytest.mark.parametrize('variables', sorted(VARIABLE_SETS))
def test_every_object_is_valid_for_kubernetes(rendered, variables, version):
    objects = rendered[variables]
    assert objects
    for obj in objects:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail('%s %s is not valid for Kubernetes %s: %s at %s' % (
                obj['kind'], obj['metadata']['name'], version, exc.message, list(exc.path)))


def test_apply_order_and_default_objects(rendered):
    kinds = [(o['kind'], o['metadata']['name']) for o in rendered['defaults']]
    assert kinds == [
        ('CustomResourceDefinition', 'colocationconfigurations.config.volcano.sh'),
        ('Namespace', 'volcano-system'),
        ('ServiceAccount', 'volcano-colocation-controller'),
        ('ClusterRole', 'volcano-colocation-controller'),
        ('ClusterRoleBinding', 'volcano-colocation-controller'),
        ('Role', 'volcano-colocation-controller-leader-election'),
        ('RoleBinding', 'volcano-colocation-controller-leader-election'),
        ('Deployment', 'volcano-colocation-controller'),
        ('ServiceAccount', 'volcano-agent'),
        ('ClusterRole', 'volcano-agent'),
        ('ClusterRoleBinding', 'volcano-agent'),
        ('Role', 'volcano-agent-config'),
        ('RoleBinding', 'volcano-agent-config'),
        ('ConfigMap', 'volcano-agent-configuration'),
        ('DaemonSet', 'volcano-agent'),
    ]
    for obj in rendered['defaults']:
        assert obj['metadata']['labels']['app.kubernetes.io/managed-by'] == 'numaops.colocation'
        if obj['kind'] not in ('CustomResourceDefinition', 'Namespace', 'ClusterRole', 'ClusterRoleBinding'):
            assert obj['metadata']['namespace'] == 'volcano-system'


def test_subset_when_controller_crd_and_namespace_are_not_managed(rendered):
    kinds = {o['kind'] for o in rendered['agent_only_no_namespace']}
    assert kinds == {'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ConfigMap', 'DaemonSet'}
    agent = _one(rendered['agent_only_no_namespace'], 'DaemonSet')
    assert agent['spec']['template']['spec']['containers'][0]['image'] == 'volcanosh/vc-agent:v1.15.0'
    assert 'priorityClassName' not in agent['spec']['template']['spec']


def _rules(role):
    return {(group, resource): sorted(rule['verbs'])
            for rule in role['rules'] for group in rule['apiGroups'] for resource in rule['resources']}


def test_controller_rbac_is_least_privilege(rendered):
    rules = _rules(_one(rendered['defaults'], 'ClusterRole', 'volcano-colocation-controller'))
    assert rules == {
        ('', 'pods'): ['get', 'list', 'patch', 'update', 'watch'],
        ('config.volcano.sh', 'colocationconfigurations'): ['get', 'list', 'watch'],
        ('config.volcano.sh', 'colocationconfigurations/status'): ['get', 'patch', 'update'],
        ('', 'events'): ['create', 'patch', 'update'],
        ('events.k8s.io', 'events'): ['create', 'patch', 'update'],
    }
    lease = _rules(_one(rendered['defaults'], 'Role', 'volcano-colocation-controller-leader-election'))
    assert lease == {('coordination.k8s.io', 'leases'): ['create', 'get', 'list', 'patch', 'update', 'watch']}
    for obj in rendered['defaults']:
        for rule in obj.get('rules', []):
            assert '*' not in rule['verbs'] and '*' not in rule['resources'] and '*' not in rule['apiGroups']


def test_agent_rbac_follows_the_features(rendered):
    default = _rules(_one(rendered['defaults'], 'ClusterRole', 'volcano-agent'))
    assert default == {
        ('', 'nodes'): ['get', 'list', 'watch'],
        ('', 'pods'): ['get', 'list', 'watch'],
        ('', 'events'): ['create', 'patch', 'update'],
    }
    assert _rules(_one(rendered['defaults'], 'Role', 'volcano-agent-config')) == {('', 'configmaps'): ['get', 'list', 'watch']}
    everything = _one(rendered['everything'], 'ClusterRole', 'volcano-agent')['rules']
    assert {'apiGroups': [''], 'resources': ['nodes', 'nodes/status'], 'verbs': ['update', 'patch']} in everything
    assert {'apiGroups': [''], 'resources': ['pods/eviction'], 'verbs': ['create']} in everything


def test_images_registry_and_pull_secrets(rendered):
    objects = rendered['everything']
    controller = _one(objects, 'Deployment')['spec']['template']['spec']
    agent = _one(objects, 'DaemonSet')['spec']['template']['spec']
    assert controller['containers'][0]['image'] == 'mirror.example.internal:5000/volcanosh/vc-controller-manager:v1.14.1'
    assert agent['containers'][0]['image'] == 'mirror.example.internal:5000/volcanosh/vc-agent:v1.14.1-hotfix'
    assert agent['initContainers'][0]['image'] == agent['containers'][0]['image']
    assert controller['imagePullSecrets'] == [{'name': 'mirror-creds'}] == agent['imagePullSecrets']
    assert controller['containers'][0]['imagePullPolicy'] == 'Always'
    default = _one(rendered['defaults'], 'Deployment')['spec']['template']['spec']
    assert default['containers'][0]['image'] == 'docker.io/volcanosh/vc-controller-manager:v1.15.0'
    assert 'imagePullSecrets' not in default


def test_controller_runs_only_the_colocation_controller(rendered):
    args = _one(rendered['defaults'], 'Deployment')['spec']['template']['spec']['containers'][0]['args']
    assert '--controllers=+colocation-config-controller' in args
    assert '--leader-elect=false' in args
    args = _one(rendered['everything'], 'Deployment')['spec']['template']['spec']['containers'][0]['args']
    assert '--leader-elect=true' in args and '--leader-elect-resource-namespace=colo-system' in args


def test_agent_config_enables_memory_qos_v2(rendered):
    # Volcano v1.14.1 / v1.15.0 pkg/agent/config/api/types.go: memoryQosV2Config (configKey MemoryQoSV2) is
    # memory QoS v2 (cgroup v2 memory.high/low/min); memoryQosConfig is v1 (openEuler memory.qos_level).
    config = json.loads(_one(rendered['defaults'], 'ConfigMap')['data']['colocation-config'])
    assert config['globalConfig']['memoryQosV2Config'] == {'enable': True}
    assert config['globalConfig']['memoryQosConfig'] == {'enable': False}
    assert config['globalConfig']['networkQosConfig']['enable'] is False
    assert config['globalConfig']['overSubscriptionConfig'] == {'enable': False, 'overSubscriptionTypes': 'cpu,memory'}
    assert 'nodeLabelConfig' not in config['globalConfig']
    config = json.loads(_one(rendered['everything'], 'ConfigMap')['data']['colocation-config'])
    assert config['globalConfig']['memoryQosV2Config'] == {'enable': True}
    assert config['globalConfig']['cpuBurstConfig'] == {'enable': True}
    # the override is merged into Volcano's default watermarks, the others stay
    assert config['globalConfig']['evictingConfig'] == {
        'evictingCPUHighWatermark': 80, 'evictingMemoryHighWatermark': 70,
        'evictingCPULowWatermark': 30, 'evictingMemoryLowWatermark': 30}


@pytest.mark.parametrize('variables', sorted(VARIABLE_SETS))
def test_agent_config_is_not_rewritten_by_the_agent(rendered, variables):
    # Volcano v1.15.0 pkg/agent/config/configmgr.go updateConfigMap: at start the agent updates its ConfigMap
    # when globalConfig has no overSubscriptionConfig or no evictingConfig (and fails on a missing
    # globalConfig); our Role lets it only read configmaps, so the update would be refused and the agent exit.
    # The name and key are pkg/agent/config/utils/utils.go ConfigMapName / ColocationConfigKey.
    configmap = _one(rendered[variables], 'ConfigMap', 'volcano-agent-configuration')
    config = json.loads(configmap['data']['colocation-config'])
    assert config['globalConfig']['overSubscriptionConfig'] is not None
    assert set(config['globalConfig']['evictingConfig']) == {
        'evictingCPUHighWatermark', 'evictingMemoryHighWatermark', 'evictingCPULowWatermark', 'evictingMemoryLowWatermark'}


def _agent_container(objects):
    return _one(objects, 'DaemonSet')['spec']['template']['spec']['containers'][0]


def test_agent_supported_features(rendered):
    # Volcano v1.15.0 cmd/agent/app/options/options.go: --supported-features defaults to
    # OverSubscription,Eviction,Resources; pkg/agent/events/eventsmgr.go registers a handler only when
    # config.IsFeatureSupported(handler name); the v2 handler's name is features.MemoryQoSV2Feature,
    # "MemoryQoSV2" (pkg/agent/features/feature.go, pkg/agent/events/handlers/memoryqosv2).
    args = _agent_container(rendered['defaults'])['args']
    assert '--supported-features=MemoryQoSV2' in args
    assert not [a for a in args if a.startswith(('--extend-resource', '--kube-cgroup-root'))]
    assert 'CGROUP_DRIVER' not in {e['name'] for e in _agent_container(rendered['defaults'])['env']}
    container = _agent_container(rendered['everything'])
    features = [a for a in container['args'] if a.startswith('--supported-features=')]
    assert features == ['--supported-features=MemoryQoSV2,CPUBurst,NetworkQoS,OverSubscription,Resources,Eviction,CPUThrottle']


def test_agent_flags_and_cgroup_driver(rendered):
    # cmd/agent/app/options/options.go: --extend-resource-memory-name, --extend-resource-cpu-name,
    # --kube-cgroup-root; pkg/agent/utils/cgroup/cgroup.go GetCgroupDriver reads CGROUP_DRIVER first.
    container = _agent_container(rendered['everything'])
    assert '--extend-resource-memory-name=example.com/batch-memory' in container['args']
    assert '--kube-cgroup-root=/kubelet' in container['args']
    assert {'name': 'CGROUP_DRIVER', 'value': 'systemd'} in container['env']
    # the kubelet's config.yaml and kubeadm-flags.env, which the agent reads next, are mounted where it looks
    assert {'name': 'kubelet-root', 'mountPath': '/var/lib/kubelet', 'readOnly': True} in container['volumeMounts']


def test_kubernetes_service_override(rendered):
    # client-go rest.InClusterConfig reads KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT; the kubelet's
    # service variables come first in a container's environment and the container's own env replaces them
    # (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables)
    override = [{'name': 'KUBERNETES_SERVICE_HOST', 'value': '10.0.2.2'},
                {'name': 'KUBERNETES_SERVICE_PORT', 'value': '6443'}]
    for name in ('defaults', 'everything'):
        deployment = _one(rendered[name], 'Deployment')['spec']['template']['spec']['containers'][0]
        agent = _agent_container(rendered[name])
        for container in (deployment, agent):
            env = [e for e in container.get('env', []) if e['name'].startswith('KUBERNETES_SERVICE_')]
            assert env == (override if name == 'everything' else []), (name, container['name'], env)


def test_agent_host_access_follows_network_qos(rendered):
    default = _one(rendered['defaults'], 'DaemonSet')['spec']['template']['spec']
    assert 'initContainers' not in default
    assert {v['name'] for v in default['volumes']} == {'host-sys-fs', 'host-proc-sys', 'proc-stat', 'proc-meminfo',
                                                       'kubelet-root', 'localtime'}
    assert default['containers'][0]['securityContext'] == {'privileged': True}
    everything = _one(rendered['everything'], 'DaemonSet')['spec']['template']['spec']
    assert {v['name'] for v in everything['volumes']} >= {'host-etc', 'cni-plugin-dir', 'bwm-dir'}
    assert everything['nodeSelector'] == {'volcano.sh/colocation': 'true'}


def test_namespace_admits_the_privileged_agent(rendered):
    labels = _one(rendered['defaults'], 'Namespace')['metadata']['labels']
    assert labels['pod-security.kubernetes.io/enforce'] == 'privileged'
    assert _one(rendered['everything'], 'Namespace')['metadata']['labels']['team'] == 'platform'


def _walk_structural(schema, path):
    """The API server's structural-schema rules that matter here: every node has a type."""
    assert 'type' in schema or schema.get('x-kubernetes-int-or-string') or schema.get('x-kubernetes-preserve-unknown-fields'), path
    for name, sub in schema.get('properties', {}).items():
        _walk_structural(sub, path + '.' + name)
    if isinstance(schema.get('items'), dict):
        _walk_structural(schema['items'], path + '[]')
    if isinstance(schema.get('additionalProperties'), dict):
        _walk_structural(schema['additionalProperties'], path + '{}')


def _crd_schema(rendered):
    crd = _one(rendered['defaults'], 'CustomResourceDefinition')
    assert crd['spec']['group'] == 'config.volcano.sh' and crd['spec']['scope'] == 'Namespaced'
    assert crd['spec']['names']['plural'] == 'colocationconfigurations'
    (version,) = crd['spec']['versions']
    assert version['name'] == 'v1alpha1' and version['served'] and version['storage']
    return version['schema']['openAPIV3Schema']


def test_crd_schema_is_structural_with_bounds_and_defaults(rendered):
    schema = _crd_schema(rendered)
    _walk_structural(schema, 'openAPIV3Schema')
    memory_qos = schema['properties']['spec']['properties']['memoryQos']['properties']
    assert {k: (v['type'], v['default'], v['minimum'], v['maximum']) for k, v in memory_qos.items()} == {
        'highRatio': ('integer', 100, 0, 100),
        'lowRatio': ('integer', 0, 0, 100),
        'minRatio': ('integer', 0, 0, 100),
    }
    selector = schema['properties']['spec']['properties']['selector']
    assert set(selector['properties']) == {'matchLabels', 'matchExpressions'}
    assert selector['properties']['matchExpressions']['items']['required'] == ['key', 'operator']


def _with_defaults(schema, obj):
    """Apply the schema's defaults the way the API server does (only inside objects that exist)."""
    obj = copy.deepcopy(obj)

    def walk(node, value):
        if not isinstance(value, dict):
            return
        for name, sub in node.get('properties', {}).items():
            if name not in value and 'default' in sub:
                value[name] = copy.deepcopy(sub['default'])
            if name in value:
                walk(sub, value[name])
    walk(schema, obj)
    return obj


def _config(spec):
    return {'apiVersion': 'config.volcano.sh/v1alpha1', 'kind': 'ColocationConfiguration',
            'metadata': {'name': 'c', 'namespace': 'default'}, 'spec': spec}


@pytest.mark.parametrize('spec, valid', [
    ({'selector': {'matchLabels': {'app': 'offline'}}, 'memoryQos': {'highRatio': 80, 'lowRatio': 20, 'minRatio': 10}}, True),
    ({'selector': {}, 'memoryQos': {}}, True),
    ({'selector': {'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['batch']}]}}, True),
    ({'memoryQos': {'highRatio': 101}}, False),
    ({'memoryQos': {'lowRatio': -1}}, False),
    ({'memoryQos': {'minRatio': '10'}}, False),
    ({'memoryQos': {'highRatio': 50.5}}, False),
    ({'selector': {'matchLabels': {'app': 1}}}, False),
    ({'selector': {'matchExpressions': [{'operator': 'Exists'}]}}, False),
])
def test_colocation_configurations_against_the_crd_schema(rendered, spec, valid):
    schema = _crd_schema(rendered)
    errors = list(jsonschema.Draft4Validator(schema).iter_errors(_config(spec)))
    assert (not errors) == valid, [e.message for e in errors]


def test_crd_defaults_apply_only_inside_memory_qos(rendered):
    schema = _crd_schema(rendered)
    assert _with_defaults(schema, _config({'memoryQos': {'lowRatio': 30}}))['spec']['memoryQos'] == {
        'highRatio': 100, 'lowRatio': 30, 'minRatio': 0}
    assert 'memoryQos' not in _with_defaults(schema, _config({'selector': {}}))['spec']


# ---------------------------------------------------------------- the agent's own reading of its ConfigMap
AGENTCONFIG_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'volcano', 'agentconfig')


def _agentconfig_binary():
    """Build tests/volcano/agentconfig (our Go program on Volcano's own agent config types) once per source."""
    go = shutil.which('go')
    if not go:
        playbooks.missing('go is not installed: tests/volcano/agentconfig reads the ConfigMap with Volcano\'s Go types',
                          'install Go (scripts/upstream.sh needs it too)')
    digest = hashlib.sha256()
    for name in ('go.mod', 'go.sum', 'main.go'):
        with open(os.path.join(AGENTCONFIG_SOURCE, name), 'rb') as handle:
            digest.update(handle.read())
    cache = os.path.join(os.path.expanduser('~'), '.cache', 'numaops-colocation', 'go-tools')
    binary = os.path.join(cache, 'agentconfig-' + digest.hexdigest()[:16])
    if not os.access(binary, os.X_OK):
        os.makedirs(cache, exist_ok=True)
        proc = subprocess.run(['nice', '-n', '10', go, 'build', '-mod=readonly', '-o', binary + '.partial', '.'],
                              cwd=AGENTCONFIG_SOURCE, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, 'building tests/volcano/agentconfig failed:\n' + proc.stdout + proc.stderr
        os.replace(binary + '.partial', binary)
    return binary


def _agent_reports(tmp_path, documents):
    binary = _agentconfig_binary()
    paths = []
    for name, text in documents.items():
        path = tmp_path / ('%s.json' % name)
        path.write_text(text)
        paths.append(str(path))
    proc = subprocess.run([binary] + paths, capture_output=True, text=True, check=False)
    reports = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(reports) == len(paths), proc.stdout + proc.stderr
    return dict(zip(documents, reports))


def test_agent_reads_our_configmap_with_volcanos_types(rendered, tmp_path):
    # tests/volcano/agentconfig unmarshals the document into Volcano v1.15.0's api.VolcanoAgentConfig
    # (pkg/agent/config/api/types.go) as pkg/agent/config/configmgr.go does, applies its rewrite rule,
    # merges it over DefaultColocationConfig like pkg/agent/config/utils MergerCfg and runs Validate()
    # (pkg/agent/config/api/validate.go). Every variable set must decode without unknown keys, not be
    # rewritten, validate, and switch memory QoS v2 on.
    documents = dict((name, _one(objects, 'ConfigMap')['data']['colocation-config'])
                     for name, objects in rendered.items())
    # A document in the older shape (the v1 key, no evictingConfig), as a node may still hold: the agent rewrites it.
    documents['older_shape'] = json.dumps({'globalConfig': {
        'memoryQosConfig': {'enable': True}, 'overSubscriptionConfig': {'enable': False}}})
    reports = _agent_reports(tmp_path, documents)
    before = reports.pop('older_shape')
    assert before['would_rewrite'] and before['rewrite_reason'] == ['globalConfig.evictingConfig is missing']
    assert before['memory_qos_v2'] is False and before['memory_qos_v1'] is True
    for name, report in reports.items():
        assert 'decode_error' not in report, (name, report)
        assert 'unknown_fields' not in report, (name, report)
        assert report['would_rewrite'] is False, (name, report)
        assert report['validation_errors'] == [], (name, report)
        assert report['memory_qos_v2'] is True and report['memory_qos_v1'] is False, (name, report)


def test_agent_config_checker_sees_volcano_validation_errors(tmp_path):
    # validate.go: low watermark above high is refused; a typo is an unknown field (the agent ignores it
    # silently; the checker reports it); Go's encoding/json matches keys case-insensitively, so
    # memoryQosV2config is memoryQosV2Config to the agent.
    base = {'overSubscriptionConfig': {'enable': False},
            'evictingConfig': {'evictingCPUHighWatermark': 20, 'evictingCPULowWatermark': 30}}
    reports = _agent_reports(tmp_path, {
        'watermarks': json.dumps({'globalConfig': base}),
        'typo': json.dumps({'globalConfig': dict(base, memoryQosV3Config={'enable': True})}),
        'case': json.dumps({'globalConfig': dict(base, memoryQosV2config={'enable': True})}),
        'no_global': json.dumps({'nodesConfig': []}),
    })
    assert reports['watermarks']['validation_errors'] == [
        'globalConfig: cpu evicting low watermark is higher than high watermark']
    assert 'memoryQosV3Config' in reports['typo']['unknown_fields']
    assert reports['typo']['memory_qos_v2'] is False
    assert 'unknown_fields' not in reports['case'] and reports['case']['memory_qos_v2'] is True
    assert 'globalConfig is missing' in reports['no_global']['decode_error']


# ---------------------------------------------------------------- node labels and foreign objects (templates)
TEMPLATE_PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  vars_files:
    - {role}/vars/main.yml
  tasks:
    - name: Evaluate
      ansible.builtin.copy:
        content: "{{{{ lookup('ansible.builtin.template', '{role}/templates/' ~ template) | from_yaml | to_json }}}}"
        dest: "{{{{ out }}}}"
        mode: "0600"
"""


def _template(tmp_path, template, variables):
    playbook = shutil.which('ansible-playbook', path=os.path.dirname(sys.executable)) or shutil.which('ansible-playbook')
    role = os.path.join(playbooks.collections_path(), 'ansible_collections', 'numaops', 'colocation', 'roles', 'colocation_controller')
    (tmp_path / 'play.yml').write_text(TEMPLATE_PLAYBOOK.format(role=role))
    out = tmp_path / 'out.json'
    (tmp_path / 'vars.json').write_text(json.dumps(dict(variables, template=template, out=str(out))))
    proc = subprocess.run([playbook, '-i', 'localhost,', '-c', 'local', str(tmp_path / 'play.yml'),
                           '-e', '@' + str(tmp_path / 'vars.json'), '-e', 'ansible_python_interpreter=' + sys.executable],
                          env=dict(os.environ, ANSIBLE_NOCOLOR='1', ANSIBLE_LOCALHOST_WARNING='0'),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


MARK = 'numaops.colocation/colocation-label-before'
LABEL = 'volcano.sh/colocation'


def _node(name, label=None, mark=None):
    meta = {'name': name, 'labels': {'kubernetes.io/hostname': name}, 'annotations': {}}
    if label is not None:
        meta['labels'][LABEL] = label
    if mark is not None:
        meta['annotations'][MARK] = mark
    return {'metadata': meta}


NODES = [
    _node('a'),                           # unlabelled
    _node('b', label='true'),             # labelled by an administrator
    _node('c', label='true', mark=''),    # labelled by us, label absent before
    _node('d', label='true', mark='false'),  # labelled by us, label was "false" before
    _node('e', label='false'),            # an administrator said false
    _node('f', label='false', mark=''),   # labelled by us, someone set false since
    _node('g'),                           # selected by the selector only
]


@pytest.mark.parametrize('state,wanted,selected,expected', [
    ('present', ['a', 'b', 'd', 'e', 'f'], ['g'],
     {'label': [{'name': 'a', 'before': ''}, {'name': 'e', 'before': 'false'}, {'name': 'f', 'before': ''},
                {'name': 'g', 'before': ''}],
      'restore': [{'name': 'c', 'before': ''}], 'missing': []}),
    ('present', [], [], {'label': [], 'restore': [{'name': 'c', 'before': ''}, {'name': 'd', 'before': 'false'},
                                                  {'name': 'f', 'before': ''}], 'missing': []}),
    ('present', ['a', 'zz', 'yy'], [], {'label': [{'name': 'a', 'before': ''}],
                                        'restore': [{'name': 'c', 'before': ''}, {'name': 'd', 'before': 'false'},
                                                    {'name': 'f', 'before': ''}], 'missing': ['yy', 'zz']}),
    # state=absent gives back every node the role labelled, whatever the lists say
    ('absent', ['a', 'c'], ['g'], {'label': [], 'restore': [{'name': 'c', 'before': ''}, {'name': 'd', 'before': 'false'},
                                                            {'name': 'f', 'before': ''}], 'missing': []}),
])
def test_node_label_changes(tmp_path, state, wanted, selected, expected):
    variables = {'colocation_controller_state': state, 'colocation_controller_label_nodes': wanted,
                 '_colocation_controller_all_nodes': {'resources': NODES},
                 '_colocation_controller_selected_nodes': {'resources': [n for n in NODES if n['metadata']['name'] in selected]}}
    assert _template(tmp_path, 'node_changes.j2', variables) == expected


def _existing(*pairs):
    return {'results': [{'item': want, 'resources': [have] if have else []} for want, have in pairs]}


def test_foreign_objects_helm_and_selector(tmp_path):
    # installer/helm/chart/volcano/templates/agent.yaml (v1.15.0): DaemonSet <release>-agent with selector
    # name=volcano-agent; Helm marks what it installs with app.kubernetes.io/managed-by=Helm and
    # meta.helm.sh/release-name / release-namespace.
    ours = {'apiVersion': 'apps/v1', 'kind': 'DaemonSet', 'metadata': {'name': 'volcano-agent', 'namespace': 'volcano-system'},
            'spec': {'selector': {'matchLabels': {'app': 'volcano-agent'}}}}
    sa = {'apiVersion': 'v1', 'kind': 'ServiceAccount', 'metadata': {'name': 'volcano-agent', 'namespace': 'volcano-system'}}
    crd = {'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'CustomResourceDefinition',
           'metadata': {'name': 'colocationconfigurations.config.volcano.sh'}}
    helm_meta = {'labels': {'app.kubernetes.io/managed-by': 'Helm'},
                 'annotations': {'meta.helm.sh/release-name': 'volcano', 'meta.helm.sh/release-namespace': 'volcano-system'}}
    found = _template(tmp_path, 'foreign_objects.j2', {'_colocation_controller_existing': _existing(
        (crd, {'metadata': dict(helm_meta, name=crd['metadata']['name'])}),
        (sa, {'metadata': {'name': 'volcano-agent', 'annotations': {'meta.helm.sh/release-name': 'v2'}}}),
        (ours, {'metadata': {'name': 'volcano-agent', 'labels': {'app.kubernetes.io/managed-by': 'numaops.colocation'}},
                'spec': {'selector': {'matchLabels': {'name': 'volcano-agent'}}}}),
    )})
    assert found == [
        'CustomResourceDefinition colocationconfigurations.config.volcano.sh: installed by Helm release volcano (namespace volcano-system)',
        'ServiceAccount volcano-system/volcano-agent: installed by Helm release v2 (namespace ?)',
        'DaemonSet volcano-system/volcano-agent: exists with spec.selector {"matchLabels": {"name": "volcano-agent"}} '
        '(ours is {"matchLabels": {"app": "volcano-agent"}}; a selector cannot be changed)',
    ]
    # our own objects, absent objects and objects without Helm's marks with our selector pass
    assert _template(tmp_path, 'foreign_objects.j2', {'_colocation_controller_existing': _existing(
        (ours, {'metadata': {'name': 'volcano-agent'}, 'spec': {'selector': {'matchLabels': {'app': 'volcano-agent'}}}}),
        (sa, None), (crd, {'metadata': {'name': crd['metadata']['name'], 'labels': None, 'annotations': None}}),
    )}) == []
