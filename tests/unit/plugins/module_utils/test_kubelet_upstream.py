# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The real kubelet as the judge of kubelet_config's rules.

Every accept/refuse vector of test_kubelet.py (VALID, INVALID) is run through the REAL kubelet binary of four
releases, built from k8s.io/kubernetes by ``scripts/upstream.sh`` (components ``kubelet-1.31``, the oldest release
of the table; ``kubelet-1.35``, one between; ``kubelet-1.37``, the newest release; ``kubelet-1.38``, the next
release's beta), and through ``kubelet.validate(config, <that release>)``. Both must agree on accept or refuse,
and on a refusal also on the reason: each refused vector is refused by the module for one rule
(``KubeletConfigError.rules``, test_kubelet_rules.py), and the kubelet's own error text, matched by ``REASONS``,
must name that rule. The kubelet gets the vector's configuration file plus what it needs to run here (a private
root directory, no API server, a real containerd as its CRI endpoint: ``scripts/upstream.sh path containerd``,
else the ``containerd`` on PATH). It then loads the file, parses the feature gates, validates the configuration,
refuses options maps without their gate (cmd/kubelet/app/server.go), and builds the container manager, whose CPU,
topology and memory managers check the policies, options and reservations. When it reaches ``RunKubelet`` (it logs
"Using root directory" at -v=2) everything this module checks has passed: the kubelet is stopped there, before it
would start pods or touch the node's cgroups. Its exit is classified by its error text (``classify``).

The 1.38 kubelet is built with one stand-in: its iptables helper library (sigs.k8s.io/iptables-wrappers v1.0.0),
which the Go module proxy refuses to serve, is replaced by a package with the same calls that finds no iptables
(tests/upstream/kubelet-1.38/iptables-standin/README.md). The kubelet uses it only in ``Kubelet.Run``, after the
point where this test stops it; every check this test compares is the real kubelet's code.

The binaries are required: a missing one FAILS this test, naming the command that builds it
(``scripts/upstream.sh build kubelet-1.31 kubelet-1.35 kubelet-1.37 kubelet-1.38``).
``NUMAOPS_SKIP_UPSTREAM_KUBELET=1`` skips it explicitly. ``NUMAOPS_UPSTREAM_PATH_KUBELET_1_31`` (and ``_1_35``,
``_1_37``, ``_1_38``) / ``NUMAOPS_UPSTREAM_PATH_CONTAINERD`` point at a directory of binaries instead of asking
scripts/upstream.sh.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet as k
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.test_kubelet import INVALID, VALID
from ansible_collections.numaops.colocation.tests.unit.unit_stage import only_here

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
SKIP = os.environ.get('NUMAOPS_SKIP_UPSTREAM_KUBELET') == '1'
COMPONENTS = ('kubelet-1.31', 'kubelet-1.35', 'kubelet-1.37', 'kubelet-1.38')
TIMEOUT = 45
PARALLEL = 3

# Vectors where the kubelet and the module cannot agree, by design: {(vector name, minor or None for every
# release): reason}. Each is a deliberately stricter check (docs/kubelet_config.md): the kubelet starts but does not
# do what the file says.
_TOPOLOGY_NONE = ('the kubelet does not look at topologyManagerPolicyOptions under topology policy none '
                  '(topologymanager.NewManager returns before parsing them); the module checks them anyway')
_MEMORY_GATE_OFF = 'the kubelet ignores memoryManagerPolicy Static while the MemoryManager gate is off'
BY_DESIGN = {
    ('negative reconcile period', None): 'the kubelet does not validate cpuManagerReconcilePeriod',
    ('MemoryManager gate off', 31): _MEMORY_GATE_OFF,
    ('MemoryManager locked', 31): _MEMORY_GATE_OFF,  # on 1.31 the gate is not locked yet: the same vector as above
    ('max-allowable-numa-nodes minimum', None): _TOPOLOGY_NONE,
    ('max-allowable-numa-nodes integer', None): _TOPOLOGY_NONE,
    ('unknown topology option', None): _TOPOLOGY_NONE,
    ('topology beta option with beta gate off', 31): _TOPOLOGY_NONE,
    ('reservedMemory hugepages size', None): 'the kubelet accepts any hugepages-* limit name in reservedMemory (the '
                                             'Static memory manager could never match it); the module refuses it',
    ('reservedMemory numa node', None): 'the kubelet accepts a negative numaNode in reservedMemory (no such NUMA node '
                                        'can exist); the module refuses it',
}

