# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""containerd_toml parses each text as few times as it can, with the results and messages of a fresh parse.

_verify compares tomllib's values of the edited text where it compared tomlkit's: both must read every TOML file
in the repository (and the tricky cases below) as the same values. inspect() and edit() remember their last
results per worker process and hand out copies; edit() takes over the document inspect() just parsed.
"""
from __future__ import annotations

import glob
import math
import os

import pytest
import tomlkit

from ansible_collections.numaops.colocation.plugins.module_utils.containerd import ContainerdConfigError
from ansible_collections.numaops.colocation.plugins.plugin_utils import containerd_toml as ct

tomllib = pytest.importorskip('tomllib')

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
TOML_FILES = sorted(glob.glob(os.path.join(ROOT, 'tests', '**', '*.toml'), recursive=True)
                    + glob.glob(os.path.join(ROOT, 'examples', '**', '*.toml'), recursive=True))
SANDBOX = os.path.join(ROOT, 'examples', 'sandbox', 'tree', 'etc', 'containerd', 'config.toml')
MAIN = '/etc/containerd/config.toml'
INVALID = ('duplicated.toml', 'malformed.toml')  # refused by both parsers

DATETIMES = ('a = 1979-05-27T07:32:00Z\nb = 1979-05-27T00:32:00.999999-07:00\nc = 1979-05-27T07:32:00\n'
             'd = 1979-05-27\ne = 07:32:00\nf = 00:32:00.5\ng = 1979-05-27 07:32:00+05:30\n'
             'h = 1979-05-27T00:32:00.123456789\n')
TRICKY = [
    'a = "tab\\there \\"q\\" \\u00e9 \\U0001F600 \\\\ back"\nb = \'C:\\\\path\\n\'\n',
    'a = """\nfirst\\\n    second\n  third"""\nb = \'\'\'\nraw \\n "x"\n\'\'\'\nc = """"quoted""""\n',
    'a = 0xDEAD_beef\nb = 0o755\nc = 0b1010\nd = 1_000_000\ne = -17\nf = +3\ng = 9223372036854775807\n',
    'a = 3.14\nb = -0.0\nc = 6.02e23\nd = 1e-9\ne = inf\nf = -inf\ng = 1_000.5\nh = 5E+2\n',
    'a = true\nb = false\n',
    'a = [1, 2, 3]\nb = [[1, 2], ["x", \'y\'], [true]]\nc = [ ]\nd = [\n  "x", # c\n  "y",\n]\ne = [{x = 1}, {y = [2]}]\n',
    'a = {x = 1, y.z = "w", s = {t = []}}\nb = {}\n',
    '[[t]]\nx = 1\n[[t]]\nx = 2\n[[t.sub]]\ny = "z"\n[t.tbl]\nk = true\n',
    'a.b.c = 1\na.b.d = 2\n"q.k".\'l\' = 3\n[x.y]\nz = 1\n[x]\nw = 2\n',
    '[a]\nx = 1\n[b]\ny = 2\n[a.c]\nz = 3\n[b.d]\nq = 4\n[a.c.e]\nr = 5\n',
    '[plugins]\n[plugins."io.containerd.grpc.v1.cri".containerd]\nx = 1\n[other]\ny = 2\n'
    '[plugins."io.containerd.nri.v1.nri"]\ndisable = false\n',
    DATETIMES,
    '# nothing\n\n',
    '',
    'version = 2\n[plugins."io.containerd.nri.v1.nri"]\n  disable = false\n  socket_path = \'/var/run/nri/nri.sock\'\n',
]


@pytest.fixture(autouse=True)
def empty_caches():
    def clear():
        for cache in (ct._VALUES, ct._INSPECTIONS, ct._EDITS, ct._SPARE_DOC):
            cache.clear()
    clear()
    yield
    clear()


def read(path):
    with open(path, encoding='utf-8', newline='') as handle:
        return handle.read()


def test_the_repository_has_toml_files():
    names = [os.path.basename(path) for path in TOML_FILES]
    assert len(TOML_FILES) >= 20 and 'default-1.7.toml' in names and SANDBOX in TOML_FILES


def same(left, right):
    """== but nan equals nan (tomllib and tomlkit both read nan as a new float each time)."""
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left) and math.isnan(right):
        return True
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[key], right[key]) for key in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right))
    return type(left) is type(right) and left == right


def assert_same_values(text):
    try:
        with_tomlkit = ct.plain(tomlkit.parse(text))
    except tomlkit.exceptions.ParseError:
        with_tomlkit = None
    try:
        with_tomllib = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        with_tomllib = None
    assert (with_tomlkit is None) == (with_tomllib is None), text
    assert same(with_tomlkit, with_tomllib), text
    if with_tomlkit is not None:
        assert with_tomlkit == with_tomllib or 'nan' in text
    return with_tomllib


@pytest.mark.parametrize('path', TOML_FILES, ids=lambda path: os.path.relpath(path, ROOT))
def test_tomllib_reads_every_repository_file_as_tomlkit_does(path):
    text = read(path)
    values = assert_same_values(text)
    if os.path.basename(path) in INVALID:
        assert values is None
        with pytest.raises(ContainerdConfigError):
            ct.inspect(text, MAIN)
        return
    assert values is not None
    # and the texts edit() writes from it
    for kwargs in ({'wanted': {'disable': False}}, {'wanted': {'disable': True, 'plugin_path': '/usr/libexec/nri'}},
                   {'import_path': '/etc/containerd/conf.d/*.toml'}, {'wanted': {'disable': False},
                                                                      'misplaced': 'remove'}):
        try:
            result = ct.edit(text, MAIN, new_version=2, **kwargs)
        except ContainerdConfigError:
            continue
        assert_same_values(result.text)


@pytest.mark.parametrize('text', TRICKY + ['a = nan\nb = [nan, -nan]\n'])
def test_tomllib_reads_tricky_toml_as_tomlkit_does(text):
    assert assert_same_values(text) is not None


def test_types_of_datetimes_agree():
    text = DATETIMES
    assert [type(v).__name__ for v in ct.plain(tomlkit.parse(text)).values()] == \
        [type(v).__name__ for v in tomllib.loads(text).values()] == \
        ['datetime', 'datetime', 'datetime', 'date', 'time', 'time', 'datetime', 'datetime']


@pytest.fixture
def counted(monkeypatch):
    counts = {'tomlkit': 0, 'tomllib': 0}
    real_parse, real_loads = tomlkit.parse, tomllib.loads

    def parse(text):
        counts['tomlkit'] += 1
        return real_parse(text)

    def loads(text, **kwargs):
        counts['tomllib'] += 1
        return real_loads(text, **kwargs)
    monkeypatch.setattr(ct.tomlkit, 'parse', parse)
    monkeypatch.setattr(ct._tomllib, 'loads', loads)
    return counts


def nri_sequence(text, wanted):
    """containerd_nri's calls for mode=main: inspect, edit, inspect of the new text."""
    before = ct.inspect(text, MAIN)
    result = ct.edit(text, MAIN, wanted=wanted, misplaced='warn', new_version=2)
    after = ct.inspect(result.text, MAIN)
    return before, result, after


