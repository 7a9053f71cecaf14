# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Documents, comments, test names and docstrings speak of the project as it is.

No development-step numbering (a "session" with a number), no internal issue numbers, no commit hashes of this
repository and no run logs ("Timings" sections) in any tracked text file: history lives in git and in the
changelog (``CHANGELOG.md`` and ``changelogs/``, which are not checked).

What is allowed, because it is not our history:

- an upstream project's issue, named as such ("kubernetes issue 110478", a URL of another repository's issue);
- upstream commits where a fixture's provenance is recorded (``tests/**/fixtures/**``, ``PROVENANCE.md``) and in
  Go module files (pseudo-versions);
- hexadecimal strings that are checksums, UUIDs or identifiers: a hex string is a commit hash only after a word
  that says so ("commit", "clone of", "baseline") or when it is the prefix of a commit of this repository
  (checked when the git history is at hand);
- "session" and "issue" as plain words ("an SSH session", "a known issue");
- in ``bench/README.md``, the one line that records where its table was measured (``Measured <date> ... commit
  <hash> ...``), as the benchmark prints it.
"""
from __future__ import annotations

import fnmatch
import os
import re
import subprocess

import pytest

from ansible_collections.numaops.colocation.tests.unit.unit_stage import only_here

# ansible-test's copy of the collection has no git history: there the check of commit ids would be weaker
pytestmark = only_here('reads the git history of the repository')

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))

# Not checked at all: the changelog is where history belongs; Go checksum files hold nothing but hashes.
NOT_CHECKED = ('CHANGELOG.md', 'changelogs/*', '*/go.sum', 'tests/output/*')

# Where upstream commits are recorded on purpose (fixtures' provenance, Go pseudo-versions).
PROVENANCE = ('*/fixtures/*', '*PROVENANCE.md', '*/go.mod')

UPSTREAM = (
    'ansible', 'ansible-core', 'ansible-lint', 'antsibull', 'containerd', 'cpython', 'debian', 'etcd', 'go', 'golang',
    'grub', 'k8s', 'koordinator', 'kubeadm', 'kubelet', 'kubernetes', 'kubespray', 'kwok', 'linux', 'molecule',
    'nri', 'openeuler', 'podman', 'pytest', 'python', 'qemu', 'runc', 'systemd', 'ubuntu', 'volcano',
)

_NUM = r'[ _\t#-]*(?:no\.?\s*)?\d+(?![\d.]*\d)'
SESSION = re.compile(r'(?i)(?<![a-z])sessions?' + _NUM)
ISSUE = re.compile(r'(?i)(?<![a-z])(?:issues?|tickets?|bugs?)' + _NUM)
OUR_ISSUE_URL = re.compile(r'(?i)github\.com/numaops/colocation/(?:issues|pull)/\d+')
HEX = r'(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}'
COMMIT_WORDS = re.compile(r'(?i)(?:\bcommits?|\bclone of|\bbaseline(?: =)?|--baseline|\bcherry-picked from|\brevert of)'
                          r'[ \t:]+\(?`?(' + HEX + r')\b')
HEX_TOKEN = re.compile(r'(?<![0-9a-zA-Z_.-])(' + HEX + r')(?![0-9a-zA-Z_-])')
RUN_LOG_HEADING = re.compile(r'(?im)^#{1,6}[ \t]+(?:timings|run log|history of runs)\b')
BENCH_MEASURED = re.compile(r'^Measured \d{4}-\d\d-\d\d\b.*\bcommit ' + HEX + r'\b')


def _match(path, patterns):
    return any(fnmatch.fnmatch(path, pattern) for pattern in patterns)


def _git(*args):
    try:
        out = subprocess.run(('git', '-C', ROOT) + args, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return out


def _files():
    """The repository's tracked files (git ls-files), or every file of a copy without git (ansible-test's)."""
    listed = _git('ls-files', '-z') if os.path.isdir(os.path.join(ROOT, '.git')) or os.path.isfile(
        os.path.join(ROOT, '.git')) else None
    if listed is not None:
        return sorted(p for p in listed.split('\0') if p)
    found = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in ('.git', '__pycache__', '.pytest_cache', '.tox')]
        for name in filenames:
            found.append(os.path.relpath(os.path.join(dirpath, name), ROOT).replace(os.sep, '/'))
    return sorted(found)


def _our_commits():
    """Every commit id of this repository, when its history is at hand (else an empty set)."""
    out = _git('rev-list', '--all')
    return frozenset(out.split()) if out else frozenset()


def _text(path):
    full = os.path.join(ROOT, path)
    if os.path.islink(full) or not os.path.isfile(full) or os.path.getsize(full) > 2_000_000:
        return None
    with open(full, 'rb') as handle:
        data = handle.read()
    if b'\0' in data[:8192]:
        return None
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError:
        return None


def _upstream_issue(line, match):
    before = line[:match.start()].rstrip().lower()
    word = re.split(r'[\s(\[`\'"]', before)[-1] if before else ''
    return word.rstrip(':,') in UPSTREAM or word.endswith("'s") and word[:-2] in UPSTREAM


def problems_in(path, text, commits=frozenset()):
    """Each place in ``text`` (the file ``path``) that records development history, as 'path:line: what'."""
    found = []
    provenance = _match(path, PROVENANCE)
    for number, line in enumerate(text.splitlines(), 1):
        where = '%s:%d: ' % (path, number)
        for match in SESSION.finditer(line):
            found.append(where + 'development step %r' % match.group(0))
        for match in ISSUE.finditer(line):
            if not _upstream_issue(line, match):
                found.append(where + 'internal issue number %r (name the upstream project if it is theirs)'
                             % match.group(0))
        for match in OUR_ISSUE_URL.finditer(line):
            found.append(where + 'internal issue %r' % match.group(0))
        if path == 'bench/README.md' and BENCH_MEASURED.match(line):
            continue
        if not provenance:
            for match in COMMIT_WORDS.finditer(line):
                found.append(where + 'commit hash %r' % match.group(1))
        if commits and not path.endswith(('go.mod', 'go.sum')):
            for match in HEX_TOKEN.finditer(line):
                token = match.group(1)
                if any(commit.startswith(token) for commit in commits) and not COMMIT_WORDS.search(line) or (
                        provenance and any(commit.startswith(token) for commit in commits)):
                    found.append(where + 'commit hash %r of this repository' % token)
    for match in RUN_LOG_HEADING.finditer(text):
        found.append('%s:%d: a run log (%r): documents state current facts; history is in git'
                     % (path, text.count('\n', 0, match.start()) + 1, match.group(0).strip()))
    return found


def _checked():
    return [p for p in _files() if not _match(p, NOT_CHECKED)]


def test_no_development_history_in_tracked_files():
    commits = _our_commits()
    found = []
    for path in _checked():
        text = _text(path)
        if text is not None:
            found.extend(problems_in(path, text, commits))
    assert not found, ('development history in documents, comments, test names or docstrings (it belongs in git '
                       'and the changelog):\n' + '\n'.join(found))


# The examples are assembled from pieces so that this file passes its own rule.
S, I, C = 'sess' + 'ion', 'iss' + 'ue', 'com' + 'mit'
HEX7 = 'e1f2' + 'a3b'
OURS = HEX7 + '4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d'


@pytest.mark.parametrize('path,line', [
    ('README.md', 'measured in %s 17 on a quiet machine' % S),
    ('docs/x.md', 'as %ss 10-12 found' % S),
    ('tests/unit/test_x.py', 'def test_%s_31_rollback():' % I),
    ('plugins/modules/x.py', '# see %s #31' % I),
    ('extensions/molecule/vm/agent.yml', '# (%s 12 item 4)' % I),
    ('bench/fleet.py', 'branch %s17-s14' % I),
    ('README.md', 'CI passed at %s %s' % (C, 'a96' + '7ff8')),
    ('README.md', 'a git clone of %s, cold' % ('04c' + 'cdd9')),
    ('bench/README.md', 'python bench/fleet.py --baseline %s' % ('daf' + 'f1dc')),
    ('docs/x.md', 'https://github.com/numaops/colocation/%ss/35' % I),
    ('docs/x.md', 'fixed at %s' % HEX7),
])
def test_history_is_found(path, line):
    assert problems_in(path, line + '\n', frozenset([OURS]))


@pytest.mark.parametrize('path,line', [
    ('docs/x.md', 'an SSH %s, one %s per forked worker' % (S, S)),
    ('docs/x.md', 'a known %s of the kubelet; the %s is that' % (I, I)),
    ('docs/kubelet_config.md', 'a truncated checkpoint (kubernetes %s 110478)' % I),
    ('docs/x.md', 'https://github.com/containerd/containerd/%ss/9876' % I),
    ('plugins/modules/node_files.py', '      checksum: 2f1c8e5a0c0f7a4d7f0f0b7c5a3c1e9e6c6a1f00'),
    ('tests/unit/test_y.py', "('containerd github.com/containerd/containerd v1.7.24 88bf19b2105c8b17560993bee28a01', '')"),
    ('plugins/module_utils/cgroup.py', "'0b6a3c1e-4f7d-4a8e-9c1b-2d3e4f5a6b7c (a pod UID)'"),
    ('tests/unit/plugins/fixtures/containerd/PROVENANCE.md', 'kubespray (%s 46dbdd3994b3)' % C),
    ('bench/README.md', 'Measured 2026-12-05 at %s %s on a quiet 2-core machine:' % (C, '37e' + '4d71')),
    ('docs/x.md', 'read the %s-id of a cgroup' % S),
])
def test_what_is_not_history(path, line):
    assert problems_in(path, line + '\n', frozenset([OURS])) == []


def test_a_run_log_heading_is_found():
    assert problems_in('tests/vm/README.md', 'intro\n\n## Tim' + 'ings\n\n| step | s |\n')
