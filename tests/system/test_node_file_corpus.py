# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Corpus: real-world containerd and kubelet files (provenance in fixtures/containerd/PROVENANCE.md and
fixtures/kubelet/README.md) and hostile inputs, through Ansible itself (action plugin + node_files).

For every case: the outcome, a message naming the file and the reason, and the sha256 of every involved file
before and after (a refusal leaves all of them byte-identical; links stay links). Edited containerd files are
then loaded by the real containerd of that release (`containerd --config FILE config dump`): Debian's 1.7 and
2.1 from tests/integration/targets/containerd_nri/files/fetch-containerd.sh's cache, the newest from
scripts/upstream.sh (or NUMAOPS_CONTAINERD_NEWEST_DIR); a missing one fails the test, naming the command that
makes it. The grub files' hostile cases
are in tests/unit/plugins/modules/test_kernel_cmdline_hostile.py (the module runs in-process there).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

import pytest

from ansible_collections.numaops.colocation.tests.unit import playbooks

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, 'tests', 'unit', 'plugins', 'fixtures')
CACHE = os.environ.get('NUMAOPS_CACHE') or os.path.expanduser('~/.cache/numaops-colocation')
MIB = 1024 * 1024


def sha(path):
    if os.path.islink(path) and not os.path.exists(path):
        return 'dangling->' + os.readlink(path)
    if not os.path.lexists(path):
        return None
    if os.path.isdir(path):
        return 'directory'
    with open(path, 'rb') as handle:
        return hashlib.sha256(handle.read()).hexdigest()


FETCH_CONTAINERD = 'tests/integration/targets/containerd_nri/files/fetch-containerd.sh'


def containerd_binary(release):
    """The real containerd of a release line: '1.7' / '2.1' (Debian), 'newest' (built from its Go module). Fails,
    naming the command that makes it, when it is not there: scripts/test.sh fetches and builds them in its
    upstream stage, before the unit stage (and when the unit stage runs alone)."""
    if release == 'newest':
        candidates = [os.environ.get('NUMAOPS_CONTAINERD_NEWEST_DIR')]
        script = os.path.join(REPO, 'scripts', 'upstream.sh')
        if os.access(script, os.X_OK):
            proc = subprocess.run([script, 'path', 'containerd'], capture_output=True, text=True, check=False)
            candidates.append(proc.stdout.strip() if proc.returncode == 0 else None)
        command = 'scripts/upstream.sh build containerd'
    else:
        suite = {'1.7': 'trixie', '2.1': 'sid'}[release]
        candidates = [os.path.join(CACHE, 'containerd', suite, 'root', 'usr', 'bin')]
        command = 'sh %s %s %s' % (FETCH_CONTAINERD, suite, os.path.join(CACHE, 'containerd'))
    for directory in candidates:
        if directory and os.access(os.path.join(directory, 'containerd'), os.X_OK):
            return os.path.join(directory, 'containerd')
    pytest.fail('no containerd %s binary here: `%s` makes it (scripts/test.sh upstream does, and every stage that '
                'needs it when run alone)' % (release, command))
    return None


class Case(object):
    def __init__(self, name, module, args, files, expect, fragments=(), changed_files=(), links=(), release=None,
                 after=None):
        self.name, self.module, self.args, self.files = name, module, args, files
        self.expect, self.fragments, self.changed_files, self.links = expect, fragments, changed_files, links
        self.release, self.after = release, after
        self.before = None
        self.result = None


def run_playbook(work, cases):
    results = playbooks.run_tasks(work, [{'name': case.name, case.module: case.args} for case in cases])
    for case, result in zip(cases, results):
        case.result = result


def chattr(flag, path):
    return bool(shutil.which('chattr')) and subprocess.call(['chattr', flag, path], stderr=subprocess.DEVNULL) == 0


def fixture(*parts):
    return os.path.join(FIXTURES, *parts)


