# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    # Connection options of the cluster-side modules; names, aliases and environment variables match
    # kubernetes.core's, so existing inventories and AWX credentials work unchanged.
    DOCUMENTATION = r'''
options:
  kubeconfig:
    description:
      - Path to a kubeconfig file, or the kubeconfig content as a dictionary.
      - Without it (and without O(host) plus credentials) the client tries the in-cluster service account,
        then E(KUBECONFIG) or C(~/.kube/config).
      - Can also be set with E(K8S_AUTH_KUBECONFIG).
    type: raw
  context:
    description:
      - The kubeconfig context to use instead of the current one.
      - Can also be set with E(K8S_AUTH_CONTEXT).
    type: str
  host:
    description:
      - URL of the Kubernetes API server, for example V(https://k8s.example.com:6443).
      - Overrides the server of the kubeconfig.
      - Can also be set with E(K8S_AUTH_HOST).
    type: str
  api_key:
    description:
      - "Bearer token for the API server (sent in the C(Authorization) header)."
      - Can also be set with E(K8S_AUTH_API_KEY).
    type: str
  validate_certs:
    description:
      - Whether to verify the API server's TLS certificate.
      - Can also be set with E(K8S_AUTH_VERIFY_SSL).
    type: bool
    aliases: [verify_ssl]
  ca_cert:
    description:
      - Path to a CA certificate bundle that signed the API server's certificate.
      - Can also be set with E(K8S_AUTH_SSL_CA_CERT).
    type: path
    aliases: [ssl_ca_cert]
  client_cert:
    description:
      - Path to a client certificate for TLS client authentication.
      - Can also be set with E(K8S_AUTH_CERT_FILE).
    type: path
    aliases: [cert_file]
  client_key:
    description:
      - Path to the key of O(client_cert).
      - Can also be set with E(K8S_AUTH_KEY_FILE).
    type: path
    aliases: [key_file]
requirements:
  - kubernetes >= 24.2.0 (the Kubernetes Python client) on the host that runs the task, usually the controller.
notes:
  - "The module talks to the Kubernetes API, not to the managed node; run it on the controller
    (C(delegate_to: localhost) or a play on C(localhost)) or on any host with API access and the client."
  - The connection options work exactly like kubernetes.core's; C(K8S_AUTH_VALIDATE_CERTS),
    C(K8S_AUTH_CA_CERT), C(K8S_AUTH_CLIENT_CERT) and C(K8S_AUTH_CLIENT_KEY) are accepted as well.
'''
