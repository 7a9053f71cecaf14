#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: kubelet_configz
short_description: Compare the kubelet configuration keys written with what the running kubelet reports on /configz
version_added: 1.1.0
description:
  - Reads the running kubelet's C(/configz) through the API server's node proxy
    (C(/api/v1/nodes/<node>/proxy/configz)) and compares each key of O(expected) with the value the kubelet runs,
    after the main file, its drop-ins and its command-line flags were merged. Values are compared by what they mean
    (C(10s) and C(0m10s), C(1024Mi) and C(1Gi), C(0-1) and C(0,1) are the same); a key set to V(null) in O(expected)
    (the kubelet's default) is not compared, and O(expected)'s C(featureGates) entries are looked for among the
    kubelet's.
  - A key whose value differs fails the task, naming the key, the value written and the value running.
  - When C(/configz) cannot be read (the API server cannot reach the kubelet's port, the credentials may not use the
    node proxy, the kubelet does not serve it), the task fails with O(required), and otherwise returns
    RV(reachable)=V(false) with a warning naming why.
  - "Runs where the Kubernetes API is reachable (the controller, C(delegate_to: localhost)); it changes nothing."
  - Used by the C(numaops.colocation.node_prep) role after it restarted the kubelet (O(expected) is the
    RV(numaops.colocation.kubelet_config#module:effective_config) of its write).
author:
  - numaops.colocation developers (@numaops)
requirements:
  - kubernetes (the Python client, as for kubernetes.core)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: It only reads; in check mode it reads as well.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  node_name:
    description: The Node whose kubelet is asked.
    type: str
    required: true
  expected:
    description: The managed KubeletConfiguration keys (C(cpuManagerPolicy), C(reservedSystemCPUs), ...) and the values
      written.
    type: dict
    required: true
  required:
    description: Fail when C(/configz) cannot be read. V(false) returns RV(reachable)=V(false) with a warning.
    type: bool
    default: true
  attempts:
    description: How many times to ask before C(/configz) counts as unreadable (the node proxy can fail for a few
      seconds after the kubelet restarted).
    type: int
    default: 2
  delay:
    description: Seconds between two attempts.
    type: int
    default: 3
  kubeconfig:
    description: The kubeconfig file (else C(K8S_AUTH_KUBECONFIG), C(KUBECONFIG), C(~/.kube/config)).
    type: path
  context:
    description: The kubeconfig context.
    type: str
  host:
    description: The API server URL, instead of a kubeconfig (with O(api_key) or client certificates).
    type: str
  api_key:
    description: A bearer token for O(host).
    type: str
  validate_certs:
    description: Verify the API server's certificate.
    type: bool
    default: true
  ca_cert:
    description: The CA certificate of the API server.
    type: path
  client_cert:
    description: A client certificate.
    type: path
  client_key:
    description: The key of O(client_cert).
    type: path
  request_timeout:
    description: Seconds one request may take.
    type: int
    default: 5
'''

EXAMPLES = r'''
- name: The kubelet runs what was written
  numaops.colocation.kubelet_configz:
    node_name: worker-1
    expected: "{{ kubelet_result.effective_config | default(kubelet_result.config) }}"
    kubeconfig: ~/.kube/config
  delegate_to: localhost
  register: configz
'''

RETURN = r'''
reachable:
  description: Whether C(/configz) answered with the kubelet's configuration.
  returned: always
  type: bool
  sample: true
running:
  description: The values the kubelet runs for the keys compared (V({}) when C(/configz) was not read).
  returned: always
  type: dict
  sample: {cpuManagerPolicy: static, reservedSystemCPUs: 0-1}
compared:
  description: The keys compared (those of O(expected) that are not V(null)).
  returned: always
  type: list
  elements: str
  sample: [cpuManagerPolicy, reservedSystemCPUs]
mismatches:
  description: Each key whose value differs, with the value C(expected) and the value C(running).
  returned: always
  type: list
  elements: dict
  sample: [{key: cpuManagerPolicy, expected: static, running: none}]
error:
  description: Why C(/configz) could not be read (V('') when it was).
  returned: always
  type: str
  sample: 'HTTP 502: error trying to reach service: dial tcp 10.0.2.15:10250: connect: connection refused'
line:
  description: One sentence for a report - what the kubelet runs, or why it was not read.
  returned: always
  type: str
  sample: the kubelet runs cpuManagerPolicy, reservedSystemCPUs as written (/api/v1/nodes/worker-1/proxy/configz)
'''

import os
import time
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet_configz

try:
    from kubernetes import client as k8s_client, config as k8s_config
    HAS_KUBERNETES = True
    KUBERNETES_ERROR = None
except ImportError:
    HAS_KUBERNETES = False
    KUBERNETES_ERROR = traceback.format_exc()


def api_client(params):
    configuration = k8s_client.Configuration()
    if params['host']:
        configuration.host = params['host']
        if params['api_key']:
            configuration.api_key = {'authorization': 'Bearer ' + params['api_key']}
    else:
        kubeconfig = (params['kubeconfig'] or os.environ.get('K8S_AUTH_KUBECONFIG') or None)
        k8s_config.load_kube_config(config_file=kubeconfig, context=params['context'],
                                    client_configuration=configuration)
    configuration.verify_ssl = params['validate_certs']
    if params['ca_cert']:
        configuration.ssl_ca_cert = params['ca_cert']
    if params['client_cert']:
        configuration.cert_file = params['client_cert']
    if params['client_key']:
        configuration.key_file = params['client_key']
    return k8s_client.ApiClient(configuration)


def read_configz(params, where):
    """(text, error): the answer of /configz through the node proxy, or why there is none."""
    api = k8s_client.CoreV1Api(api_client(params))
    error = ''
    for attempt in range(max(1, params['attempts'])):
        if attempt:
            time.sleep(max(0, params['delay']))
        try:
            response = api.connect_get_node_proxy_with_path(
                params['node_name'], 'configz', _preload_content=False, _request_timeout=params['request_timeout'])
            data = response.data
            return (data.decode('utf-8', 'replace') if isinstance(data, bytes) else str(data)), ''
        except k8s_client.exceptions.ApiException as err:
            body = err.body.decode('utf-8', 'replace') if isinstance(err.body, bytes) else (err.body or '')
            error = 'HTTP %s from %s: %s' % (err.status, where, (body or err.reason or '').strip()[:300])
        except Exception as err:  # pylint: disable=broad-except
            error = '%s: %s' % (where, err)
    return None, error


def main():
    module = AnsibleModule(
        argument_spec=dict(
            node_name=dict(type='str', required=True),
            expected=dict(type='dict', required=True),
            required=dict(type='bool', default=True),
            attempts=dict(type='int', default=2),
            delay=dict(type='int', default=3),
            kubeconfig=dict(type='path'),
            context=dict(type='str'),
            host=dict(type='str'),
            api_key=dict(type='str', no_log=True),
            validate_certs=dict(type='bool', default=True),
            ca_cert=dict(type='path'),
            client_cert=dict(type='path'),
            client_key=dict(type='path', no_log=False),
            request_timeout=dict(type='int', default=5),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if not HAS_KUBERNETES:
        module.fail_json(msg=missing_required_lib('kubernetes'), exception=KUBERNETES_ERROR)
    where = '/api/v1/nodes/%s/proxy/configz' % params['node_name']
    expected = params['expected'] or {}
    keys = kubelet_configz.compared_keys(expected)
    result = dict(changed=False, reachable=False, running={}, compared=keys, mismatches=[], error='')
    try:
        text, error = read_configz(params, where)
    except Exception as err:  # pylint: disable=broad-except
        text, error = None, 'the Kubernetes API client could not be set up: %s' % err
    running = None
    if text is not None:
        try:
            running = kubelet_configz.parse(text, where)
        except kubelet_configz.ConfigzError as err:
            error = str(err)
    if running is None:
        result['error'] = error
        result['line'] = 'NOT confirmed: %s could not be read (%s)' % (where, error)
        message = ('the kubelet configuration of node %s could not be confirmed: %s could not be read (%s). The '
                   'API server reaches the kubelet on its port (10250 by default) for the node proxy, and the '
                   'credentials need the nodes/proxy permission.' % (params['node_name'], where, error))
        if params['required']:
            module.fail_json(msg=message, **result)
        module.warn(message)
        result['msg'] = message
        module.exit_json(**result)
    mismatches = kubelet_configz.compare(expected, running)
    result.update(reachable=True, mismatches=mismatches,
                  running=dict((key, running.get(key)) for key in keys),
                  line=kubelet_configz.line(mismatches, keys, where))
    if mismatches:
        module.fail_json(msg='node %s: %s. A drop-in, a command-line flag of the kubelet or a kubelet that did not '
                             'restart overrides what was written.' % (params['node_name'], result['line']), **result)
    result['msg'] = result['line']
    module.exit_json(**result)


if __name__ == '__main__':
    main()