def build(base):
    """All cases with their files; returns (cases, immutable paths to unlock afterwards)."""
    cases, immutable = [], []
    missing = str(base / 'no-such-containerd')

    def place(name, source=None, data=None):
        d = base / name
        d.mkdir()
        target = d / 'config.toml'
        if source:
            shutil.copyfile(fixture('containerd', source), str(target))
        elif data is not None:
            target.write_bytes(data)
        return d, str(target)

    # ---- real-world containerd files: each edited, and loaded afterwards by the containerd it belongs to
    for source, version, release in (
            ('default-1.7.toml', '1.7.24', '1.7'),           # `containerd config default`, Debian 1.7.24~ds1
            ('default-2.1.toml', '2.1.9', '2.1'),            # `containerd config default`, Debian 2.1.9
            ('default-2.4.toml', '2.4.2', 'newest'),         # `containerd config default`, v2.4.2 from its module
            ('kubespray-v2.31-containerd-2.3.toml', '2.3.1', 'newest'),  # kubespray template, version = 4
            ('kubespray-v2.31-containerd-2.2.toml', '2.2.1', 'newest'),  # kubespray template, version = 3
            ('eks-nodeadm-nvidia-v2.toml', '1.7.24', '1.7'),  # EKS nodeadm e2e expected output, NVIDIA runtime
            ('eks-nodeadm-nvidia-v3.toml', '2.1.9', '2.1'),
            ('debian-bookworm-package.toml', '1.7.24', '1.7')):
        _d, path = place('real-' + source.replace('.toml', ''), source)
        cases.append(Case('real ' + source, 'numaops.colocation.containerd_nri',
                          dict(path=path, containerd_version=version, containerd_binary=missing,
                               socket_path=str(base / 'nri.sock')),
                          [path], 'changed', changed_files=[path], release=release))

    # a v4 file for a containerd that reads 3 at most
    _d, path = place('v4-on-2.1', 'kubespray-v2.31-containerd-2.3.toml')
    cases.append(Case('version 4 with containerd 2.1', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='2.1.9', containerd_binary=missing), [path], 'failed',
                      [path, '`version = 4`', 'containerd 2.1.9 does not accept', 'reads config version 3 at most']))

    # ---- k3s: generated file, refused with the template to use; template=manage edits the template
    d, path = place('k3s', 'k3s-style.toml')
    cases.append(Case('k3s generated file refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='1.7.23-k3s2', containerd_binary=missing), [path], 'failed',
                      [path, 'generated by k3s', 'DO NOT EDIT', 'template=manage', str(d / 'config.toml.tmpl')]))
    d, path = place('k3s-manage', 'k3s-style.toml')
    tmpl = str(d / 'config.toml.tmpl')
    shutil.copyfile(path, tmpl)
    cases.append(Case('k3s template managed', 'numaops.colocation.containerd_nri',
                      dict(path=path, template='manage', containerd_version='1.7.23-k3s2', containerd_binary=missing),
                      [path, tmpl], 'changed', changed_files=[tmpl], release='1.7'))
    d, path = place('k3s-manage-gotemplate', 'k3s-style.toml')
    tmpl = str(d / 'config.toml.tmpl')
    with open(tmpl, 'w') as handle:
        handle.write('{{ template "base" . }}\n')
    cases.append(Case('k3s Go template refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, template='manage', containerd_version='1.7.23-k3s2', containerd_binary=missing),
                      [path, tmpl], 'failed', [tmpl, 'Go template directives']))

    # ---- hostile containerd inputs
    d, path = place('symlink', 'default-2.1.toml')
    real = str(d / 'real.toml')
    os.rename(path, real)
    os.symlink('real.toml', path)
    cases.append(Case('symlink kept, target written', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='2.1.9', containerd_binary=missing,
                           plugin_request_timeout='3s'), [path, real], 'changed',
                      changed_files=[real], links=[path], release='2.1'))
    d = base / 'dangling'
    d.mkdir()
    path = str(d / 'config.toml')
    os.symlink(str(d / 'gone' / 'config.toml'), path)
    cases.append(Case('dangling link refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='2.1.9', containerd_binary=missing), [path], 'failed',
                      [path, 'symbolic link to %s' % (d / 'gone' / 'config.toml'), 'does not exist', 'create=true']))
    d = base / 'dangling-create'
    d.mkdir()
    path = str(d / 'config.toml')
    os.symlink('real.toml', path)
    cases.append(Case('dangling link with create=true', 'numaops.colocation.containerd_nri',
                      dict(path=path, create=True, containerd_version='2.1.9', containerd_binary=missing),
                      [path, str(d / 'real.toml')], 'changed', changed_files=[str(d / 'real.toml')], links=[path],
                      release='2.1'))
    path = str(base / 'no-dir' / 'config.toml')
    cases.append(Case('missing directory refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='2.1.9', containerd_binary=missing), [path], 'failed',
                      [path, 'directory %s does not exist' % (base / 'no-dir')]))
    with open(fixture('containerd', 'default-1.7.toml'), 'rb') as handle:
        crlf = handle.read().replace(b'\n', b'\r\n')
    _d, path = place('crlf', data=crlf)
    cases.append(Case('CRLF kept', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='1.7.24', containerd_binary=missing), [path], 'changed',
                      changed_files=[path], release='1.7', after=_all_crlf))
    _d, path = place('latin1', data=b'# Konfiguration f\xfcr containerd\nversion = 2\n')
    cases.append(Case('Latin-1 comment refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='1.7.24', containerd_binary=missing), [path], 'failed',
                      [path + ' line 1, column 18: byte 0xfc is not UTF-8']))
    _d, path = place('nul', data=b'version = 2\n\x00\n')
    cases.append(Case('NUL refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='1.7.24', containerd_binary=missing), [path], 'failed',
                      [path + ' line 2: contains a NUL byte']))
    d = base / 'directory'
    d.mkdir()
    path = str(d / 'config.toml')
    os.mkdir(path)
    cases.append(Case('directory refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='1.7.24', containerd_binary=missing), [path], 'failed',
                      [path, 'is a directory']))
    _d, path = place('huge', data=b'version = 2\n' + b'#' * MIB + b'\n')
    cases.append(Case('huge file refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='1.7.24', containerd_binary=missing), [path], 'failed',
                      [path, 'above the limit of 1 MiB (1048576 bytes)']))
    _d, path = place('wrong-type', data=b'version = 2\n[plugins."io.containerd.nri.v1.nri"]\n  socket_path = 7\n')
    cases.append(Case('wrong-typed NRI value refused', 'numaops.colocation.containerd_nri',
                      dict(path=path, containerd_version='1.7.24', containerd_binary=missing), [path], 'failed',
                      [path, 'socket_path = 7 (integer) must be a string', 'refuses to start']))
    _d, path = place('immutable', 'default-1.7.toml')
    if chattr('+i', path):
        immutable.append(path)
        cases.append(Case('immutable file refused', 'numaops.colocation.containerd_nri',
                          dict(path=path, containerd_version='1.7.24', containerd_binary=missing), [path], 'failed',
                          ['cannot write %s: Operation not permitted (immutable' % path, 'chattr -i %s' % path]))

    # ---- kubelet configuration: kubeadm's file, linked, hostile
    state = base / 'kubelet-lib'
    state.mkdir()
    kargs = dict(state_dir=str(state), topology_manager_policy='best-effort')

    def kubelet(name, data=None, link=False):
        d = base / name
        d.mkdir()
        path = str(d / 'config.yaml')
        target = str(d / 'real.yaml') if link else path
        if data is None:
            shutil.copyfile(fixture('kubelet', 'kubeadm-1.31.yaml'), target)
        else:
            with open(target, 'wb') as handle:
                handle.write(data)
        if link:
            os.symlink('real.yaml', path)
        return path, target

    path, _t = kubelet('kubelet-kubeadm')
    cases.append(Case('kubelet kubeadm 1.31', 'numaops.colocation.kubelet_config', dict(kargs, path=path), [path],
                      'changed', changed_files=[path]))
    path, target = kubelet('kubelet-link', link=True)
    cases.append(Case('kubelet symlink kept', 'numaops.colocation.kubelet_config', dict(kargs, path=path),
                      [path, target], 'changed', changed_files=[target], links=[path]))
    with open(fixture('kubelet', 'kubeadm-1.31.yaml'), 'rb') as handle:
        kubeadm = handle.read()
    path, _t = kubelet('kubelet-huge', kubeadm + b'#' * MIB + b'\n')
    cases.append(Case('kubelet huge file refused', 'numaops.colocation.kubelet_config', dict(kargs, path=path), [path],
                      'failed', [path, 'above the limit of 1 MiB']))
    path, _t = kubelet('kubelet-latin1', b'# Kubelet-Konfiguration f\xfcr Knoten\n' + kubeadm)
    cases.append(Case('kubelet Latin-1 refused', 'numaops.colocation.kubelet_config', dict(kargs, path=path), [path],
                      'failed', [path + ' line 1, column 26: byte 0xfc is not UTF-8']))
    path, _t = kubelet('kubelet-nul', kubeadm + b'\x00')
    cases.append(Case('kubelet NUL refused', 'numaops.colocation.kubelet_config', dict(kargs, path=path), [path],
                      'failed', [path, 'contains a NUL byte']))
    path, _t = kubelet('kubelet-immutable')
    if chattr('+i', path):
        immutable.append(path)
        cases.append(Case('kubelet immutable refused', 'numaops.colocation.kubelet_config', dict(kargs, path=path),
                          [path], 'failed', ['cannot write %s: Operation not permitted (immutable' % path]))
    return cases, immutable


