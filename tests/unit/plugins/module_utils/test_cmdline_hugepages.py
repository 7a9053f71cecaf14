# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The huge page arguments merged as the kernel reads them (cmdline_hugepages.py through cmdline.py)."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import cmdline as c
from ansible_collections.numaops.colocation.plugins.module_utils import cmdline_hugepages as h

G = 1 << 30
M = 1 << 20
PAIRS = ['hugepagesz=2M', 'hugepages=512', 'hugepagesz=1G', 'hugepages=0:4']


def edit(before, args, state='present', absent=None, style='in_place'):
    present, absent_keys = c.parse_wanted(args, state, absent)
    return c.edit_cmdline(before, present, absent_keys, style)


@pytest.mark.parametrize('before, args, state, absent, after', [
    # two wanted pairs, the node has a 1G pair: its count is replaced in place, the 2M pair appended as a pair
    ('ro hugepagesz=1G hugepages=16 quiet', PAIRS, 'present', [],
     'ro hugepagesz=1G hugepages=0:4 quiet hugepagesz=2M hugepages=512'),
    # the node's own pair of another size is kept untouched
    ('ro hugepagesz=2M hugepages=64 quiet', ['hugepagesz=1G', 'hugepages=0:4'], 'present', [],
     'ro hugepagesz=2M hugepages=64 quiet hugepagesz=1G hugepages=0:4'),
    ('ro hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=512', ['hugepagesz=1G', 'hugepages=0:4'], 'present', [],
     'ro hugepagesz=1G hugepages=0:4 hugepagesz=2M hugepages=512'),
    # a count of the default size (no hugepagesz before it) stays the default size's; ours follow as a pair
    ('ro hugepages=16 quiet', ['hugepagesz=1G', 'hugepages=0:4'], 'present', [],
     'ro hugepages=16 quiet hugepagesz=1G hugepages=0:4'),
    # nothing of the node's: appended in the order given
    ('ro quiet', PAIRS, 'present', [], 'ro quiet ' + ' '.join(PAIRS)),
    # per NUMA node counts, replaced in place; the size spelled otherwise is the same size
    ('ro hugepagesz=1G hugepages=0:2,1:2', ['hugepagesz=1G', 'hugepages=0:4,1:2'], 'present', [],
     'ro hugepagesz=1G hugepages=0:4,1:2'),
    ('ro hugepagesz=1024M hugepages=2', ['hugepagesz=1G', 'hugepages=4'], 'present', [],
     'ro hugepagesz=1024M hugepages=4'),
    # a size without its count: inserted right after the size; extra counts (ignored by the kernel) dropped
    ('ro hugepagesz=1G quiet', ['hugepagesz=1G', 'hugepages=4'], 'present', [], 'ro hugepagesz=1G hugepages=4 quiet'),
    ('ro hugepagesz=1G hugepages=2 hugepages=3', ['hugepagesz=1G', 'hugepages=4'], 'present', [],
     'ro hugepagesz=1G hugepages=4'),
    # a count after other arguments still belongs to the size before it, and is changed where it is
    ('hugepagesz=1G ro hugepages=2', ['hugepagesz=1G', 'hugepages=4'], 'present', [], 'hugepagesz=1G ro hugepages=4'),
    # a size alone: the node's count of it is kept
    ('ro hugepagesz=1G hugepages=2', ['hugepagesz=1G'], 'present', [], 'ro hugepagesz=1G hugepages=2'),
    # default_hugepagesz: its count is the node's entry of that size
    ('ro default_hugepagesz=1G hugepages=4', ['hugepagesz=1G', 'hugepages=8'], 'present', [],
     'ro default_hugepagesz=1G hugepages=8'),
    ('ro hugepages=4 default_hugepagesz=1G', ['hugepagesz=1G', 'hugepages=8'], 'present', [],
     'ro hugepages=8 default_hugepagesz=1G'),
    ('ro default_hugepagesz=2M', ['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=4'], 'present', [],
     'ro default_hugepagesz=1G hugepages=4'),
    ('ro', ['default_hugepagesz=1G', 'hugepages=4', 'hugepagesz=2M', 'hugepages=512'], 'present', [],
     'ro default_hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=512'),
    # a bare count wanted (no size given): the default entry's count, where the node has it
    ('ro hugepages=16 quiet', ['hugepages=32'], 'present', [], 'ro hugepages=32 quiet'),
    ('ro default_hugepagesz=1G hugepages=2', ['hugepages=4'], 'present', [], 'ro default_hugepagesz=1G hugepages=4'),
    ('ro hugepagesz=1G hugepages=2', ['hugepages=16'], 'present', [], 'ro hugepages=16 hugepagesz=1G hugepages=2'),
    ('ro hugepages=16', ['default_hugepagesz=1G', 'hugepages=2'], 'present', [], 'ro hugepages=2 default_hugepagesz=1G'),
    # the node's pair of the new default size takes the default size's count (one count per size)
    ('ro hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=64', ['default_hugepagesz=1G', 'hugepages=2'], 'present',
     [], 'ro hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=64 default_hugepagesz=1G'),
    ('ro hugepagesz=2M hugepages=64', ['default_hugepagesz=2M', 'hugepages=100', 'hugepagesz=1G', 'hugepages=1'],
     'present', [], 'ro hugepagesz=2M hugepages=100 default_hugepagesz=2M hugepagesz=1G hugepages=1'),
    # state=absent removes whole pairs
    ('ro hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=5', ['hugepagesz=1G'], 'absent', [],
     'ro hugepagesz=2M hugepages=5'),
    ('ro hugepagesz=1G hugepages=4 quiet hugepagesz=2M hugepages=5', ['hugepagesz'], 'absent', [], 'ro quiet'),
    ('ro hugepages=16 hugepagesz=1G hugepages=4', ['hugepages'], 'absent', [], 'ro'),
    ('ro default_hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=5', ['default_hugepagesz'], 'absent', [],
     'ro hugepagesz=2M hugepages=5'),
    ('ro hugepages=4 default_hugepagesz=1G', ['default_hugepagesz'], 'absent', [], 'ro'),
    ('ro quiet', ['hugepagesz=1G'], 'absent', [], 'ro quiet'),
    # a pair given whole with state=absent removes that pair only
    ('ro hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=5', ['hugepagesz=1G', 'hugepages=4'], 'absent', [],
     'ro hugepagesz=2M hugepages=5'),
    ('ro hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=5', ['hugepagesz', 'hugepages'], 'absent', [], 'ro'),
    # one size replaced by another in one task
    ('ro hugepagesz=1G hugepages=4', ['hugepagesz=2M', 'hugepages=512'], 'present', ['hugepagesz=1G'],
     'ro hugepagesz=2M hugepages=512'),
    ('ro hugepagesz=1G hugepages=4', ['hugepagesz=2M', 'hugepages=512'], 'present', ['hugepagesz=1G', 'hugepages=4'],
     'ro hugepagesz=2M hugepages=512'),
    # init's arguments are not the kernel's
    ('ro -- hugepages=3', ['hugepagesz=1G', 'hugepages=4'], 'present', [], 'ro hugepagesz=1G hugepages=4 -- hugepages=3'),
])
def test_huge_pages_merge(before, args, state, absent, after):
    present, absent_keys = c.parse_wanted(args, state, absent)
    assert c.edit_cmdline(before, present, absent_keys) == after
    assert c.unsatisfied(c.tokenize(after), present, absent_keys) == []
    assert c.edit_cmdline(after, present, absent_keys) == after


