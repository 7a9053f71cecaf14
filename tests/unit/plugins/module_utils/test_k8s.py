# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The connection options of the cluster-side modules: the ``kubernetes.client.Configuration`` they build.

The TLS options (validate_certs, ca_cert, client_cert, client_key) are checked here on the Configuration the
factory hands to the client: for each combination, against a kubeconfig, and where they come from (options,
aliases, K8S_AUTH_* variables). The real test control plane (tests/cluster) is used where a request shows
which server and which token the client really uses (its audit log names the user).
"""
from __future__ import annotations

import json

import pytest

kubernetes = pytest.importorskip('kubernetes')

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible.module_utils.testing import patch_module_args  # noqa: E402

from ansible_collections.numaops.colocation.plugins.module_utils import k8s  # noqa: E402
from ansible_collections.numaops.colocation.tests.cluster.controlplane import free_port  # noqa: E402
from ansible_collections.numaops.colocation.tests.cluster.fixture import k8s_cluster  # noqa: E402,F401 pylint: disable=unused-import

KUBECONFIG_TOKEN = 'kubeconfig-token-Zq81'
API_KEY = 'explicit-api-key-Wm27'
KEY_DATA = 'LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tc2VjcmV0LWtleS1kYXRh'  # base64 of a fake private key


@pytest.fixture
def tls_files(tmp_path):
    """CA, client certificate and key files of a kubeconfig, and another set for explicit options."""
    files = {}
    for name in ('kc-ca.crt', 'kc-client.crt', 'kc-client.key', 'opt-ca.crt', 'opt-client.crt', 'opt-client.key'):
        path = tmp_path / name
        path.write_text('-----BEGIN FAKE-----\nsecret-%s\n-----END FAKE-----\n' % name)
        files[name] = str(path)
    return files


def kubeconfig(tls_files, server='https://kubeconfig.example:6443', insecure=None, token=KUBECONFIG_TOKEN,
               client_cert=True):
    """A kubeconfig dict: context "test" (current) with CA, client certificate and token; context "other"."""
    cluster = {'server': server, 'certificate-authority': tls_files['kc-ca.crt']}
    if insecure is not None:
        cluster['insecure-skip-tls-verify'] = insecure
    user = {}
    if token:
        user['token'] = token
    if client_cert:
        user.update({'client-certificate': tls_files['kc-client.crt'], 'client-key': tls_files['kc-client.key']})
    return {
        'apiVersion': 'v1',
        'kind': 'Config',
        'current-context': 'test',
        'clusters': [{'name': 'test', 'cluster': cluster},
                     {'name': 'other', 'cluster': {'server': 'https://other.example:6443', 'insecure-skip-tls-verify': True}}],
        'users': [{'name': 'test', 'user': user}, {'name': 'other', 'user': {'token': 'other-token'}}],
        'contexts': [{'name': 'test', 'context': {'cluster': 'test', 'user': 'test'}},
                     {'name': 'other', 'context': {'cluster': 'other', 'user': 'other'}}],
    }


def write(tmp_path, data, name='kubeconfig'):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def params(**given):
    """Module parameters as AnsibleModule would pass them: every connection option present, None when unset."""
    result = dict((name, None) for name in k8s.K8S_AUTH_ARGSPEC)
    result.update(given)
    return result


def authorization(configuration):
    """The Authorization header the client sends (this also runs the token refresh hook, as a request does)."""
    return configuration.auth_settings().get('BearerToken', {}).get('value')


def effective(configuration):
    """What a request would use: the Authorization header first (it runs the refresh hook), then the rest."""
    header = authorization(configuration)
    return dict(authorization=header, host=configuration.host, verify_ssl=configuration.verify_ssl,
                ssl_ca_cert=configuration.ssl_ca_cert, cert_file=configuration.cert_file, key_file=configuration.key_file)


@pytest.fixture(autouse=True)
def no_ambient_config(monkeypatch, tmp_path):
    """No in-cluster service account and no ~/.kube/config of the machine running the tests."""
    monkeypatch.delenv('KUBERNETES_SERVICE_HOST', raising=False)
    monkeypatch.delenv('KUBERNETES_SERVICE_PORT', raising=False)
    monkeypatch.setattr(kubernetes.config.kube_config, 'KUBE_CONFIG_DEFAULT_LOCATION', str(tmp_path / 'no-default-kubeconfig'))
    for name in list(k8s.K8S_AUTH_ARGSPEC) + ['verify_ssl', 'ssl_ca_cert', 'cert_file', 'key_file', 'validate_certs']:
        monkeypatch.delenv('K8S_AUTH_%s' % name.upper(), raising=False)


# --- explicit options without a kubeconfig -------------------------------------------------------------

@pytest.mark.parametrize('validate_certs', [None, True, False])
@pytest.mark.parametrize('with_ca', [False, True])
@pytest.mark.parametrize('with_client_cert', [False, True])
def test_host_and_api_key_with_tls_options(tls_files, validate_certs, with_ca, with_client_cert):
    options = dict(host='https://api.example:6443/', api_key=API_KEY, validate_certs=validate_certs)
    if with_ca:
        options['ca_cert'] = tls_files['opt-ca.crt']
    if with_client_cert:
        options.update(client_cert=tls_files['opt-client.crt'], client_key=tls_files['opt-client.key'])
    configuration = k8s.build_configuration(params(**options))

    assert configuration.host == 'https://api.example:6443'  # trailing slash dropped
    assert configuration.api_key == {'authorization': 'Bearer ' + API_KEY}
    assert configuration.get_api_key_with_prefix('authorization') == 'Bearer ' + API_KEY
    assert configuration.verify_ssl is (True if validate_certs is None else validate_certs)  # the client verifies by default
    assert configuration.ssl_ca_cert == (tls_files['opt-ca.crt'] if with_ca else None)
    assert configuration.cert_file == (tls_files['opt-client.crt'] if with_client_cert else None)
    assert configuration.key_file == (tls_files['opt-client.key'] if with_client_cert else None)
    assert configuration.refresh_api_key_hook is None


def test_host_and_client_certificate_need_no_kubeconfig(tls_files, tmp_path, monkeypatch):
    # a broken default kubeconfig shows that none is read
    broken = tmp_path / 'broken'
    broken.write_text('{not yaml: [')
    monkeypatch.setattr(kubernetes.config.kube_config, 'KUBE_CONFIG_DEFAULT_LOCATION', str(broken))
    configuration = k8s.build_configuration(params(
        host='https://api.example:6443', client_cert=tls_files['opt-client.crt'], client_key=tls_files['opt-client.key'],
        ca_cert=tls_files['opt-ca.crt']))
    assert effective(configuration) == dict(
        authorization=None, host='https://api.example:6443', verify_ssl=True, ssl_ca_cert=tls_files['opt-ca.crt'],
        cert_file=tls_files['opt-client.crt'], key_file=tls_files['opt-client.key'])


def test_host_and_api_key_win_over_a_kubeconfig(tls_files, tmp_path):
    # as in kubernetes.core: host with credentials is a complete connection, the kubeconfig is not loaded
    path = write(tmp_path, kubeconfig(tls_files, insecure=True))
    configuration = k8s.build_configuration(params(kubeconfig=path, host='https://api.example:6443', api_key=API_KEY))
    assert effective(configuration) == dict(
        authorization='Bearer ' + API_KEY, host='https://api.example:6443', verify_ssl=True, ssl_ca_cert=None,
        cert_file=None, key_file=None)


# --- a kubeconfig, and explicit options over it ----------------------------------------------------------

@pytest.mark.parametrize('as_dict', [False, True], ids=['path', 'dict'])
def test_kubeconfig_alone(tls_files, tmp_path, as_dict):
    data = kubeconfig(tls_files, insecure=True)
    configuration = k8s.build_configuration(params(kubeconfig=data if as_dict else write(tmp_path, data)))
    assert effective(configuration) == dict(
        authorization='Bearer ' + KUBECONFIG_TOKEN, host='https://kubeconfig.example:6443', verify_ssl=False,
        ssl_ca_cert=tls_files['kc-ca.crt'], cert_file=tls_files['kc-client.crt'], key_file=tls_files['kc-client.key'])


def test_context_selects_another_cluster_and_user(tls_files, tmp_path):
    configuration = k8s.build_configuration(params(kubeconfig=write(tmp_path, kubeconfig(tls_files)), context='other'))
    effect = effective(configuration)
    assert (effect['host'], effect['verify_ssl'], effect['authorization']) == (
        'https://other.example:6443', False, 'Bearer other-token')


def test_context_alone_uses_the_default_kubeconfig(tls_files, tmp_path, monkeypatch):
    monkeypatch.setattr(kubernetes.config.kube_config, 'KUBE_CONFIG_DEFAULT_LOCATION', write(tmp_path, kubeconfig(tls_files)))
    configuration = k8s.build_configuration(params(context='other'))
    assert configuration.host == 'https://other.example:6443'


OVERRIDES = {
    # option: (value, Configuration attribute, expected value or None for the option's value)
    'host': ('https://override.example:443/', 'host', 'https://override.example:443'),
    'validate_certs': (True, 'verify_ssl', True),
    'ca_cert': ('opt-ca.crt', 'ssl_ca_cert', None),
    'client_cert': ('opt-client.crt', 'cert_file', None),
    'client_key': ('opt-client.key', 'key_file', None),
}


@pytest.mark.parametrize('token', [KUBECONFIG_TOKEN, None], ids=['kubeconfig-token', 'kubeconfig-cert-only'])
@pytest.mark.parametrize('option', sorted(OVERRIDES))
def test_each_explicit_option_overrides_the_kubeconfig_and_only_its_own_setting(tls_files, tmp_path, option, token):
    path = write(tmp_path, kubeconfig(tls_files, insecure=True, token=token))
    value, attribute, expected = OVERRIDES[option]
    value = tls_files.get(value, value)
    configuration = k8s.build_configuration(params(kubeconfig=path, **{option: value}))
    baseline = dict(
        authorization='Bearer ' + KUBECONFIG_TOKEN if token else None, host='https://kubeconfig.example:6443',
        verify_ssl=False, ssl_ca_cert=tls_files['kc-ca.crt'], cert_file=tls_files['kc-client.crt'],
        key_file=tls_files['kc-client.key'])
    baseline[attribute] = value if expected is None else expected
    # effective() runs the token refresh hook the kubeconfig user's token installs, as every request does:
    # the explicit option must survive it
    assert effective(configuration) == baseline
    assert effective(configuration) == baseline


def test_validate_certs_false_overrides_a_verifying_kubeconfig(tls_files, tmp_path):
    path = write(tmp_path, kubeconfig(tls_files, insecure=False))
    configuration = k8s.build_configuration(params(kubeconfig=path, validate_certs=False))
    assert effective(configuration)['verify_ssl'] is False


def test_all_explicit_tls_options_over_a_kubeconfig(tls_files, tmp_path):
    path = write(tmp_path, kubeconfig(tls_files, insecure=True))
    configuration = k8s.build_configuration(params(
        kubeconfig=path, validate_certs=True, ca_cert=tls_files['opt-ca.crt'], client_cert=tls_files['opt-client.crt'],
        client_key=tls_files['opt-client.key']))
    assert effective(configuration) == dict(
        authorization='Bearer ' + KUBECONFIG_TOKEN, host='https://kubeconfig.example:6443', verify_ssl=True,
        ssl_ca_cert=tls_files['opt-ca.crt'], cert_file=tls_files['opt-client.crt'], key_file=tls_files['opt-client.key'])


def test_host_with_client_certificate_win_over_a_kubeconfig(tls_files, tmp_path):
    # as in kubernetes.core: host with a client certificate and key is a complete connection
    path = write(tmp_path, kubeconfig(tls_files, insecure=True))
    configuration = k8s.build_configuration(params(
        kubeconfig=path, host='https://override.example', client_cert=tls_files['opt-client.crt'],
        client_key=tls_files['opt-client.key']))
    assert effective(configuration) == dict(
        authorization=None, host='https://override.example', verify_ssl=True, ssl_ca_cert=None,
        cert_file=tls_files['opt-client.crt'], key_file=tls_files['opt-client.key'])


def test_api_key_replaces_the_kubeconfig_token_also_after_a_refresh(tls_files, tmp_path):
    path = write(tmp_path, kubeconfig(tls_files))
    configuration = k8s.build_configuration(params(kubeconfig=path, api_key=API_KEY))
    assert authorization(configuration) == 'Bearer ' + API_KEY
    assert authorization(configuration) == 'Bearer ' + API_KEY
    assert configuration.host == 'https://kubeconfig.example:6443'  # the rest still from the kubeconfig
    assert configuration.ssl_ca_cert == tls_files['kc-ca.crt']


def test_in_cluster_configuration_and_explicit_options(tmp_path, monkeypatch):
    token_file, ca_file = tmp_path / 'token', tmp_path / 'ca.crt'
    token_file.write_text('service-account-token')
    ca_file.write_text('-----BEGIN FAKE-----\n')
    monkeypatch.setenv('KUBERNETES_SERVICE_HOST', '10.96.0.1')
    monkeypatch.setenv('KUBERNETES_SERVICE_PORT', '443')
    monkeypatch.setattr(kubernetes.config.incluster_config, 'SERVICE_TOKEN_FILENAME', str(token_file))
    monkeypatch.setattr(kubernetes.config.incluster_config, 'SERVICE_CERT_FILENAME', str(ca_file))

    plain = effective(k8s.build_configuration(params()))
    assert (plain['host'], plain['ssl_ca_cert'], plain['authorization'].lower()) == (
        'https://10.96.0.1:443', str(ca_file), 'bearer service-account-token')

    # the in-cluster refresh hook resets host and CA before every request; explicit values must stay
    configuration = k8s.build_configuration(params(host='https://api.example', ca_cert='/etc/ca.pem'))
    effective(configuration)
    overridden = effective(configuration)
    assert (overridden['host'], overridden['ssl_ca_cert'], overridden['authorization'].lower()) == (
        'https://api.example', '/etc/ca.pem', 'bearer service-account-token')

    with_key = effective(k8s.build_configuration(params(api_key=API_KEY)))
    assert (with_key['host'], with_key['authorization']) == ('https://10.96.0.1:443', 'Bearer ' + API_KEY)


# --- where the options come from: names, aliases, K8S_AUTH_* ---------------------------------------------

def module_params(args):
    with patch_module_args(args):
        return AnsibleModule(argument_spec=k8s.k8s_argument_spec()).params


def test_aliases_as_kubernetes_core_names_them(tls_files):
    configuration = k8s.build_configuration(module_params(dict(
        host='https://api.example', api_key=API_KEY, verify_ssl=False, ssl_ca_cert=tls_files['opt-ca.crt'],
        cert_file=tls_files['opt-client.crt'], key_file=tls_files['opt-client.key'])))
    assert effective(configuration) == dict(
        authorization='Bearer ' + API_KEY, host='https://api.example', verify_ssl=False,
        ssl_ca_cert=tls_files['opt-ca.crt'], cert_file=tls_files['opt-client.crt'], key_file=tls_files['opt-client.key'])


@pytest.mark.parametrize('names', [
    ('VERIFY_SSL', 'SSL_CA_CERT', 'CERT_FILE', 'KEY_FILE'),
    ('VALIDATE_CERTS', 'CA_CERT', 'CLIENT_CERT', 'CLIENT_KEY'),
], ids=['kubernetes.core-names', 'option-names'])
def test_environment_variables(tls_files, monkeypatch, names):
    monkeypatch.setenv('K8S_AUTH_HOST', 'https://env.example:6443')
    monkeypatch.setenv('K8S_AUTH_API_KEY', API_KEY)
    for name, value in zip(names, ('false', tls_files['opt-ca.crt'], tls_files['opt-client.crt'], tls_files['opt-client.key'])):
        monkeypatch.setenv('K8S_AUTH_' + name, value)
    configuration = k8s.build_configuration(module_params({}))
    assert effective(configuration) == dict(
        authorization='Bearer ' + API_KEY, host='https://env.example:6443', verify_ssl=False,
        ssl_ca_cert=tls_files['opt-ca.crt'], cert_file=tls_files['opt-client.crt'], key_file=tls_files['opt-client.key'])


def test_environment_kubeconfig_and_context(tls_files, tmp_path, monkeypatch):
    monkeypatch.setenv('K8S_AUTH_KUBECONFIG', write(tmp_path, kubeconfig(tls_files)))
    monkeypatch.setenv('K8S_AUTH_CONTEXT', 'other')
    assert k8s.build_configuration(module_params({})).host == 'https://other.example:6443'


def test_option_wins_over_environment(monkeypatch):
    monkeypatch.setenv('K8S_AUTH_HOST', 'https://env.example')
    monkeypatch.setenv('K8S_AUTH_VERIFY_SSL', 'false')
    configuration = k8s.build_configuration(module_params(dict(host='https://option.example', api_key=API_KEY,
                                                               validate_certs=True)))
    assert (configuration.host, configuration.verify_ssl) == ('https://option.example', True)


def test_secret_options_are_no_log():
    assert k8s.K8S_AUTH_ARGSPEC['api_key']['no_log'] is True
    assert k8s.K8S_AUTH_ARGSPEC['kubeconfig']['no_log'] is True  # it may be a dict with credentials


# --- through the client, against the real control plane (tests/cluster) -------------------------------------

def test_host_option_reaches_that_server_although_the_kubeconfig_has_a_token(k8s_cluster, tmp_path):
    # the kubeconfig names a port nothing listens on: only the host option can reach the server
    data = {'apiVersion': 'v1', 'kind': 'Config', 'current-context': 't',
            'clusters': [{'name': 't', 'cluster': {'server': 'https://127.0.0.1:%d' % free_port(),
                                                   'certificate-authority': k8s_cluster.ca_path}}],
            'users': [{'name': 't', 'user': {'token': k8s_cluster.token}}],
            'contexts': [{'name': 't', 'context': {'cluster': 't', 'user': 't'}}]}
    configuration = k8s.build_configuration(params(kubeconfig=write(tmp_path, data), host=k8s_cluster.url))
    with kubernetes.client.ApiClient(configuration) as client:
        kubernetes.client.CoreV1Api(client).list_namespace()
        kubernetes.client.CoreV1Api(client).list_namespace()
    # the server got both, authenticated with the kubeconfig's token
    assert [(r['verb'], r['path'], r['user']) for r in k8s_cluster.requests] == [('list', '/api/v1/namespaces', 'numaops-admin')] * 2


def test_api_key_option_is_sent_instead_of_the_kubeconfig_token(k8s_cluster):
    configuration = k8s.build_configuration(params(kubeconfig=k8s_cluster.kubeconfig_path, api_key=API_KEY))
    with kubernetes.client.ApiClient(configuration) as client:
        with pytest.raises(kubernetes.client.ApiException) as failure:
            kubernetes.client.CoreV1Api(client).list_namespace()
    assert failure.value.status == 401
    message = k8s.api_error_message(failure.value, 'Listing namespaces')
    assert 'HTTP 401' in message and 'Check the credentials' in message
    assert API_KEY not in message and k8s_cluster.token not in message


# --- errors: clear, and without secrets ------------------------------------------------------------------

def failure_message(**options):
    with pytest.raises(k8s.K8sConnectionError) as failure:
        k8s.build_configuration(params(**options))
    return str(failure.value)


def assert_no_secret(message, *more):
    for secret in (API_KEY, KUBECONFIG_TOKEN, KEY_DATA, 'secret-') + more:
        assert secret not in message


def test_unknown_context(tls_files, tmp_path):
    message = failure_message(kubeconfig=write(tmp_path, kubeconfig(tls_files)), context='nope', api_key=API_KEY,
                              client_key=tls_files['opt-client.key'])
    assert 'the file named by the kubeconfig option' in message and '(context nope)' in message
    assert_no_secret(message, 'other-token')


def test_bad_client_key_data_in_a_dict_kubeconfig(tls_files):
    data = kubeconfig(tls_files, client_cert=False)
    data['users'][0]['user'].update({'client-certificate-data': 'Zm9v', 'client-key-data': KEY_DATA + 'A'})  # one character too many
    message = failure_message(kubeconfig=data, api_key=API_KEY)
    assert 'the kubeconfig option (a dict)' in message
    assert_no_secret(message)


def test_missing_certificate_file(tls_files, tmp_path):
    data = kubeconfig(tls_files)
    data['clusters'][0]['cluster']['certificate-authority'] = str(tmp_path / 'gone.crt')
    message = failure_message(kubeconfig=write(tmp_path, data))
    assert 'gone.crt' in message
    assert_no_secret(message)


def test_kubeconfig_that_is_not_yaml(tmp_path):
    path = tmp_path / 'kubeconfig'
    path.write_text('users:\n- name: u\n  user: {token: %s\n  [\n' % KUBECONFIG_TOKEN)
    message = failure_message(kubeconfig=str(path), api_key=API_KEY)
    assert message.startswith('Could not load the Kubernetes client configuration from the file named by the kubeconfig option')
    assert '\n' not in message
    assert_no_secret(message)


@pytest.mark.parametrize('content', ['', '- a list\n', 'just text\n'])
def test_kubeconfig_that_is_not_a_mapping(tmp_path, content):
    path = tmp_path / 'kubeconfig'
    path.write_text(content)
    assert 'Could not load the Kubernetes client configuration' in failure_message(kubeconfig=str(path))


def test_kubeconfig_option_of_the_wrong_type():
    message = failure_message(kubeconfig=['not', 'a', 'kubeconfig'])
    assert 'must be the path of a kubeconfig file or its content as a dict, not a list' in message


def test_no_configuration_at_all():
    message = failure_message()
    assert 'KUBECONFIG or ~/.kube/config' in message and 'Set kubeconfig' in message


def test_unreachable_server_message_has_no_token():
    configuration = k8s.build_configuration(params(host='http://127.0.0.1:9', api_key=API_KEY))
    configuration.retries = False
    with kubernetes.client.ApiClient(configuration) as client:
        with pytest.raises(k8s.HTTP_ERRORS) as failure:
            kubernetes.client.CoreV1Api(client).list_namespace(_request_timeout=5)
    message = k8s.api_error_message(failure.value, 'Listing namespaces')
    assert 'cannot reach the Kubernetes API server' in message
    assert_no_secret(message)
