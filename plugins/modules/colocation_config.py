#!/usr/bin/python
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: colocation_config
short_description: Create, update or delete a Volcano ColocationConfiguration
version_added: 1.0.0
author: numaops.colocation developers (@numaops)
description:
  - Manages one C(ColocationConfiguration) (C(config.volcano.sh/v1alpha1), namespaced, plural
    C(colocationconfigurations)) through the Kubernetes API.
  - The spec is validated before anything is sent (selector shape and label syntax, ratios are integers
    0-100) and the CRD's defaults (C(highRatio) 100, C(lowRatio) 0, C(minRatio) 0, only when
    O(memory_qos) is given) are applied the same way the API server applies them, so a typo is
    reported by this task, and the comparison with the live object is exact.
  - Idempotent - the object is written only when its spec (or a label or annotation given in
    O(definition)) differs from the live object. An update replaces the spec and is guarded by the
    object's C(resourceVersion), so a concurrent change is never overwritten.
  - If the ColocationConfiguration CRD is not installed the task fails and says how to install it
    (the C(numaops.colocation.colocation_controller) role).
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - numaops.colocation.k8s_auth
attributes:
  check_mode:
    support: full
    details:
      - Check mode returns, as RV(result), the object the API would store (defaults applied).
      - A create is sent as a server-side dry run, so what the API server would refuse (a namespace that does not
        exist, 404) fails check mode as it fails a real run.
  diff_mode:
    support: full
    details: The diff shows the object (metadata and spec) before and after.
  platform:
    platforms: posix