# Gates the generated table has at a release although that release's kubelet does not register them: a known defect
# of scripts/gen_kubelet_releases.py, listed so that it stays visible (and this list must shrink when it is fixed).
GENERATOR_EXTRA = {
    38: {'ControllerManagerReleaseLeaderElectionLockOnExit':
         'the generator takes every gate of k8s.io/controller-manager/pkg/features because its register package hands '
         'the registry to it (k8s.io/cloud-provider/options imports it); the 1.37 kubelet imports that, the 1.38 one no '
         'longer does, and pkg/features of 1.38 names only three of its four gates'},
}

pytestmark = [
    only_here('the real-kubelet agreement test', stage='kubelets'),
    pytest.mark.skipif(SKIP, reason='NUMAOPS_SKIP_UPSTREAM_KUBELET=1: the real-kubelet agreement test is skipped on request'),
]

# What the kubelet says when it refuses the configuration (up to the container manager).
REFUSED = [
    r'failed to validate kubelet configuration', r'unrecognized feature gate', r'cannot set feature gate',
    r'failed to set feature gates', r'require feature gates? ', r'None policy: received unsupported options',
    r'Policy (?:Alpha|Beta)-level Options not enabled', r'unknown (?:CPU|Topology) Manager Policy option',
    r'bad value for option', r'unknown policy', r'failed to load Kubelet config file', r'strict decoding error',
    r'requires systemreserved\.cpu\+kubereserved\.cpu to be greater than zero', r'are mutually exclusive',
    r'not equal to the value determined by Node Allocatable', r'is not supported (?:at|for) ',
    r'invalid configuration', r'failed to parse', r'must be greater than or equal', r'cannot be used with',
    r'max-allowable-numa-nodes', r'failed to initialize (?:cpu|memory|topology) manager',
    r'invalid policy', r'could not be parsed', r'is invalid', r'cannot reserve', r'cannot be negative',
    r'quantities must match', r'cannot unmarshal', r'missing unit in duration', r'invalid duration',
    r'you should specify', r'reserved memory', r'unsupported options', r'can not be used at the same time',
    r'is incompatible with',
]
# What it says when it got past the configuration checks and failed on this machine (no such CPUs / NUMA node).
NODE = [r'unable to reserve the required amount of CPUs', r'not all reserved cpus', r'NUMA node .* does not exist']
# Why it refused, as the names of the module's rules (rules.py) its words prove: (pattern, rules). A vector agrees on
# the reason when the module's one rule is among those of the patterns the kubelet's error lines match.
_CPU_OPTION = r'unknown CPU Manager Policy option|unsupported cpumanager option'
_TOPOLOGY_OPTION = r'unknown Topology Manager Policy option|unsupported topologymanager option'
REASONS = [
    (r'initialize cpu manager.*unknown policy', {'cpu-manager-policy'}),
    (r'initialize memory manager.*(?:unknown policy|is not available)', {'memory-manager-policy'}),
    (r'topologyManagerPolicy \(--topology-manager-policy\) .* must be one of', {'topology-manager-policy'}),
    (r'topologyManagerScope \(--topology-manager-scope\) .* must be one of', {'topology-manager-scope'}),
    (_CPU_OPTION, {'cpu-option-known', 'cpu-option-in-release'}),
    (_TOPOLOGY_OPTION, {'topology-option-known', 'topology-option-in-release'}),
    (r'bad value for option', {'cpu-option-value', 'topology-option-value'}),
    (r'unable to convert policy option to integer|the minimum value of .*max-allowable-numa-nodes',
     {'topology-option-value'}),
    (r'cannot unmarshal bool into .*cpuManagerPolicyOptions', {'cpu-option-value'}),
    (r'CPU Manager Policy (?:Alpha|Beta)-level Options not enabled', {'cpu-option-maturity-gate'}),
    (r'topology manager policy (?:alpha|beta)-level options not enabled', {'topology-option-maturity-gate'}),
    (r'cpu manager policy options .* require feature gates', {'cpu-options-map-gate'}),
    (r'topology manager policy options .* require feature gates', {'topology-options-map-gate'}),
    (r'None policy: received unsupported options', {'none-policy-options'}),
    (r'static policy options \S+ and \S+ can not be used at the same time', {'cpu-options-exclusive'}),
    (r'policy is incompatible with CPUManager align-by-socket policy option', {'align-by-socket-single-numa-node'}),
    (r'requires systemreserved\.cpu ?\+ ?kubereserved\.cpu to be greater than zero|'
     r'unable to determine reserved CPU resources for static policy', {'static-cpu-reservation'}),
    (r"can't use reservedSystemCPUs", {'reserved-system-cpus-cgroups'}),
    (r'unable to parse reservedSystemCPUs|cannot unmarshal number into .*reservedSystemCPUs', {'reserved-system-cpus'}),
    (r'--(?:system|kube)-reserved value failed to parse|cannot reserve \S+ resource|'
     r'resource quantity for .* cannot be negative|cannot unmarshal \S+ into .*(?:systemReserved|kubeReserved)',
     {'reserved-resources'}),
    # a memory.available threshold that is not a quantity: the kubelet's words name no field
    (r'failed to run Kubelet: quantities must match', {'eviction-hard-memory'}),
    (r'time: (?:invalid|missing unit in) duration|cpuManagerReconcilePeriod', {'cpu-manager-reconcile-period'}),
    (r'is not equal to the value .* determined by Node Allocatable|you should specify the system reserved memory',
     {'static-memory-sum'}),
    (r'the limit type .* is not supported|reserved memory may not be zero|reserved memory has a duplicate',
     {'reserved-memory'}),
    (r'cannot unmarshal string into .*featureGates|featureGates.* of type bool', {'feature-gate-value'}),
    (r'unrecognized feature gate', {'feature-gate-known'}),
    (r'cannot set feature gate .* locked|locked to', {'feature-gate-locked'}),
]
PASSED_MARK = 'Using root directory'