def _all_crlf(path):
    with open(path, 'rb') as handle:
        data = handle.read()
    return data.count(b'\n') == data.count(b'\r\n')


@pytest.fixture(scope='module', name='corpus')
def corpus_fixture(tmp_path_factory):
    base = tmp_path_factory.mktemp('corpus')
    cases, immutable = build(base)
    for case in cases:
        case.before = dict((p, sha(p)) for p in case.files)
    work = base / 'ansible'
    work.mkdir()
    try:
        run_playbook(work, cases)
    finally:
        for path in immutable:
            chattr('-i', path)
    return dict((case.name, case) for case in cases)


def test_every_case(corpus):
    problems = []
    for name, case in corpus.items():
        res = case.result
        after = dict((p, sha(p)) for p in case.files)
        if case.expect == 'failed':
            if not res.get('failed'):
                problems.append('%s: expected a refusal, got %r' % (name, res.get('msg') or res.get('changed')))
                continue
            msg = res.get('msg') or ''
            for fragment in case.fragments:
                if fragment not in msg:
                    problems.append('%s: message lacks %r: %s' % (name, fragment, msg))
            if 'Nothing was changed' not in msg and 'nothing was changed' not in msg and \
                    'not changed' not in msg:
                problems.append('%s: message does not say that nothing was changed: %s' % (name, msg))
            if "{'" in msg or 'CapturedErrorSummary' in msg:
                problems.append('%s: message carries an internal repr: %s' % (name, msg))
            if after != case.before:
                problems.append('%s: files changed on a refusal: %r -> %r' % (name, case.before, after))
        else:
            if res.get('failed') or not res.get('changed'):
                problems.append('%s: expected a change, got %r' % (name, res.get('msg')))
                continue
            for path in case.files:
                if path in case.changed_files:
                    if after[path] == case.before[path]:
                        problems.append('%s: %s did not change' % (name, path))
                elif path not in case.links and after[path] != case.before[path]:
                    problems.append('%s: %s changed but should not have' % (name, path))
            for link in case.links:
                if not os.path.islink(link):
                    problems.append('%s: the link %s was replaced by a regular file' % (name, link))
            if case.after is not None and not case.after(case.changed_files[0]):
                problems.append('%s: %s fails its content check' % (name, case.changed_files[0]))
    assert not problems, '\n'.join(problems)


@pytest.mark.parametrize('release', ['1.7', '2.1', 'newest'])
def test_edited_files_load_in_the_real_containerd(corpus, release):
    binary = containerd_binary(release)
    checked = 0
    for name, case in corpus.items():
        if case.release != release or case.result.get('failed'):
            continue
        edited = case.changed_files[0]
        proc = subprocess.run([binary, '--config', edited, 'config', 'dump'], capture_output=True, text=True,
                              check=False, timeout=60)
        assert proc.returncode == 0, '%s: %s refuses %s: %s' % (name, binary, edited, proc.stderr[-1000:])
        assert "'io.containerd.nri.v1.nri'" in proc.stdout or '"io.containerd.nri.v1.nri"' in proc.stdout
        checked += 1
    assert checked >= 1
