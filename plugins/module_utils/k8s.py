# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kubernetes API connection for the collection's cluster-side modules.

One argument spec (the connection options under kubernetes.core's names, aliases and ``K8S_AUTH_*``
environment variables) and one client factory built on the ``kubernetes`` Python client, which is
imported with a guard so the module can say clearly that it is missing.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import traceback

from ansible.module_utils.basic import env_fallback, missing_required_lib

try:
    import kubernetes
    from kubernetes.client.exceptions import ApiException
    HAS_KUBERNETES = True
    KUBERNETES_IMPORT_ERROR = None
except ImportError:
    kubernetes = None
    HAS_KUBERNETES = False
    KUBERNETES_IMPORT_ERROR = traceback.format_exc()

    class ApiException(Exception):
        """Placeholder so ``except ApiException`` works without the library."""
        status = None
        reason = None
        body = None

try:
    import urllib3
    HTTP_ERRORS = (urllib3.exceptions.HTTPError,)
except ImportError:
    HTTP_ERRORS = ()

try:
    import yaml  # a dependency of the kubernetes client, which parses kubeconfig files with it
    YAML_ERRORS = (yaml.YAMLError,)
except ImportError:
    YAML_ERRORS = ()


def _env(*names):
    return {'fallback': (env_fallback, list(names))}


# The same option names, aliases and environment variables as kubernetes.core's modules.
K8S_AUTH_ARGSPEC = dict(
    kubeconfig=dict(type='raw', no_log=True, **_env('K8S_AUTH_KUBECONFIG')),
    context=dict(type='str', **_env('K8S_AUTH_CONTEXT')),
    host=dict(type='str', **_env('K8S_AUTH_HOST')),
    api_key=dict(type='str', no_log=True, **_env('K8S_AUTH_API_KEY')),
    validate_certs=dict(type='bool', aliases=['verify_ssl'], **_env('K8S_AUTH_VALIDATE_CERTS', 'K8S_AUTH_VERIFY_SSL')),
    ca_cert=dict(type='path', aliases=['ssl_ca_cert'], **_env('K8S_AUTH_CA_CERT', 'K8S_AUTH_SSL_CA_CERT')),
    client_cert=dict(type='path', aliases=['cert_file'], **_env('K8S_AUTH_CLIENT_CERT', 'K8S_AUTH_CERT_FILE')),
    client_key=dict(type='path', aliases=['key_file'], no_log=False, **_env('K8S_AUTH_CLIENT_KEY', 'K8S_AUTH_KEY_FILE')),
)

MISSING_LIBRARY_HINT = (
    'The cluster-side modules run where the task runs (usually the controller: use delegate_to: localhost '
    'or a play on localhost); install the client there: pip install kubernetes')


class K8sConnectionError(Exception):
    """The client could not be configured (bad kubeconfig, unknown context, unreadable certificate)."""


def k8s_argument_spec(**extra):
    """The connection argument spec merged with a module's own options."""
    spec = dict((k, dict(v)) for k, v in K8S_AUTH_ARGSPEC.items())
    spec.update(extra)
    return spec


def require_kubernetes(module):
    if not HAS_KUBERNETES:
        module.fail_json(msg='%s. %s' % (missing_required_lib('kubernetes'), MISSING_LIBRARY_HINT),
                         exception=KUBERNETES_IMPORT_ERROR)