options:
  name:
    description:
      - Name of the ColocationConfiguration.
      - Required unless O(definition) has C(metadata.name).
    type: str
  namespace:
    description:
      - Namespace of the ColocationConfiguration; it applies to the pods of this namespace only.
      - Required unless O(definition) has C(metadata.namespace).
    type: str
  state:
    description:
      - V(present) creates or updates the object, V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  selector:
    description:
      - The pods this configuration applies to, as a Kubernetes LabelSelector.
      - Omitted, the configuration matches no pod (Volcano's rule); V({}) matches every pod of the namespace.
      - Mutually exclusive with O(definition).
    type: dict
    suboptions:
      matchLabels:
        description: Label keys and the values they must have.
        type: dict
      matchExpressions:
        description:
          - Requirements with C(key), C(operator) (V(In), V(NotIn), V(Exists), V(DoesNotExist)) and C(values).
        type: list
        elements: dict
  memory_qos:
    description:
      - The C(spec.memoryQos) of the configuration (cgroup v2 memory QoS ratios in percent of the limit).
      - Missing ratios get the CRD defaults. Omit the whole option for a configuration without memory QoS.
      - Mutually exclusive with O(definition).
    type: dict
    suboptions:
      highRatio:
        description: C(memory.high) as a percentage of the memory limit, an integer 0-100 (default 100).
        type: raw
      lowRatio:
        description: C(memory.low) as a percentage of the memory request, an integer 0-100 (default 0).
        type: raw
      minRatio:
        description: C(memory.min) as a percentage of the memory request, an integer 0-100 (default 0).
        type: raw
  definition:
    description:
      - A whole ColocationConfiguration object (C(apiVersion), C(kind), C(metadata), C(spec)) instead of
        O(selector) and O(memory_qos), for example from a file or a template.
      - C(metadata.labels) and C(metadata.annotations) given here are added to the object (others are kept).
    type: dict
seealso:
  - module: numaops.colocation.colocation_sync
  - module: numaops.colocation.memory_qos
  - name: Volcano colocation
    description: The ColocationConfiguration API this module manages.
    link: https://volcano.sh/
'''

EXAMPLES = r'''
- name: Memory QoS for the offline batch pods of namespace analytics
  numaops.colocation.colocation_config:
    name: batch-memory-qos
    namespace: analytics
    selector:
      matchLabels:
        volcano.sh/qos-level: offline
    memory_qos:
      highRatio: 80
      lowRatio: 10
  delegate_to: localhost

- name: The same from a manifest, with an explicit kubeconfig and context
  numaops.colocation.colocation_config:
    definition: "{{ lookup('ansible.builtin.file', 'colocation/batch.yml') | from_yaml }}"
    kubeconfig: /etc/numaops/admin.kubeconfig
    context: prod-eu1
  delegate_to: localhost

- name: Remove it
  numaops.colocation.colocation_config:
    name: batch-memory-qos
    namespace: analytics
    state: absent
  delegate_to: localhost
'''

RETURN = r'''
result:
  description:
    - The object as the API returned it after the change, or the live object when nothing changed.
    - In check mode, the object the API would store. Empty after a deletion or when the object is absent.
  returned: always
  type: dict
  sample:
    apiVersion: config.volcano.sh/v1alpha1
    kind: ColocationConfiguration
    metadata:
      name: batch-memory-qos
      namespace: analytics
      resourceVersion: "81236"
      generation: 2
      creationTimestamp: "2026-11-29T10:00:00Z"
    spec:
      selector:
        matchLabels:
          volcano.sh/qos-level: offline
      memoryQos:
        highRatio: 80
        lowRatio: 10
        minRatio: 0
diff:
  description: The object (apiVersion, kind, metadata name/namespace/labels/annotations, spec) before and after.
  returned: in diff mode (C(--diff))
  type: dict
  sample:
    before: {}
    after:
      apiVersion: config.volcano.sh/v1alpha1
      kind: ColocationConfiguration
      metadata: {name: batch-memory-qos, namespace: analytics}
      spec: {selector: {}, memoryQos: {highRatio: 80, lowRatio: 0, minRatio: 0}}
'''

import copy

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numaops.colocation.plugins.module_utils.colocation import (
    API_VERSION, GROUP, KIND, PLURAL, VERSION, ColocationConfigError, validate_spec)
from ansible_collections.numaops.colocation.plugins.module_utils.k8s import (
    ApiException, HTTP_ERRORS, api_error_message, get_api_client, k8s_argument_spec, kubernetes)

CRD_NAME = '%s.%s' % (PLURAL, GROUP)
CRD_MISSING = (
    'The %s API (%s, resource %s) is not installed in the cluster at %%s: the CustomResourceDefinition %s '
    'is missing. Install it with the numaops.colocation.colocation_controller role (it installs the CRD, '
    'the controller and the agents), or apply Volcano\'s CRD, then run this task again.' % (KIND, API_VERSION, PLURAL, CRD_NAME))
DEFINITION_METADATA = ('name', 'namespace', 'labels', 'annotations')


def fail(module, msg, **kwargs):
    module.fail_json(msg=msg, **kwargs)


def crd_installed(api, host):
    """True when the cluster serves config.volcano.sh/v1alpha1 colocationconfigurations."""
    try:
        resources = api.get_api_resources(GROUP, VERSION)
    except ApiException as exc:
        if exc.status == 404:
            return False
        raise
    return any(r.name == PLURAL for r in resources.resources or [])


def desired_from_params(module):
    params = module.params
    definition = params.get('definition')
    name, namespace = params.get('name'), params.get('namespace')
    labels, annotations = None, None
    if definition is not None:
        if params.get('selector') is not None or params.get('memory_qos') is not None:
            fail(module, 'definition cannot be combined with selector or memory_qos: put the selector and memoryQos '
                         'into definition.spec, or drop definition.')
        if definition.get('apiVersion', API_VERSION) != API_VERSION or definition.get('kind', KIND) != KIND:
            fail(module, 'definition must be a %s %s object; got apiVersion %r, kind %r.'
                 % (API_VERSION, KIND, definition.get('apiVersion'), definition.get('kind')))
        metadata = definition.get('metadata') or {}
        if not isinstance(metadata, dict):
            fail(module, 'definition.metadata must be a mapping with name and namespace.')
        extra = sorted(k for k in metadata if k not in DEFINITION_METADATA)
        if extra:
            fail(module, 'definition.metadata.%s cannot be set by this module; allowed: %s.'
                 % (extra[0], ', '.join('metadata.' + k for k in DEFINITION_METADATA)))
        for option, value in (('name', metadata.get('name')), ('namespace', metadata.get('namespace'))):
            if value is not None and params.get(option) is not None and value != params[option]:
                fail(module, '%s is %r but definition.metadata.%s is %r; give it once or make them equal.'
                     % (option, params[option], option, value))
        name = name or metadata.get('name')
        namespace = namespace or metadata.get('namespace')
        labels, annotations = metadata.get('labels'), metadata.get('annotations')
        for field, value in (('labels', labels), ('annotations', annotations)):
            if value is not None and (not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values())):
                fail(module, 'definition.metadata.%s must map keys to strings; got %r.' % (field, value))
        extra = sorted(k for k in definition if k not in ('apiVersion', 'kind', 'metadata', 'spec'))
        if extra:
            fail(module, 'definition.%s is not part of a %s; allowed: apiVersion, kind, metadata, spec.' % (extra[0], KIND))
        spec = definition.get('spec')
    else:
        spec = {}
        selector = params.get('selector')
        if selector is not None:
            spec['selector'] = dict((k, v) for k, v in selector.items() if v is not None)
        memory_qos = params.get('memory_qos')
        if memory_qos is not None:
            spec['memoryQos'] = dict((k, v) for k, v in memory_qos.items() if v is not None)
    if not name:
        fail(module, 'name is required (or definition.metadata.name).')
    if not namespace:
        fail(module, 'namespace is required (or definition.metadata.namespace): a %s applies to the pods of '
                     'its own namespace.' % KIND)
    owner = '%s/%s' % (namespace, name)
    try:
        spec = validate_spec(spec, 'spec', owner)
    except ColocationConfigError as exc:
        fail(module, '%s. Nothing was sent to the cluster.' % exc, field=exc.field, value=exc.value)
    return name, namespace, spec, labels or {}, annotations or {}


def normalised_spec(spec, owner):
    """The live spec in the validated form (falls back to the raw spec when it is not valid for us)."""
    try:
        return validate_spec(spec, 'spec', owner)
    except ColocationConfigError:
        return spec


def summary(obj):
    """The part of an object the diff shows."""
    if not obj:
        return {}
    meta = obj.get('metadata') or {}
    out = {'apiVersion': obj.get('apiVersion', API_VERSION), 'kind': obj.get('kind', KIND),
           'metadata': {'name': meta.get('name'), 'namespace': meta.get('namespace')}}
    for key in ('labels', 'annotations'):
        if meta.get(key):
            out['metadata'][key] = dict(meta[key])
    if 'spec' in obj:
        out['spec'] = copy.deepcopy(obj['spec'])
    return out


def _exit(module, **result):
    """exit_json, with the diff only in diff mode (--diff), as every module of the collection does."""
    if not module._diff:
        result.pop('diff', None)
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=k8s_argument_spec(
            name=dict(type='str'),
            namespace=dict(type='str'),
            state=dict(type='str', default='present', choices=['present', 'absent']),
            selector=dict(type='dict', options=dict(
                matchLabels=dict(type='dict'),
                matchExpressions=dict(type='list', elements='dict'),
            )),
            memory_qos=dict(type='dict', options=dict(
                highRatio=dict(type='raw'),
                lowRatio=dict(type='raw'),
                minRatio=dict(type='raw'),
            )),
            definition=dict(type='dict'),
        ),
        mutually_exclusive=[('definition', 'selector'), ('definition', 'memory_qos')],
        supports_check_mode=True,
    )
    state = module.params['state']
    name, namespace, spec, labels, annotations = desired_from_params(module)
    owner = '%s/%s' % (namespace, name)

    api_client = get_api_client(module)
    host = api_client.configuration.host
    api = kubernetes.client.CustomObjectsApi(api_client)
    action = 'Reading %s %s' % (KIND, owner)
    try:
        if not crd_installed(api, host):
            if state == 'absent':
                _exit(module, changed=False, result={}, diff={'before': {}, 'after': {}},
                      msg='The %s CRD is not installed, so %s does not exist.' % (KIND, owner))
            fail(module, CRD_MISSING % host)
        try:
            existing = api.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name)
        except ApiException as exc:
            if exc.status != 404:
                raise
            existing = None

        if state == 'absent':
            if existing is None:
                _exit(module, changed=False, result={}, diff={'before': {}, 'after': {}})
            action = 'Deleting %s %s' % (KIND, owner)
            if not module.check_mode:
                try:
                    api.delete_namespaced_custom_object(
                        GROUP, VERSION, namespace, PLURAL, name,
                        body={'preconditions': {'uid': existing['metadata']['uid']}})
                except ApiException as exc:
                    if exc.status != 404:
                        raise
            _exit(module, changed=True, result={}, diff={'before': summary(existing), 'after': {}})

        if existing is None:
            body = {'apiVersion': API_VERSION, 'kind': KIND,
                    'metadata': {'name': name, 'namespace': namespace}, 'spec': spec}
            if labels:
                body['metadata']['labels'] = dict(labels)
            if annotations:
                body['metadata']['annotations'] = dict(annotations)
            action = 'Creating %s %s' % (KIND, owner)
            # check mode asks the API server for a dry run, so that what a real create would refuse (a namespace
            # that does not exist: 404, admission, validation) fails check mode the same way
            result = api.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, body,
                                                         dry_run='All' if module.check_mode else None)
            _exit(module, changed=True, result=result, diff={'before': {}, 'after': summary(result)})

        meta = existing.get('metadata') or {}
        current_spec = normalised_spec(existing.get('spec'), owner)
        new_labels = dict(meta.get('labels') or {}, **labels)
        new_annotations = dict(meta.get('annotations') or {}, **annotations)
        if current_spec == spec and new_labels == (meta.get('labels') or {}) \
                and new_annotations == (meta.get('annotations') or {}):
            _exit(module, changed=False, result=existing, diff={'before': summary(existing), 'after': summary(existing)})
        body = copy.deepcopy(existing)
        body['spec'] = spec
        if new_labels:
            body['metadata']['labels'] = new_labels
        if new_annotations:
            body['metadata']['annotations'] = new_annotations
        action = 'Updating %s %s' % (KIND, owner)
        result = body
        if not module.check_mode:
            # PUT with the live resourceVersion: a concurrent change gets 409 instead of being overwritten
            result = api.replace_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name, body)
        _exit(module, changed=True, result=result, diff={'before': summary(existing), 'after': summary(result)})
    except ApiException as exc:
        msg = api_error_message(exc, action)
        if exc.status == 409:
            msg += ' The object was changed by someone else meanwhile; run the task again.'
        fail(module, msg, status=exc.status)
    except HTTP_ERRORS as exc:
        fail(module, api_error_message(exc, action + ' at %s' % host))


if __name__ == '__main__':
    main()