def _component_dir(component):
    override = os.environ.get('NUMAOPS_UPSTREAM_PATH_' + re.sub(r'[^A-Z0-9]', '_', component.upper()))
    if override:
        return override
    script = os.path.join(ROOT, 'scripts', 'upstream.sh')
    if not os.path.exists(script):
        return None
    proc = subprocess.run([script, 'path', component], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None


def _version(binary):
    out = subprocess.run([binary, '--version'], stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    return re.search(r'v1\.(\d+)\.\d+', out).group(0)


@pytest.fixture(scope='module')
def kubelets():
    found = {}
    missing = []
    for component in COMPONENTS:
        directory = _component_dir(component)
        binary = os.path.join(directory, 'kubelet') if directory else None
        if not binary or not os.access(binary, os.X_OK):
            missing.append(component)
            continue
        found[component] = (binary, _version(binary))
    if missing:
        pytest.fail('the real kubelet of %s is not built: run scripts/upstream.sh build %s first (or set '
                    'NUMAOPS_SKIP_UPSTREAM_KUBELET=1 to skip this test explicitly)'
                    % (', '.join(missing), ' '.join(missing)), pytrace=False)
    if os.geteuid() != 0:
        pytest.fail('the real kubelet needs root to build its container manager (set NUMAOPS_SKIP_UPSTREAM_KUBELET=1 '
                    'to skip this test explicitly)', pytrace=False)
    return found


@pytest.fixture(scope='module')
def containerd():
    directory = _component_dir('containerd')
    binary = os.path.join(directory, 'containerd') if directory else shutil.which('containerd')
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail('no containerd to serve the kubelet\'s CRI: run scripts/upstream.sh build containerd (or set '
                    'NUMAOPS_SKIP_UPSTREAM_KUBELET=1)', pytrace=False)
    top = tempfile.mkdtemp(prefix='numaops-judge-ctd-')
    sock = os.path.join(top, 'containerd.sock')
    with open(os.path.join(top, 'config.toml'), 'w') as handle:
        handle.write('version = 2\nroot = "%s/root"\nstate = "%s/state"\n[grpc]\n  address = "%s"\n'
                     '[ttrpc]\n  address = "%s.ttrpc"\n[debug]\n  address = ""\n[metrics]\n  address = ""\n'
                     '[plugins."io.containerd.grpc.v1.cri"]\n  disable_tcp_service = true\n'
                     '  stream_server_address = "127.0.0.1"\n  stream_server_port = "0"\n'
                     '  [plugins."io.containerd.grpc.v1.cri".cni]\n    bin_dir = "%s/cni-bin"\n'
                     '    conf_dir = "%s/cni-conf"\n' % (top, top, sock, sock, top, top))
    log = open(os.path.join(top, 'containerd.log'), 'w')
    proc = subprocess.Popen([binary, '--config', os.path.join(top, 'config.toml')], stdout=log, stderr=log,
                            start_new_session=True)
    for _attempt in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail('containerd did not start: see %s/containerd.log' % top, pytrace=False)
    yield sock
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=20)
    log.close()
    shutil.rmtree(top, ignore_errors=True)


def run_kubelet(binary, config, sock, port):
    """Run the kubelet on ``config``; returns (verdict, evidence): verdict passed / refused / node / unknown."""
    top = tempfile.mkdtemp(prefix='numaops-judge-')
    try:
        run = dict(config)
        run.update(containerRuntimeEndpoint='unix://' + sock, failSwapOn=False, failCgroupV1=False, port=port, healthzPort=0,
                   readOnlyPort=0, cgroupDriver='cgroupfs', staticPodPath='', podLogsDir=os.path.join(top, 'logs'),
                   authentication={'anonymous': {'enabled': True}, 'webhook': {'enabled': False}},
                   authorization={'mode': 'AlwaysAllow'})
        path = os.path.join(top, 'config.yaml')
        with open(path, 'w') as handle:
            json.dump(run, handle)
        proc = subprocess.Popen([binary, '--config', path, '--root-dir', os.path.join(top, 'root'),
                                 '--cert-dir', os.path.join(top, 'pki'), '--hostname-override', 'judge', '--v', '2'],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                                start_new_session=True)
        lines = []
        deadline = time.time() + TIMEOUT
        for line in proc.stdout:
            lines.append(line)
            if PASSED_MARK in line or time.time() > deadline:
                break
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        text = ''.join(lines)
        return classify(text), text
    finally:
        _unmount_under(top)
        shutil.rmtree(top, ignore_errors=True)


def _unmount_under(top):
    """Undo the kubelet's bind mount of its root directory (it makes it rshared when it gets that far)."""
    with open('/proc/self/mountinfo') as handle:
        points = [line.split()[4] for line in handle if line.split()[4].startswith(top + '/')]
    for point in sorted(points, reverse=True):
        subprocess.run(['umount', '-l', point], check=False)


def _error_lines(text):
    # klog error lines, the final "command failed", and the panic kubelet 1.37 raises for a bad feature gate
    # ("failed to merge global and in-flight KubeletConfiguration while setting defaults").
    return '\n'.join(line for line in text.splitlines() if line.startswith(('E', 'F', 'panic:'))
                     or 'command failed' in line or 'Error:' in line)


def classify(text):
    if PASSED_MARK in text:
        return 'passed'
    errors = _error_lines(text)
    if any(re.search(pattern, errors, re.I) for pattern in NODE):
        return 'node'
    if any(re.search(pattern, errors, re.I) for pattern in REFUSED):
        return 'refused'
    return 'unknown'


def kubelet_reasons(text):
    """The module rules the kubelet's error text names (REASONS)."""
    errors = _error_lines(text)
    found = set()
    for pattern, rules in REASONS:
        if re.search(pattern, errors, re.I):
            found |= rules
    return found


def _module_verdict(config, version):
    try:
        k.validate(config, version)
    except k.KubeletConfigError as err:
        return 'refused', err.errors, err.rules
    return 'passed', [], []


def test_the_real_kubelet_agrees_with_the_module(kubelets, containerd, capsys):
    vectors = [(case[0], case[1]) for case in VALID] + [(case[0], case[1]) for case in INVALID]
    jobs = []
    for binary, version in sorted(set(kubelets.values()), key=lambda item: _minor(item[1])):
        for name, config in vectors:
            jobs.append((name, config, binary, version, 20000 + len(jobs)))
    started = time.time()
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        results = list(pool.map(lambda job: (job, run_kubelet(job[2], job[1], containerd, job[4])), jobs))
    elapsed = time.time() - started
    disagreements = []
    tally = {}
    for (name, config, _binary, version, _port), (verdict, text) in results:
        minor = _minor(version)
        count = tally.setdefault(version, dict(vectors=0, agree=0, by_design=0, refused=0, reasons=0))
        count['vectors'] += 1
        mine, errors, rules = _module_verdict(config, version)
        theirs = 'passed' if verdict == 'node' else verdict
        designed = BY_DESIGN.get((name, minor)) or BY_DESIGN.get((name, None))
        tail = '\n'.join(text.strip().splitlines()[-4:])
        if verdict == 'unknown' or (theirs != mine) != bool(designed):
            disagreements.append('%s on kubelet %s: kubelet %s, module %s %s%s\n    kubelet said: %s'
                                 % (name, version, verdict, mine, errors,
                                    ' (listed BY_DESIGN but they agree)' if designed else '', tail))
            continue
        count['agree' if not designed else 'by_design'] += 1
        if mine != 'refused' or theirs != 'refused':
            continue
        count['refused'] += 1
        named = sorted(set(rules))
        said = kubelet_reasons(text)
        if len(named) != 1:
            disagreements.append('%s on kubelet %s: the module refuses it for %d rules (%s), so the kubelet\'s reason '
                                 'cannot prove one; enable what else the vector needs'
                                 % (name, version, len(named), ', '.join(named)))
        elif named[0] in said:
            count['reasons'] += 1
        else:
            disagreements.append('%s on kubelet %s: the module refuses it for rule %s, the kubelet for %s\n'
                                 '    kubelet said: %s\n    module said: %s'
                                 % (name, version, named[0], ', '.join(sorted(said)) or 'a reason REASONS does not '
                                    'know', _error_lines(text)[-600:], errors))
    with capsys.disabled():  # the figures are the point of the run: shown whether it passes or not
        print()
        for version in sorted(tally, key=_minor):
            count = tally[version]
            print('kubelet %s: %d vectors, %d agreements (%d more by design), %d refused by both, %d reasons matched'
                  % (version, count['vectors'], count['agree'], count['by_design'], count['refused'], count['reasons']))
        print('real-kubelet agreement: %d runs in %.1fs' % (len(jobs), elapsed))
    assert not disagreements, '\n'.join(disagreements)


def _minor(version):
    return int(version.split('.')[1])


def test_the_real_kubelet_knows_the_gates_of_the_table(kubelets):
    # `kubelet --help` lists every gate that can still be set (alpha and beta); the generated table must have exactly
    # those as alpha/beta at that release: this checks the generator found every package the registry gets gates from.
    for binary, version in sorted(set(kubelets.values()), key=lambda item: _minor(item[1])):
        out = subprocess.run([binary, '--help'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, check=False).stdout
        block = out[out.index('--feature-gates'):]
        block = block[:block.index('\n      --', 1)]
        listed = set(re.findall(r'^\s+([A-Z][A-Za-z0-9]+)=true\|false', block, re.M)) - {'AllAlpha', 'AllBeta'}
        minor = _minor(version)
        table = set(gate for gate in k.FEATURE_GATES if (k.gate_spec(gate, minor) or ('',))[0] in ('Alpha', 'Beta'))
        extra = set(GENERATOR_EXTRA.get(minor, {}))
        assert extra <= table, 'GENERATOR_EXTRA lists gates the table no longer has: %s' % sorted(extra - table)
        table -= extra
        assert listed == table, (version, sorted(listed - table), sorted(table - listed))