def build_configuration(params):
    """A ``kubernetes.client.Configuration`` from the connection options (kubernetes.core's precedence).

    host + api_key or host + client_cert/client_key need no kubeconfig; otherwise the kubeconfig
    (``kubeconfig`` option: a path or a dict; else ``KUBECONFIG`` / ``~/.kube/config``) or, without any,
    the in-cluster service account configuration is loaded. Explicit options then override it, also on
    every request (see ``_keep_overrides``).
    """
    def given(*names):
        return all(params.get(n) for n in names)

    configuration = kubernetes.client.Configuration()
    kubeconfig = params.get('kubeconfig')
    context = params.get('context')
    if kubeconfig and not isinstance(kubeconfig, (str, dict)):
        raise K8sConnectionError('The kubeconfig option must be the path of a kubeconfig file or its content as a '
                                 'dict, not a %s. Set kubeconfig to a path (or a dict), or leave it unset.'
                                 % type(kubeconfig).__name__)
    try:
        if given('host', 'api_key') or given('host', 'client_cert', 'client_key'):
            pass
        elif kubeconfig or context:
            _load_kubeconfig(configuration, kubeconfig, context)
        else:
            try:
                kubernetes.config.load_incluster_config(client_configuration=configuration)
            except kubernetes.config.ConfigException:
                _load_kubeconfig(configuration, None, None)
    except (kubernetes.config.ConfigException, IOError, OSError, ValueError, TypeError, KeyError, AttributeError) + YAML_ERRORS as exc:
        # the kubeconfig option is no_log (as in kubernetes.core: it may be a dict with credentials), so
        # its path would be masked in the message anyway; say where it came from instead
        where = ('the file named by the kubeconfig option (or K8S_AUTH_KUBECONFIG)' if isinstance(kubeconfig, str)
                 else 'the kubeconfig option (a dict)' if kubeconfig else 'KUBECONFIG or ~/.kube/config')
        raise K8sConnectionError('Could not load the Kubernetes client configuration from %s%s: %s. Set kubeconfig '
                                 '(and context) or host with api_key, or K8S_AUTH_KUBECONFIG.'
                                 % (where, ' (context %s)' % context if context else '', _one_line(exc)))
    overrides = {}
    if params.get('host'):
        overrides['host'] = params['host'].rstrip('/')
    if params.get('validate_certs') is not None:
        overrides['verify_ssl'] = params['validate_certs']
    if params.get('ca_cert'):
        overrides['ssl_ca_cert'] = params['ca_cert']
    if params.get('client_cert'):
        overrides['cert_file'] = params['client_cert']
    if params.get('client_key'):
        overrides['key_file'] = params['client_key']
    _apply(configuration, overrides)
    if params.get('api_key'):
        # replaces the token of the kubeconfig user or service account, and the hook that refreshes it
        configuration.api_key = {'authorization': 'Bearer %s' % params['api_key']}
        configuration.refresh_api_key_hook = None
    _keep_overrides(configuration, overrides)
    return configuration


def _apply(configuration, overrides):
    for name, value in overrides.items():
        setattr(configuration, name, value)


def _keep_overrides(configuration, overrides):
    """Re-apply the explicit options after the token refresh hook of a kubeconfig or in-cluster configuration.

    The kubernetes client calls that hook before every request; it copies the kubeconfig's (or service
    account's) server, CA, client certificate and verify flag back into the configuration, which would
    otherwise send the request to the kubeconfig's server although ``host`` names another.
    """
    hook = configuration.refresh_api_key_hook
    if hook is None or not overrides:
        return

    def refresh_then_override(client_configuration):
        hook(client_configuration)
        _apply(client_configuration, overrides)
        # the loader's hook installs a fresh copy of itself on every call; stay in front of it
        client_configuration.refresh_api_key_hook = refresh_then_override

    configuration.refresh_api_key_hook = refresh_then_override


def _one_line(exc):
    return ' '.join(str(exc).split()) or type(exc).__name__


def _load_kubeconfig(configuration, kubeconfig, context):
    if isinstance(kubeconfig, dict):
        kubernetes.config.load_kube_config_from_dict(config_dict=kubeconfig, context=context,
                                                     client_configuration=configuration)
    else:
        kubernetes.config.load_kube_config(config_file=kubeconfig, context=context,
                                           client_configuration=configuration)


def get_api_client(module):
    """The ``kubernetes.client.ApiClient`` for the module's connection options (fails the module if none)."""
    require_kubernetes(module)
    try:
        configuration = build_configuration(module.params)
    except K8sConnectionError as exc:
        module.fail_json(msg=str(exc))
    return kubernetes.client.ApiClient(configuration)


def api_error_message(exc, action):
    """A one-line explanation of a failed API call: what was done, the API's own message, the HTTP status."""
    if isinstance(exc, ApiException):
        message = None
        reason = exc.reason
        try:
            status = json.loads(exc.body)
            message = status.get('message')
            reason = status.get('reason') or reason
        except (TypeError, ValueError, AttributeError):
            message = exc.body if exc.body else None
        hint = ''
        if exc.status == 401:
            hint = ' Check the credentials (api_key, client_cert/client_key or the kubeconfig user).'
        elif exc.status == 403:
            hint = ' The account lacks RBAC permission for this; grant it or use another context.'
        return '%s failed: %s (HTTP %s %s).%s' % (action, message or reason, exc.status, reason, hint)
    if HTTP_ERRORS and isinstance(exc, HTTP_ERRORS):
        return ('%s failed: cannot reach the Kubernetes API server: %s. Check host/kubeconfig, the network and '
                'validate_certs/ca_cert.' % (action, exc))
    return '%s failed: %s' % (action, exc)


def is_api_error(exc, status=None):
    return isinstance(exc, ApiException) and (status is None or exc.status == status)


def to_dict(api_client, obj):
    """A model object (or dict) as the plain camelCase dict the API sent."""
    if isinstance(obj, dict):
        return obj
    return api_client.sanitize_for_serialization(obj)
