# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Start and stop a real Kubernetes control plane on 127.0.0.1 (etcd, kube-apiserver, kube-controller-manager,
kube-scheduler, kwok) in a private directory.

Every process runs in its own process group, its id kept in ``<dir>/state.json``; :func:`stop_state` ends
exactly those groups (SIGTERM, then SIGKILL after a grace period). Every listener is bound to 127.0.0.1 on a
port found free below the kernel's ephemeral range (:func:`free_port`). The binaries come from ``scripts/upstream.sh path <component>`` (built by
``scripts/upstream.sh build kubernetes etcd kwok``), or from ``$NUMAOPS_UPSTREAM_<COMPONENT>`` (a directory).
"""
from __future__ import annotations

import json
import os
import random
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from . import certs, kwok_stages

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = '127.0.0.1'
# what a QEMU guest with user-mode networking (slirp) dials to reach the host's loopback: the test VM's real
# kubelet talks to kube-apiserver there (tests/vm), so the serving certificate names it too
QEMU_HOST_ALIAS = '10.0.2.2'
SERVICE_CIDR = '10.96.0.0/16'
POD_CIDR = '10.244.0.0/16'
ADMIN_USER = 'numaops-admin'
# the identity the fixture itself seeds and cleans up with: kept out of the audit log the tests read
FIXTURE_USER = 'numaops-fixture'
# the audit log records (level Metadata) what the tests' identities send; nothing of the control plane's own
AUDIT_POLICY = {
    'apiVersion': 'audit.k8s.io/v1', 'kind': 'Policy', 'omitStages': ['RequestReceived'],
    'rules': [{'level': 'Metadata', 'users': [ADMIN_USER]}, {'level': 'None'}],
}
# the controllers the tests rely on (names as kube-controller-manager v1.37 spells them). The pod garbage
# collector deletes the pods of a node that was deleted, as in a real cluster. Not the node lifecycle
# controller: kwok renews no heartbeat of its nodes, so it would find them stale within a minute, mark their
# pods not ready and evict them. Its other job, lifting the node.kubernetes.io/not-ready taint from a new node
# once it is Ready, is why kube-apiserver runs without the TaintNodesByCondition admission plugin here.
CONTROLLERS = ('deployment-controller', 'replicaset-controller', 'daemonset-controller', 'namespace-controller',
               'serviceaccount-controller', 'serviceaccount-token-controller', 'garbage-collector-controller',
               'root-ca-certificate-publisher-controller', 'disruption-controller',
               'clusterrole-aggregation-controller', 'pod-garbage-collector-controller')
STOP_GRACE_SECONDS = 10


class ControlPlaneError(Exception):
    pass


def _cache_dir():
    return os.environ.get('NUMAOPS_CACHE') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'numaops-colocation')


def upstream_dir(component):
    """The directory holding ``component``'s binaries, built by scripts/upstream.sh.

    Asks ``scripts/upstream.py path`` of this tree (or of $NUMAOPS_ROOT); where neither is there (ansible-test
    runs integration targets from a copy of tests/), the newest complete build of the pinned version in the
    cache is used."""
    env = os.environ.get('NUMAOPS_UPSTREAM_' + component.upper().replace('-', '_'))
    if env:
        return env
    for root in (ROOT, os.environ.get('NUMAOPS_ROOT')):
        script = os.path.join(root, 'scripts', 'upstream.py') if root else None
        if script and os.path.exists(script):
            result = subprocess.run([sys.executable, script, 'path', component], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, universal_newlines=True, check=False)
            if result.returncode != 0 or not result.stdout.strip():
                raise ControlPlaneError('%s is not built: run scripts/upstream.sh build %s (%s)'
                                        % (component, component, result.stderr.strip()))
            return result.stdout.strip()
    cache = os.path.join(_cache_dir(), 'upstream')
    candidates = sorted((d for d in (os.listdir(cache) if os.path.isdir(cache) else ())
                         if d.startswith(component + '-v') and os.path.exists(os.path.join(cache, d, '.complete'))),
                        key=lambda d: os.path.getmtime(os.path.join(cache, d, '.complete')))
    if not candidates:
        raise ControlPlaneError('%s is not built in %s: run scripts/upstream.sh build %s' % (component, cache, component))
    return os.path.join(cache, candidates[-1])


def _has_flag(binary, flag):
    result = subprocess.run([binary, '--help'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, check=False)
    return flag in result.stdout


_HANDED_OUT = set()


def _ephemeral_low(path='/proc/sys/net/ipv4/ip_local_port_range'):
    """The lowest port the kernel hands to outgoing connections (32768 when it cannot be read)."""
    try:
        with open(path) as handle:
            return int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(low=10000):
    """A port free on HOST now, taken below the kernel's ephemeral range.

    A port the kernel hands out for ``bind(0)`` comes from the same range as the local ports of outgoing
    connections; between this call and the component's own bind, seconds later, a client elsewhere on the
    machine (the other CI lane's SSH to its VM, its HTTP clients) may get it, and the component then dies with
    "address already in use". Ports below that range are never given to outgoing connections, so only another
    listener can take one, and a bind test here sees those. Falls back to ``bind(0)`` when no such port is
    free."""
    high = _ephemeral_low() - 1
    candidates = random.SystemRandom()
    if high - low > 1000:
        for _attempt in range(200):
            port = candidates.randint(low, high)
            if port in _HANDED_OUT:
                continue
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                try:
                    sock.bind((HOST, port))
                except OSError:
                    continue
            _HANDED_OUT.add(port)
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def kubeconfig(server, ca_path, user, namespace='default'):
    """A kubeconfig dict for ``server`` (user: dict with token or client-certificate/client-key)."""
    return {
        'apiVersion': 'v1', 'kind': 'Config', 'preferences': {},
        'clusters': [{'name': 'numaops-test', 'cluster': {'server': server, 'certificate-authority': ca_path}}],
        'users': [{'name': 'user', 'user': user}],
        'contexts': [{'name': 'numaops-test', 'context': {'cluster': 'numaops-test', 'user': 'user',
                                                          'namespace': namespace}}],
        'current-context': 'numaops-test',
    }


def write_json(path, data, mode=0o600):
    with open(path, 'w') as handle:
        json.dump(data, handle, indent=2)
        handle.write('\n')
    os.chmod(path, mode)
    return path


def _insecure_context():
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def _get(url, context, token=None, timeout=5):
    request = urllib.request.Request(url)
    if token:
        request.add_header('Authorization', 'Bearer ' + token)
    with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
        return response.status, response.read()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of ours counts as gone
        with open('/proc/%d/stat' % pid) as handle:
            return handle.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def stop_processes(processes, grace=STOP_GRACE_SECONDS):
    """End each process group in ``processes`` ([{"name", "pid"}], started with its own session), newest first."""
    for proc in reversed(processes):
        try:
            os.killpg(proc['pid'], signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    for proc in reversed(processes):
        while _alive(proc['pid']) and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            os.killpg(proc['pid'], signal.SIGKILL)
        except ProcessLookupError:
            pass
        while _alive(proc['pid']):
            try:
                os.waitpid(proc['pid'], os.WNOHANG)
            except ChildProcessError:
                time.sleep(0.02)
            else:
                time.sleep(0.02)


_METHODS = {'create': 'POST', 'update': 'PUT', 'patch': 'PATCH', 'delete': 'DELETE', 'deletecollection': 'DELETE'}


def audit_requests(path, start=0, end=None):
    """The requests in kube-apiserver's audit log between byte offsets ``start`` and ``end``: dicts with
    method, verb, path, query, user, status, user_agent (in the order the server finished them)."""
    entries = []
    if not os.path.exists(path):
        return entries
    with open(path, 'rb') as handle:
        handle.seek(start)
        data = handle.read() if end is None else handle.read(max(0, end - start))
    for line in data.decode('utf-8', 'replace').splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        uri, _sep, query = event['requestURI'].partition('?')
        entries.append({'method': _METHODS.get(event['verb'], 'GET'), 'verb': event['verb'], 'path': uri,
                        'query': dict(urllib.parse.parse_qsl(query)), 'user': event['user'].get('username'),
                        'status': event.get('responseStatus', {}).get('code'), 'user_agent': event.get('userAgent')})
    return entries


def client_cert(directory, user, groups=()):
    """A client certificate of ``user`` in ``groups`` signed by the CA of the control plane in ``directory``
    (kube-apiserver and a kubelet whose clientCAFile is that CA both accept it); returns (cert, key) as PEM text."""
    ca = certs.CertificateAuthority.load(os.path.join(directory, 'pki'))
    safe = ''.join(ch if ch.isalnum() else '-' for ch in user)
    cert, key = ca.issue('client-' + safe, user, organizations=tuple(groups), client=True)
    with open(cert) as cert_handle, open(key) as key_handle:
        return cert_handle.read(), key_handle.read()


def stop_state(directory):
    """Stop the control plane whose state file is in ``directory`` (the CLI's ``stop``)."""
    path = os.path.join(directory, 'state.json')
    with open(path) as handle:
        state = json.load(handle)
    stop_processes(state['processes'])
    os.unlink(path)
    return state


class ControlPlane:
    """A control plane in ``directory``; ``start()`` returns once the API serves and the nodes are Ready."""

    def __init__(self, directory, nodes=('node-1', 'node-2'), never_ready=(), kwok=True):
        """``kwok=False``: no kwok (a control plane whose nodes are real kubelets, as the VM scenario's); it then takes
        no kwok nodes and no never-ready workloads."""
        if not kwok and (nodes or never_ready):
            raise ControlPlaneError('a control plane without kwok has no kwok nodes (%s) and no never-ready workloads '
                                    '(%s): start it with kwok' % (', '.join(nodes) or 'none',
                                                                  ', '.join(never_ready) or 'none'))
        self.directory = os.path.abspath(str(directory))
        self.initial_nodes = tuple(nodes)
        self.never_ready = set(never_ready)
        self.kwok = kwok
        self.processes = []
        self._popen = {}
        self.ports = {}
        self.server = None
        self.admin_token = None
        self.kubeconfig_path = os.path.join(self.directory, 'kubeconfig')
        self.audit_log_path = os.path.join(self.directory, 'logs', 'audit.log')
        self.startup_seconds = None
        self.preexec_fn = None  # e.g. PR_SET_PDEATHSIG for a pytest session

    @classmethod
    def attach(cls, state):
        """The control plane a state file describes (to change it from another process)."""
        plane = cls(state['directory'], nodes=state['nodes'], never_ready=state['never_ready'],
                    kwok=state.get('kwok', True))
        plane.processes = state['processes']
        plane.ports = state['ports']
        plane.server = state['server']
        plane.startup_seconds = state.get('startup_seconds')
        return plane

    # --- files --------------------------------------------------------------------------------------

    def _path(self, *parts):
        return os.path.join(self.directory, *parts)

    def _prepare(self):
        os.makedirs(self._path('pki'), exist_ok=True)
        os.makedirs(self._path('logs'), exist_ok=True)
        pki = self._path('pki')
        self.ca = certs.CertificateAuthority(pki)
        self.apiserver_cert = self.ca.issue('apiserver', 'kube-apiserver', server=True,
                                            hosts=('localhost', 'kubernetes', 'kubernetes.default',
                                                   'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'),
                                            ips=(HOST, '10.96.0.1', QEMU_HOST_ALIAS))
        self.sa_key, self.sa_pub = certs.service_account_keys(pki)
        self.admin_token = os.urandom(16).hex()
        self.fixture_token = os.urandom(16).hex()
        # static tokens: the admin and the fixture's own (both system:masters); refusals use ServiceAccount tokens
        with open(self._path('pki', 'tokens.csv'), 'w') as handle:
            handle.write('%s,%s,%s,"system:masters"\n' % (self.admin_token, ADMIN_USER, ADMIN_USER))
            handle.write('%s,%s,%s,"system:masters"\n' % (self.fixture_token, FIXTURE_USER, FIXTURE_USER))
        write_json(self._path('pki', 'audit-policy.json'), AUDIT_POLICY)
        os.chmod(self._path('pki', 'tokens.csv'), 0o600)
        for name in ('etcd', 'apiserver', 'controller-manager', 'scheduler', 'kwok'):
            self.ports[name] = free_port()
        self.ports['etcd-peer'] = free_port()
        self.server = 'https://%s:%d' % (HOST, self.ports['apiserver'])
        write_json(self.kubeconfig_path, kubeconfig(self.server, self.ca.cert_path, {'token': self.admin_token}))
        write_json(self._path('fixture.kubeconfig'), kubeconfig(self.server, self.ca.cert_path, {'token': self.fixture_token}))
        for component, user in (('controller-manager', 'system:kube-controller-manager'),
                                ('scheduler', 'system:kube-scheduler')):
            cert, key = self.ca.issue(component + '-client', user, client=True)
            write_json(self._path(component + '.kubeconfig'),
                       kubeconfig(self.server, self.ca.cert_path, {'client-certificate': cert, 'client-key': key}))
        for component, user in (('kwok', 'kwok'), ('volcano', 'vc-controller-manager')):
            cert, key = self.ca.issue(component + '-client', user, organizations=('system:masters',), client=True)
            write_json(self._path(component + '.kubeconfig'),
                       kubeconfig(self.server, self.ca.cert_path, {'client-certificate': cert, 'client-key': key}))

    def write_state(self):
        return write_json(self._path('state.json'), {
            'directory': self.directory, 'server': self.server, 'kubeconfig': self.kubeconfig_path,
            'ports': self.ports,
            'processes': self.processes, 'nodes': list(self.initial_nodes), 'never_ready': sorted(self.never_ready),
            'kwok': self.kwok, 'startup_seconds': self.startup_seconds,
        })

    # --- processes ----------------------------------------------------------------------------------

    def _spawn(self, name, argv):
        log = open(self._path('logs', name + '.log'), 'ab')
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    cwd=self.directory, start_new_session=True, close_fds=True,
                                    preexec_fn=self.preexec_fn)
        finally:
            log.close()
        self.processes = [p for p in self.processes if p['name'] != name] + [{'name': name, 'pid': proc.pid}]
        self._popen[name] = proc
        if os.path.exists(self._path('state.json')) or name == 'etcd':
            self.write_state()
        return proc

    def _log_tail(self, name, lines=30):
        try:
            with open(self._path('logs', name + '.log'), errors='replace') as handle:
                return ''.join(handle.readlines()[-lines:])
        except OSError:
            return ''

    def _wait(self, name, check, timeout=180):
        # generous limits: they cost nothing when a component is up in seconds, and CI runs this beside the test
        # VM (QEMU emulating two CPUs on a 2-core machine), where a start takes many times longer than alone
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            proc = self._popen.get(name)
            if proc is not None and proc.poll() is not None:
                raise ControlPlaneError('%s exited with %s; its log (%s):\n%s' % (
                    name, proc.returncode, self._path('logs', name + '.log'), self._log_tail(name)))
            try:
                if check():
                    return
            except (OSError, urllib.error.URLError, ssl.SSLError) as exc:
                last = exc
            time.sleep(0.2)
        raise ControlPlaneError('%s did not become ready in %ss (%s); its log:\n%s' % (
            name, timeout, last, self._log_tail(name)))

    def _healthz(self, port, path='/healthz'):
        status, _body = _get('https://%s:%d%s' % (HOST, port, path), _insecure_context())
        return status == 200

    def start_etcd(self):
        binary = os.path.join(upstream_dir('etcd'), 'etcd')
        client = 'http://%s:%d' % (HOST, self.ports['etcd'])
        peer = 'http://%s:%d' % (HOST, self.ports['etcd-peer'])
        self._spawn('etcd', [binary, '--name', 'numaops-test', '--data-dir', self._path('etcd'),
                             '--listen-client-urls', client, '--advertise-client-urls', client,
                             '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
                             '--initial-cluster', 'numaops-test=' + peer, '--initial-cluster-state', 'new',
                             '--quota-backend-bytes', str(512 * 1024 * 1024), '--log-level', 'warn']
                    + (['--unsafe-no-fsync'] if _has_flag(binary, '--unsafe-no-fsync') else []))

        def ready():
            with urllib.request.urlopen(client + '/health', timeout=2) as response:
                return json.loads(response.read()).get('health') == 'true'
        self._wait('etcd', ready, timeout=120)

    def start_apiserver(self):
        binary = os.path.join(upstream_dir('kubernetes'), 'kube-apiserver')
        pki = self._path('pki')
        self._spawn('kube-apiserver', [
            binary,
            '--etcd-servers', 'http://%s:%d' % (HOST, self.ports['etcd']),
            '--bind-address', HOST, '--advertise-address', HOST, '--secure-port', str(self.ports['apiserver']),
            # the endpoints of the "kubernetes" Service may not be a loopback address; nothing here needs them
            '--endpoint-reconciler-type', 'none',
            '--tls-cert-file', self.apiserver_cert[0], '--tls-private-key-file', self.apiserver_cert[1],
            '--client-ca-file', self.ca.cert_path, '--cert-dir', pki,
            '--token-auth-file', os.path.join(pki, 'tokens.csv'),
            '--service-account-key-file', self.sa_pub, '--service-account-signing-key-file', self.sa_key,
            '--service-account-issuer', 'https://kubernetes.default.svc.cluster.local',
            '--service-cluster-ip-range', SERVICE_CIDR,
            '--audit-policy-file', os.path.join(pki, 'audit-policy.json'),
            '--audit-log-path', self.audit_log_path, '--audit-log-format', 'json', '--audit-log-mode', 'blocking',
            '--authorization-mode', 'Node,RBAC', '--allow-privileged=true', '--profiling=false',
            '--disable-admission-plugins', 'TaintNodesByCondition',
            '--v', '1',
        ])
        self._wait('kube-apiserver', lambda: self._healthz(self.ports['apiserver'], '/readyz'), timeout=240)

    def start_controller_manager(self):
        binary = os.path.join(upstream_dir('kubernetes'), 'kube-controller-manager')
        config = self._path('controller-manager.kubeconfig')
        self._spawn('kube-controller-manager', [
            binary, '--kubeconfig', config, '--authentication-kubeconfig', config,
            '--authorization-kubeconfig', config,
            '--bind-address', HOST, '--secure-port', str(self.ports['controller-manager']),
            '--cert-dir', self._path('controller-manager-certs'),
            '--leader-elect=false', '--controllers', ','.join(CONTROLLERS),
            '--use-service-account-credentials=true',
            '--service-account-private-key-file', self.sa_key, '--root-ca-file', self.ca.cert_path,
            '--concurrent-gc-syncs', '5', '--profiling=false', '--v', '1',
        ])
        self._wait('kube-controller-manager', lambda: self._healthz(self.ports['controller-manager']))

    def start_scheduler(self):
        binary = os.path.join(upstream_dir('kubernetes'), 'kube-scheduler')
        config = self._path('scheduler.kubeconfig')
        self._spawn('kube-scheduler', [
            binary, '--kubeconfig', config, '--authentication-kubeconfig', config,
            '--authorization-kubeconfig', config,
            '--bind-address', HOST, '--secure-port', str(self.ports['scheduler']),
            '--cert-dir', self._path('scheduler-certs'), '--leader-elect=false', '--profiling=false', '--v', '1',
        ])
        self._wait('kube-scheduler', lambda: self._healthz(self.ports['scheduler']))

    def write_kwok_config(self):
        with open(self._path('kwok.yaml'), 'w') as handle:
            handle.write(kwok_stages.config(self.never_ready))

    def start_kwok(self):
        binary = os.path.join(upstream_dir('kwok'), 'kwok')
        self.write_kwok_config()
        self._spawn('kwok', [
            binary, '--kubeconfig', self._path('kwok.kubeconfig'), '--config', self._path('kwok.yaml'),
            '--manage-nodes-with-annotation-selector',
            '%s=%s' % (kwok_stages.MANAGED_ANNOTATION, kwok_stages.MANAGED_VALUE),
            '--server-address', '%s:%d' % (HOST, self.ports['kwok']),
            '--node-ip', HOST, '--cidr', POD_CIDR, '--node-lease-duration-seconds', '0',
        ])
        self._wait('kwok', lambda: _get('http://%s:%d/healthz' % (HOST, self.ports['kwok']), None)[0] == 200,
                   timeout=180)

    def start_volcano(self):
        """Volcano's vc-controller-manager with only its colocation-config-controller, leader election off
        (no health or metrics listener: both are off unless enabled)."""
        binary = os.path.join(upstream_dir('volcano'), 'vc-controller-manager')
        name = 'vc-controller-manager'
        log = self._path('logs', name + '.log')
        offset = os.path.getsize(log) if os.path.exists(log) else 0
        self._spawn(name, [binary, '--kubeconfig', self._path('volcano.kubeconfig'),
                           '--controllers', '+colocation-config-controller', '--leader-elect=false', '--v', '3'])

        def started():
            with open(log, 'rb') as handle:
                handle.seek(offset)
                return b'colocationConfigController starting' in handle.read()
        self._wait(name, started, timeout=180)

    def stop_volcano(self):
        stop_processes([p for p in self.processes if p['name'] == 'vc-controller-manager'])
        self.processes = [p for p in self.processes if p['name'] != 'vc-controller-manager']
        self.write_state()

    def set_never_ready(self, workloads):
        """Workloads (``namespace/name``) whose pods never become ready: kwok restarts with new stages."""
        if not self.kwok:
            raise ControlPlaneError('the control plane in %s runs without kwok: no workload can be made never-ready '
                                    '(start it with kwok)' % self.directory)
        self.never_ready = set(workloads)
        stop_processes([p for p in self.processes if p['name'] == 'kwok'])
        self.processes = [p for p in self.processes if p['name'] != 'kwok']
        self.start_kwok()
        self.write_state()

    def start(self):
        began = time.monotonic()
        self._prepare()
        try:
            self.start_etcd()
            self.start_apiserver()
            self.write_state()
            self.start_controller_manager()
            self.start_scheduler()
            if self.kwok:
                self.start_kwok()
            client = self.api_client()
            try:
                from .objects import add_node, wait_for
                for name in self.initial_nodes:
                    add_node(client, name)
                for name in self.initial_nodes:
                    wait_for(lambda n=name: node_ready(client, n), 'node %s Ready' % name, timeout=180)
                wait_for(lambda: default_service_account(client), 'the default ServiceAccount', timeout=180)
            finally:
                client.close()
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = round(time.monotonic() - began, 1)
        self.write_state()
        return self

    def stop(self):
        stop_processes(self.processes)
        self.processes = []
        try:
            os.unlink(self._path('state.json'))
        except FileNotFoundError:
            pass

    def node_kubeconfig(self, node, path, host=HOST):
        """Write a kubeconfig for a real kubelet registering Node ``node``: a client certificate of
        ``system:node:<node>`` in group ``system:nodes`` (what the Node authorizer and the NodeRestriction
        admission plugin expect of a kubelet), everything embedded so the one file can be copied to the node;
        ``host`` is the address the node dials (``QEMU_HOST_ALIAS`` from the test VM)."""
        import base64
        ca = certs.CertificateAuthority.load(self._path('pki'))
        cert, key = ca.issue('kubelet-' + node, 'system:node:' + node, organizations=('system:nodes',), client=True)

        def data(fn):
            with open(fn, 'rb') as handle:
                return base64.b64encode(handle.read()).decode('ascii')
        config = kubeconfig('https://%s:%d' % (host, self.ports['apiserver']), None,
                            {'client-certificate-data': data(cert), 'client-key-data': data(key)})
        config['clusters'][0]['cluster'] = {'server': config['clusters'][0]['cluster']['server'],
                                            'certificate-authority-data': data(self._path('pki', 'ca.crt'))}
        return write_json(path, config)

    def api_client(self, kubeconfig_path=None):
        """A client with the fixture's own identity (kept out of the audit log) unless a kubeconfig is named."""
        import kubernetes
        return kubernetes.config.new_client_from_config(config_file=kubeconfig_path or self._path('fixture.kubeconfig'))


NOT_READY_TAINT = 'node.kubernetes.io/not-ready'


def node_ready(client, name):
    """The node is Ready and carries no not-ready taint, so pods can land (kube-apiserver runs without the
    admission plugin that adds that taint, and nothing here lifts it: a taint would be a test's own)."""
    import kubernetes
    core = client if isinstance(client, kubernetes.client.CoreV1Api) else kubernetes.client.CoreV1Api(client)
    node = core.read_node(name)
    return (any(c.type == 'Ready' and c.status == 'True' for c in (node.status.conditions or []))
            and not any(t.key == NOT_READY_TAINT for t in (node.spec.taints or [])))


def default_service_account(client, namespace='default'):
    import kubernetes
    try:
        kubernetes.client.CoreV1Api(client).read_namespaced_service_account('default', namespace)
    except kubernetes.client.ApiException as exc:
        if exc.status == 404:
            return False
        raise
    return True
