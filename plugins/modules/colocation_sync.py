#!/usr/bin/python
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: colocation_sync
short_description: One reconcile pass of Volcano's colocation controller over the pods of a cluster
version_added: 1.0.0
author: numaops.colocation developers (@numaops)
description:
  - Does what Volcano's colocation controller does, once - for clusters without that controller, for
    AWX schedules, and to repair drift.
  - For every pod in O(namespaces) (all namespaces when empty) that O(label_selector) selects, the winning
    C(ColocationConfiguration) is chosen - configurations of the pod's own namespace, newest
    C(creationTimestamp) first (ties by name), the first whose selector matches the pod's labels - and
    the pod annotations C(volcano.sh/colocation-config-name) (its name) and C(volcano.sh/colocation-config)
    (its spec without the selector, as JSON) are set. The JSON is byte for byte what Volcano's
    controller writes (compact, ratios of 0 left out, as in V({"memoryQos":{"highRatio":80}})).
  - A pod that carries either annotation but matches no configuration any more gets
    C(volcano.sh/colocation-config) set to V({}) and loses C(volcano.sh/colocation-config-name); that
    reset tells the node agents (and M(numaops.colocation.memory_qos)) to restore C(memory.high=max),
    C(memory.low=0), C(memory.min=0).
  - The configuration annotation is compared as parsed JSON, so an equal configuration written with
    other spacing, key order or zero ratios (as earlier releases of this module wrote it) is not
    rewritten.
  - Only the two annotations are changed, with a JSON merge patch that carries the pod's
    C(resourceVersion); a pod changed meanwhile is read again and re-evaluated, a pod deleted meanwhile
    is skipped. Pods are never replaced or restarted.
  - A configuration that the cluster holds but that is not valid (for example an unknown selector
    operator) is skipped with a warning, as Volcano's controller cannot use it either.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - numaops.colocation.k8s_auth
attributes:
  check_mode:
    support: full
    details: Check mode lists exactly the pods and annotations a real run would change, and changes nothing.
  diff_mode:
    support: full
    details: The diff shows the colocation annotations of every changed pod before and after.
  platform:
    platforms: posix
options:
  namespaces:
    description:
      - The namespaces whose pods are reconciled. Empty (the default) means every namespace.
      - A namespace that does not exist fails the task before anything is changed.
    type: list
    elements: str
    default: []
  label_selector:
    description:
      - Limits the pods that are looked at, as a Kubernetes label selector string
        (for example V(app=batch,tier!=web)).
      - Pods outside it are left alone, whatever configuration matches them. All configurations are
        still considered for the selected pods.
    type: str
seealso:
  - module: numaops.colocation.colocation_config
  - module: numaops.colocation.memory_qos
'''

EXAMPLES = r'''
- name: Repair the colocation annotations of the analytics and etl namespaces
  numaops.colocation.colocation_sync:
    namespaces: [analytics, etl]
  delegate_to: localhost
  run_once: true

- name: Nightly drift check of the whole cluster (AWX schedule, check mode)
  numaops.colocation.colocation_sync:
  check_mode: true
  register: drift
  delegate_to: localhost
  run_once: true

- name: Report drift
  ansible.builtin.debug:
    msg: "{{ drift.annotated + drift.reset }} pod(s) would be re-annotated: {{ drift.pods | map(attribute='name') | list }}"
  run_once: true
'''

RETURN = r'''
annotated:
  description: Number of pods whose configuration annotations were set (or would be, in check mode).
  returned: always
  type: int
  sample: 3
reset:
  description: Number of pods that matched nothing any more and got the reset value V({}).
  returned: always
  type: int
  sample: 1
unchanged:
  description: Number of pods looked at that were already up to date (pods without any configuration included).
  returned: always
  type: int
  sample: 42
skipped:
  description: Number of pods that were deleted while the pass ran.
  returned: always
  type: int
  sample: 0