@pytest.mark.parametrize('before, args, after', [
    # grubby's way: when anything changes, every huge page argument goes to the end, order kept
    ('ro hugepages=16 quiet', ['hugepagesz=1G', 'hugepages=0:4'], 'ro quiet hugepages=16 hugepagesz=1G hugepages=0:4'),
    ('hugepagesz=1G hugepages=16 ro hugepagesz=2M hugepages=5', ['hugepagesz=1G', 'hugepages=0:4'],
     'ro hugepagesz=1G hugepages=0:4 hugepagesz=2M hugepages=5'),
    ('hugepagesz=1G hugepages=0:4 ro', ['hugepagesz=1G', 'hugepages=0:4'], 'hugepagesz=1G hugepages=0:4 ro'),
])
def test_huge_pages_merge_append_style(before, args, after):
    assert edit(before, args, style='append') == after


def test_merged_pairs_read_as_wanted_by_the_kernel():
    for before in ('ro hugepagesz=1G hugepages=16', 'ro hugepagesz=2M hugepages=8 hugepagesz=1G hugepages=16',
                   'ro hugepages=16', 'ro', 'hugepagesz=1G ro hugepages=1 hugepagesz=2M'):
        for style in ('in_place', 'append'):
            counts, _default, _named = h.read(c.tokenize(edit(before, PAIRS, style=style)))
            assert counts[2 * M] == '512' and counts[G] == '0:4'