@pytest.mark.parametrize('wanted', [{'disable': False}, {'disable': True, 'plugin_request_timeout': '3s'}])
def test_parses_per_containerd_nri_run(counted, wanted):
    # before: 5 tomlkit and 5 tomllib parses per run (10 and 10 for node_config's plan plus run)
    text = read(SANDBOX)
    first = nri_sequence(text, wanted)
    assert counted == {'tomlkit': 2, 'tomllib': 2}  # the old text and the new one, once each
    second = nri_sequence(text, wanted)
    assert counted == {'tomlkit': 2, 'tomllib': 2}  # node_config's second plan of the same texts: none
    assert first == second


def uncached_sequence(text, wanted, **kwargs):
    """The same calls with every cache emptied before each: what the module did before."""
    results = []
    for call in (lambda: ct.inspect(text, MAIN), lambda: ct.edit(text, MAIN, wanted=wanted, new_version=2, **kwargs)):
        for cache in (ct._VALUES, ct._INSPECTIONS, ct._EDITS, ct._SPARE_DOC):
            cache.clear()
        try:
            results.append(call())
        except ContainerdConfigError as err:
            results.append(str(err))
    return results


def cached_sequence(text, wanted, **kwargs):
    results = []
    for call in (lambda: ct.inspect(text, MAIN), lambda: ct.edit(text, MAIN, wanted=wanted, new_version=2, **kwargs)):
        try:
            results.append(call())
        except ContainerdConfigError as err:
            results.append(str(err))
    return results


@pytest.mark.parametrize('path', TOML_FILES, ids=lambda path: os.path.relpath(path, ROOT))
@pytest.mark.parametrize('wanted, kwargs', [
    ({'disable': False}, {}),
    ({'disable': True, 'plugin_path': '/usr/libexec/nri', 'socket_path': '/run/nri.sock'}, {}),
    ({'disable': False}, {'misplaced': 'remove'}),
    (None, {'import_path': '/etc/containerd/conf.d/*.toml'}),
])
def test_cached_results_and_messages_are_those_of_a_fresh_parse(path, wanted, kwargs):
    text = read(path)
    fresh = uncached_sequence(text, wanted, **kwargs)
    assert cached_sequence(text, wanted, **kwargs) == fresh  # edit() takes the document inspect() parsed
    assert cached_sequence(text, wanted, **kwargs) == fresh  # both remembered
    assert cached_sequence(text + '\n# other text\n', wanted, **kwargs) != fresh or fresh[0] == fresh[1]