pods:
  description: The changed pods with their colocation annotations before and after (absent keys omitted).
  returned: always
  type: list
  elements: dict
  sample:
    - namespace: analytics
      name: spark-exec-1
      before: {}
      after:
        volcano.sh/colocation-config-name: batch-memory-qos
        volcano.sh/colocation-config: '{"memoryQos":{"highRatio":80,"lowRatio":10}}'
    - namespace: analytics
      name: web-5d9f
      before:
        volcano.sh/colocation-config-name: old
        volcano.sh/colocation-config: '{"memoryQos":{"highRatio":90}}'
      after:
        volcano.sh/colocation-config: '{}'
diff:
  description: The colocation annotations of the changed pods, keyed by C(namespace/name), before and after.
  returned: in diff mode (C(--diff))
  type: dict
  sample:
    before:
      analytics/spark-exec-1: {}
    after:
      analytics/spark-exec-1:
        volcano.sh/colocation-config-name: batch-memory-qos
        volcano.sh/colocation-config: '{"memoryQos":{"highRatio":80,"lowRatio":10}}'
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numaops.colocation.plugins.module_utils.colocation import (
    ANNOTATION_CONFIG, ANNOTATION_CONFIG_NAME, GROUP, KIND, PLURAL, VERSION, ColocationConfigError,
    annotations_patch, choose_config, parse_config)
from ansible_collections.numaops.colocation.plugins.module_utils.k8s import (
    ApiException, HTTP_ERRORS, api_error_message, get_api_client, k8s_argument_spec, kubernetes, to_dict)

KEYS = (ANNOTATION_CONFIG_NAME, ANNOTATION_CONFIG)
CRD_MISSING = (
    'The %s API (%s/%s, resource %s) is not installed in the cluster at %%s, so there is nothing to reconcile '
    'against. Install it with the numaops.colocation.colocation_controller role (or apply Volcano\'s CRD) and '
    'create configurations with numaops.colocation.colocation_config, then run this task again.'
    % (KIND, GROUP, VERSION, PLURAL))
MAX_ATTEMPTS = 5


def colocation_annotations(pod):
    annotations = (pod.get('metadata') or {}).get('annotations') or {}
    return dict((k, annotations[k]) for k in KEYS if k in annotations)


def apply_merge(annotations, changes):
    result = dict(annotations)
    for key, value in changes.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


class Reconciler(object):
    def __init__(self, module, api_client):
        self.module = module
        self.client = api_client
        self.core = kubernetes.client.CoreV1Api(api_client)
        self.custom = kubernetes.client.CustomObjectsApi(api_client)
        self.host = api_client.configuration.host

    def crd_installed(self):
        try:
            resources = self.custom.get_api_resources(GROUP, VERSION)
        except ApiException as exc:
            if exc.status == 404:
                return False
            raise
        return any(r.name == PLURAL for r in resources.resources or [])

    def check_namespaces(self, namespaces):
        missing = []
        for namespace in namespaces:
            try:
                self.core.read_namespace(namespace)
            except ApiException as exc:
                if exc.status != 404:
                    raise
                missing.append(namespace)
        if missing:
            self.module.fail_json(msg='Namespace(s) %s do not exist in the cluster at %s; nothing was changed. Check '
                                      'the namespaces option.' % (', '.join(missing), self.host))

    def load_configs(self, namespaces):
        if namespaces:
            items = []
            for namespace in namespaces:
                items.extend(self.custom.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL)['items'])
        else:
            items = self.custom.list_cluster_custom_object(GROUP, VERSION, PLURAL)['items']
        configs = []
        for item in items:
            try:
                configs.append(parse_config(item))
            except ColocationConfigError as exc:
                self.module.warn('Skipping an invalid %s (Volcano cannot use it either): %s' % (KIND, exc))
        return configs

    def list_pods(self, namespaces, label_selector):
        params = {}
        if label_selector:
            params['label_selector'] = label_selector
        if namespaces:
            pods = []
            for namespace in namespaces:
                pods.extend(self.core.list_namespaced_pod(namespace, **params).items)
        else:
            pods = self.core.list_pod_for_all_namespaces(**params).items
        pods = [to_dict(self.client, p) for p in pods]
        return sorted(pods, key=lambda p: (p['metadata'].get('namespace', ''), p['metadata']['name']))

    def read_pod(self, namespace, name):
        try:
            return to_dict(self.client, self.core.read_namespaced_pod(name, namespace))
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise

    def patch_pod(self, name, namespace, body):
        try:
            return self.core.patch_namespaced_pod(name, namespace, body, _content_type='application/merge-patch+json')
        except TypeError as exc:
            if '_content_type' not in str(exc):
                raise
        # Older clients cannot choose the patch type; they send a strategic merge patch, which for a patch of
        # metadata.annotations (a plain map: keys set, null removes) is the same operation as a merge patch.
        return self.core.patch_namespaced_pod(name, namespace, body)

    def reconcile_pod(self, pod, configs):
        """Returns (outcome, before, after) with outcome in annotated/reset/unchanged/skipped."""
        meta = pod['metadata']
        namespace, name = meta.get('namespace'), meta['name']
        before = colocation_annotations(pod)
        for _attempt in range(MAX_ATTEMPTS):
            patch = annotations_patch(pod, configs)
            if patch is None:
                return 'unchanged', before, before
            outcome = 'annotated' if choose_config(pod, configs) is not None else 'reset'
            changes = patch['metadata']['annotations']
            after = apply_merge(colocation_annotations(pod), changes)
            if self.module.check_mode:
                return outcome, before, after
            # Only the annotations, and only on the pod version that was evaluated (409 if it changed).
            body = {'metadata': {'resourceVersion': meta['resourceVersion'], 'annotations': changes}}
            try:
                result = self.patch_pod(name, namespace, body)
            except ApiException as exc:
                if exc.status == 404:
                    return 'skipped', before, before
                if exc.status != 409:
                    raise
                pod = self.read_pod(namespace, name)
                if pod is None:
                    return 'skipped', before, before
                meta = pod['metadata']
                continue
            return outcome, before, colocation_annotations(to_dict(self.client, result))
        self.module.fail_json(msg='Pod %s/%s kept changing while its colocation annotations were being set (%d '
                                  'attempts); run the task again.' % (namespace, name, MAX_ATTEMPTS))
        return None