@pytest.mark.parametrize('tokens, counts, default', [
    ('hugepagesz=1G hugepages=4', {G: '4'}, None),
    ('hugepages=16', {'default': '16'}, None),
    ('hugepages=16 default_hugepagesz=1G', {G: '16'}, G),
    ('default_hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=5', {G: '2', 2 * M: '5'}, G),
    # the kernel ignores a repeated size, and a second count after one size
    ('hugepagesz=1G hugepages=4 hugepagesz=1G hugepages=8', {G: '4'}, None),
    ('hugepagesz=1G hugepages=4 hugepages=8', {G: '4'}, None),
    # a second default_hugepagesz is ignored, and so is the count after it
    ('default_hugepagesz=1G default_hugepagesz=2M hugepages=3', {}, G),
])
def test_read_as_the_kernel(tokens, counts, default):
    got, got_default, _named = h.read(tokens.split())
    assert (got, got_default) == (counts, default)


@pytest.mark.parametrize('args, absent, message', [
    (['hugepages=4', 'hugepagesz=1G', 'hugepages=2'], [],
     'args: hugepages=4 has no hugepagesz= before it while the args also give sizes (hugepagesz=1G)'),
    (['hugepagesz=1G', 'hugepages=2', 'hugepages=3'], [],
     'args: two counts for one page size (hugepages=2, hugepages=3); give one count per size'),
    (['hugepages=2', 'hugepages=3'], [], 'args: two counts for the default page size (hugepages=2, hugepages=3)'),
    (['hugepagesz=1G', 'hugepagesz=1024M'], [], 'args: hugepagesz=1G and hugepagesz=1024M name one page size twice'),
    (['default_hugepagesz=1G', 'hugepages=2', 'hugepagesz=1G', 'hugepages=3'], [],
     'args: two counts for one page size (default_hugepagesz=1G hugepages=2 and hugepagesz=1G hugepages=3)'),
    (['default_hugepagesz=1G', 'default_hugepagesz=2M'], [], 'the kernel takes default_hugepagesz= once'),
    (['hugepagesz=big', 'hugepages=2'], [], 'args: hugepagesz=big is not a huge page size; allowed: hugepagesz=<size>'),
    (['hugepagesz', 'hugepages=2'], [], 'args: hugepagesz is not a huge page size'),
    (['hugepagesz=1G', 'hugepages'], [], 'args: hugepages has no count'),
    (['hugepagesz=1G', 'hugepages=2'], ['hugepagesz=1G'], 'conflicting args: hugepagesz=1G is wanted present'),
    (['hugepagesz=1G', 'hugepages=2'], ['hugepages'], 'conflicting args: hugepagesz/hugepages (every huge page pair)'),
    (['default_hugepagesz=1G'], ['default_hugepagesz'], 'conflicting args: default_hugepagesz'),
])
def test_ambiguous_wanted_lists_are_refused(args, absent, message):
    with pytest.raises(c.CmdlineError) as exc:
        c.parse_wanted(args, 'present', absent)
    assert message in str(exc.value)


@pytest.mark.parametrize('before, args, message', [
    # the node's count of the default size would become a count of the new default size
    ('ro hugepages=16', ['default_hugepagesz=1G'],
     "the node has 'hugepages=16': a hugepages= of the default size; with default_hugepagesz=1G its pages would "
     "become pages of another size"),
    ('ro default_hugepagesz=2M hugepages=512', ['default_hugepagesz=1G'], 'the count of the default size 2M'),
])
def test_merges_that_move_a_count_to_another_size_are_refused(before, args, message):
    with pytest.raises(c.CmdlineError) as exc:
        edit(before, args)
    assert message in str(exc.value)


def test_unsatisfied_names_what_the_running_kernel_lacks():
    present, absent = c.parse_wanted(PAIRS)
    assert c.unsatisfied(c.tokenize('ro hugepagesz=1G hugepages=16'), present, absent) == [
        'hugepagesz=2M', 'hugepages=512', 'hugepages=0:4']
    # reordered pairs read the same: nothing missing
    assert c.unsatisfied(c.tokenize('hugepagesz=1G hugepages=0:4 ro hugepagesz=2M hugepages=512'), present,
                         absent) == []
    present, absent = c.parse_wanted(['hugepagesz=1G'], 'absent')
    assert c.unsatisfied(c.tokenize('ro hugepagesz=1G hugepages=2'), present, absent) == ['no hugepagesz=1G']


GRUB = 'GRUB_CMDLINE_LINUX="ro hugepagesz=1G hugepages=16"\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\n'