def test_results_handed_out_are_copies():
    text = read(SANDBOX)
    before, result, unused_after = nri_sequence(text, {'disable': True})
    expected = (before.nri.copy(), list(before.misplaced), list(result.changed), list(result.warnings))
    before.nri['disable'] = 'changed'
    before.misplaced.append('changed')
    result.changed.append('changed')
    result.warnings.append('changed')
    again_before, again_result, unused_after = nri_sequence(text, {'disable': True})
    assert (again_before.nri, again_before.misplaced, again_result.changed, again_result.warnings) == expected


def test_edits_are_remembered_by_value_and_type():
    def key(wanted, header=True):
        return ct._edit_key('version = 2\n', MAIN, wanted, None, 'warn', 2, header)
    assert key({'disable': True}) == key({'disable': True})
    assert key({'disable': True}) != key({'disable': 1})  # True == 1, but they are written differently
    assert key({'disable': True, 'plugin_path': '/x'}) != key({'plugin_path': '/x', 'disable': True})  # key order
    assert key({'disable': True}, header=True) != key({'disable': True}, header=1)
    assert key({'disable': True}, header='# x') != key({'disable': True})


CRLF_MULTILINE = ('version = 2\r\n[plugins."io.containerd.grpc.v1.cri"]\r\n  note = \"\"\"one\r\ntwo\"\"\"\r\n'
                  "  raw = '''x\r\ny'''\r\n")


def test_tomllib_and_tomlkit_differ_on_crlf_inside_multiline_strings():
    # the one difference found: tomllib reads a CRLF inside a multi-line string as LF, tomlkit keeps it
    assert ct.plain(tomlkit.parse(CRLF_MULTILINE))['plugins']['io.containerd.grpc.v1.cri'] == {
        'note': 'one\r\ntwo', 'raw': 'x\r\ny'}
    assert tomllib.loads(CRLF_MULTILINE)['plugins']['io.containerd.grpc.v1.cri'] == {'note': 'one\ntwo', 'raw': 'x\ny'}


def test_verify_decides_with_tomlkit_when_tomllib_reads_other_values(counted):
    # so _verify's tomllib values differ from the expected ones (tomlkit's) there: it then decides with tomlkit,
    # as before, and the edit goes through unchanged
    fresh = uncached_sequence(CRLF_MULTILINE, {'disable': False})
    for cache in (ct._VALUES, ct._INSPECTIONS, ct._EDITS, ct._SPARE_DOC):
        cache.clear()
    counted.update(tomlkit=0, tomllib=0)
    result = ct.edit(CRLF_MULTILINE, MAIN, wanted={'disable': False}, new_version=2)
    assert result == fresh[1] and '[plugins."io.containerd.nri.v1.nri"]\r\n' in result.text
    assert counted == {'tomlkit': 2, 'tomllib': 2}  # the old text; the new text with tomllib, then with tomlkit


def test_invalid_text_gives_the_same_message_every_time():
    text = read(os.path.join(ROOT, 'tests', 'unit', 'plugins', 'fixtures', 'containerd', 'duplicated.toml'))
    messages = set()
    for unused in range(3):
        for call in (lambda: ct.inspect(text, MAIN), lambda: ct.edit(text, MAIN, wanted={'disable': False})):
            with pytest.raises(ContainerdConfigError) as err:
                call()
            messages.add(str(err.value))
    assert len(messages) == 1 and 'is not valid TOML' in messages.pop()


def test_verify_falls_back_to_tomlkit_when_the_values_differ(counted):
    # a mismatch found with tomllib is confirmed (and worded) by the tomlkit path, as before
    text = 'version = 2\n'
    with pytest.raises(ContainerdConfigError) as err:
        ct._verify(MAIN, text, text, {'version': 3})
    assert 'would change more than the NRI settings' in str(err.value)
    assert counted['tomlkit'] == 1
    with pytest.raises(ContainerdConfigError) as err:
        ct._verify(MAIN, text, 'version = = 2\n', {'version': 2})
    assert 'would not be valid TOML' in str(err.value)


def test_the_caches_stay_small():
    for number in range(50):
        text = 'version = 2\n# %d\n' % number
        ct.edit(text, MAIN, wanted={'disable': False})
        ct.inspect(text, MAIN)
    assert max(len(ct._VALUES), len(ct._INSPECTIONS), len(ct._EDITS)) <= ct._CACHE_SIZE
    assert len(ct._SPARE_DOC) <= 1