def _exit(module, **result):
    """exit_json, with the diff only in diff mode (--diff), as every module of the collection does."""
    if not module._diff:
        result.pop('diff', None)
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=k8s_argument_spec(
            namespaces=dict(type='list', elements='str', default=[]),
            label_selector=dict(type='str'),
        ),
        supports_check_mode=True,
    )
    namespaces = sorted(set(n for n in module.params['namespaces'] if n))
    label_selector = module.params.get('label_selector')
    reconciler = Reconciler(module, get_api_client(module))
    counts = {'annotated': 0, 'reset': 0, 'unchanged': 0, 'skipped': 0}
    pods_changed = []
    diff = {'before': {}, 'after': {}}
    action = 'Reading the %s objects' % KIND
    try:
        if not reconciler.crd_installed():
            module.fail_json(msg=CRD_MISSING % reconciler.host)
        action = 'Checking the namespaces'
        reconciler.check_namespaces(namespaces)
        action = 'Listing the %s objects' % KIND
        configs = reconciler.load_configs(namespaces)
        action = 'Listing the pods'
        pods = reconciler.list_pods(namespaces, label_selector)
        for pod in pods:
            action = 'Patching the annotations of pod %s/%s' % (pod['metadata'].get('namespace'), pod['metadata']['name'])
            outcome, before, after = reconciler.reconcile_pod(pod, configs)
            counts[outcome] += 1
            if outcome in ('annotated', 'reset'):
                key = '%s/%s' % (pod['metadata'].get('namespace'), pod['metadata']['name'])
                pods_changed.append({'namespace': pod['metadata'].get('namespace'), 'name': pod['metadata']['name'],
                                     'before': before, 'after': after})
                diff['before'][key] = before
                diff['after'][key] = after
    except ApiException as exc:
        module.fail_json(msg=api_error_message(exc, action) + (
            ' %d pod(s) were changed before the failure.' % len(pods_changed) if pods_changed and not module.check_mode else ''),
            status=exc.status, pods=pods_changed, **counts)
    except HTTP_ERRORS as exc:
        module.fail_json(msg=api_error_message(exc, action + ' at %s' % reconciler.host), pods=pods_changed, **counts)
    _exit(module, changed=bool(pods_changed), pods=pods_changed, diff=diff, **counts)


if __name__ == '__main__':
    main()