@pytest.mark.parametrize('before, args, variable, after', [
    (GRUB, PAIRS, 'GRUB_CMDLINE_LINUX',
     GRUB.replace('hugepages=16', 'hugepages=0:4 hugepagesz=2M hugepages=512')),
    # the pairs stay together in the assignment that holds the node's ones
    (GRUB, PAIRS, 'GRUB_CMDLINE_LINUX_DEFAULT',
     GRUB.replace('hugepages=16', 'hugepages=0:4 hugepagesz=2M hugepages=512')),
    ('GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n', PAIRS, 'GRUB_CMDLINE_LINUX_DEFAULT',
     'GRUB_CMDLINE_LINUX_DEFAULT="quiet %s"\n' % ' '.join(PAIRS)),
    ('GRUB_TIMEOUT=5\n', PAIRS, 'GRUB_CMDLINE_LINUX', 'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="%s"\n' % ' '.join(PAIRS)),
])
def test_grub_defaults_huge_pages(before, args, variable, after):
    present, absent = c.parse_wanted(args)
    assert c.edit_grub_defaults(before, present, absent, variable=variable) == after
    assert c.edit_grub_defaults(after, present, absent, variable=variable) == after


def test_grub_defaults_huge_pages_split_over_two_variables_are_refused():
    text = 'GRUB_CMDLINE_LINUX="hugepagesz=1G"\nGRUB_CMDLINE_LINUX_DEFAULT="hugepages=16"\n'
    present, absent = c.parse_wanted(['hugepagesz=1G', 'hugepages=4'])
    with pytest.raises(c.CmdlineError) as exc:
        c.edit_grub_defaults(text, present, absent)
    assert ('/etc/default/grub: the huge page arguments are split over GRUB_CMDLINE_LINUX and '
            'GRUB_CMDLINE_LINUX_DEFAULT (hugepagesz=1G hugepages=16)') in str(exc.value)


NODE_LINES = [
    '', 'hugepages=16', 'hugepagesz=1G hugepages=16', 'hugepagesz=2M hugepages=64',
    'hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=64', 'hugepagesz=2M hugepages=64 ro hugepagesz=1G hugepages=2',
    'default_hugepagesz=1G hugepages=4', 'hugepages=4 default_hugepagesz=1G', 'default_hugepagesz=2M',
    'default_hugepagesz=1G hugepagesz=2M hugepages=8', 'hugepagesz=1G', 'hugepages=16 hugepagesz=1G hugepages=2',
]
WANTED_LISTS = [
    PAIRS, ['hugepagesz=1G', 'hugepages=0:4'], ['hugepagesz=2M', 'hugepages=512'], ['hugepages=32'],
    ['default_hugepagesz=1G'], ['default_hugepagesz=1G', 'hugepages=2'],
    ['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=0:4'],
    ['default_hugepagesz=2M', 'hugepages=100', 'hugepagesz=1G', 'hugepages=1'], ['hugepagesz=1G'],
]


@pytest.mark.parametrize('node', NODE_LINES)
@pytest.mark.parametrize('args', WANTED_LISTS)
@pytest.mark.parametrize('style', ['in_place', 'append'])
def test_every_merge_reads_as_wanted_keeps_the_rest_or_is_refused(node, args, style):
    before = ('ro ' + node + ' quiet').split()
    present, absent = c.parse_wanted(args)
    wanted = h.parse(present[0][1])
    try:
        after = c.edit_tokens(before, present, absent, style)
    except c.CmdlineError as exc:
        # refused only when a count of the node's would change its size
        assert 'would become pages of another size' in str(exc) or 'cannot be merged safely' in str(exc)
        return
    counts_before, _d, _n = h.read(before)
    counts_after, default_after, named_after = h.read(after)
    for sid, raw, count in wanted.pairs:
        assert sid in named_after or sid == default_after, raw
        if count is not None:
            assert counts_after[sid] == count.split('=', 1)[1]
    if wanted.default is not None:
        assert default_after == wanted.default_size()
    mentioned = set(p[0] for p in wanted.pairs) | {'default', default_after, h.read(before)[1]}
    for sid, count in counts_before.items():
        if sid not in mentioned:
            assert counts_after.get(sid) == count, (sid, after)
    # the other arguments keep their order, and a second run changes nothing
    assert [t for t in after if not h.is_hugepage_token(t)] == [t for t in before if not h.is_hugepage_token(t)]
    assert c.unsatisfied(after, present, absent) == []
    assert c.edit_tokens(after, present, absent, style) == after
