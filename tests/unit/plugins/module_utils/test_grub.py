# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/grub.py: grub.cfg text (linux lines, edits, the prediction of grub-mkconfig's output, configfile
stubs) and layouts (links, stubs, candidates); backend detection (module_utils/bootloader)."""
from __future__ import annotations

import os

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import bootloader as b
from ansible_collections.numaops.colocation.plugins.module_utils import cmdline as c
from ansible_collections.numaops.colocation.plugins.module_utils import grub as g


def wanted(args, state='present', absent=None):
    return c.parse_wanted(args, state, absent)


# ------------------------------------------------------------------ grub.cfg text

GRUB_CFG = '''menuentry 'openEuler' {
\tset root='hd0,gpt2'
\tlinuxefi /vmlinuz-5.10 root=/dev/mapper/openeuler-root ro crashkernel=512M rhgb quiet\x20
\tinitrdefi /initramfs-5.10.img
}
menuentry 'rescue' {
\tlinux16 /vmlinuz-0-rescue root=/dev/mapper/openeuler-root ro $extra 'a b' quiet
}
  linux\t/vmlinuz root=/dev/vda ro  single
'''


def test_edit_grub_cfg_every_linux_line():
    present, absent = wanted(['mem_sampling_on', 'crashkernel=1024M'], absent=['rhgb'])
    out = g.edit_grub_cfg(GRUB_CFG, present, absent)
    lines = g.grub_cfg_linux_lines(out)
    assert [k for _i, k, _t in lines] == ['/vmlinuz-5.10', '/vmlinuz-0-rescue', '/vmlinuz']
    assert lines[0][2] == ['root=/dev/mapper/openeuler-root', 'ro', 'crashkernel=1024M', 'quiet', 'mem_sampling_on']
    assert lines[1][2] == ['root=/dev/mapper/openeuler-root', 'ro', '$extra', "'a b'", 'quiet', 'mem_sampling_on',
                           'crashkernel=1024M']
    assert '\tlinuxefi /vmlinuz-5.10 root=' in out and '\tinitrdefi /initramfs-5.10.img\n' in out
    assert "\tset root='hd0,gpt2'\n" in out
    assert g.edit_grub_cfg(out, present, absent) == out
    assert g.grub_cfg_default_cmdline(out) == lines[0][2]


def test_edit_grub_cfg_untouched_when_satisfied():
    present, absent = wanted(['ro'], absent=['nomodeset'])
    assert g.edit_grub_cfg(GRUB_CFG, present, absent) == GRUB_CFG


def vars_of(linux, default=''):
    return {'GRUB_CMDLINE_LINUX': c.tokenize(linux), 'GRUB_CMDLINE_LINUX_DEFAULT': c.tokenize(default)}


@pytest.mark.parametrize('line, before, after, default_entry, expect', [
    # Debian: GRUB_CMDLINE_LINUX="" / _DEFAULT="quiet"; the new args go before quiet, as grub-mkconfig writes them
    ('root=/dev/vda ro quiet', ('', 'quiet'), ('a b=1', 'quiet'), True, 'root=/dev/vda ro a b=1 quiet'),
    # recovery entry: "single ${GRUB_CMDLINE_LINUX}" only
    ('root=/dev/vda ro single x', ('x', 'quiet'), ('x a', 'quiet'), False, 'root=/dev/vda ro single x a'),
    # Ubuntu's trailing $vt_handoff stays last
    ('root=UUID=1 ro quiet splash $vt_handoff', ('', 'quiet splash'), ('a', 'quiet splash'), True,
     'root=UUID=1 ro a quiet splash $vt_handoff'),
    # the file does not match the defaults (hand edit, interrupted run): the generator's root=... ro start
    ('root=/dev/vda ro quiet by_hand $vt_handoff', ('a', 'quiet'), ('a', 'quiet'), True,
     'root=/dev/vda ro a quiet $vt_handoff'),
    # recovery entry with an empty GRUB_CMDLINE_LINUX: the new GRUB_CMDLINE_LINUX goes at its end, _DEFAULT not
    ('root=/dev/vda ro single', ('', 'quiet'), ('a', 'quiet b'), False, 'root=/dev/vda ro single a'),
    ('root=/dev/vda ro single', ('', 'quiet'), ('', 'quiet b'), False, 'root=/dev/vda ro single'),
    # another normal entry, both values empty before
    ('root=/dev/vda ro', ('', ''), ('a', 'b'), False, 'root=/dev/vda ro a b'),
    # nothing to go by
    ('root=/dev/vda ro quiet by_hand', ('a', 'quiet'), ('a', 'quiet'), False, None),
    ('root=/dev/vda ro by_hand', ('', 'quiet'), ('a', 'quiet'), False, None),
    ('quiet by_hand', ('a', 'quiet'), ('a', 'quiet'), True, None),
    # removed args
    ('root=/dev/sda ro rhgb quiet isolcpus=2', ('rhgb quiet isolcpus=2', ''), ('rhgb quiet', ''), True,
     'root=/dev/sda ro rhgb quiet'),
])
def test_predict_generated_args(line, before, after, default_entry, expect):
    got = g.predict_generated_args(c.tokenize(line), vars_of(*before), vars_of(*after), default_entry)
    assert got == (None if expect is None else expect.split())


def test_predict_generated_cfg():
    cfg = ('menuentry d {\n\tlinux\t/vmlinuz root=/dev/vda ro  quiet\n}\n'
           'menuentry r {\n\tlinux\t/vmlinuz root=/dev/vda ro single \n}\n')
    present, absent = wanted(['mem_sampling_on'])
    before = vars_of('', 'quiet')
    after = vars_of('mem_sampling_on', 'quiet')
    out = g.predict_generated_cfg(cfg, before, after, present, absent)
    lines = g.grub_cfg_linux_lines(out)
    assert lines[0][2] == ['root=/dev/vda', 'ro', 'mem_sampling_on', 'quiet']
    # empty GRUB_CMDLINE_LINUX before: the recovery line gets the new one at its end
    assert lines[1][2] == ['root=/dev/vda', 'ro', 'single', 'mem_sampling_on']
    assert out.startswith('menuentry d {\n') and out.endswith('}\n')
    assert g.predict_generated_cfg(cfg, before, before, [], []) == cfg


@pytest.mark.parametrize('text, stub, target', [
    ("search --no-floppy --fs-uuid --set=dev 0e6a\nset prefix=($dev)/grub2\n\nexport $prefix\nconfigfile $prefix/grub.cfg\n",
     True, '/grub2/grub.cfg'),
    ("search.fs_uuid 1234 root hd0,gpt2\nset prefix=($root)'/boot/grub'\nconfigfile $prefix/grub.cfg\n",
     True, '/boot/grub/grub.cfg'),
    (GRUB_CFG, False, None),
    ('insmod blscfg\nblscfg\nconfigfile /x\n', False, '/x'),
])
def test_configfile_stubs(text, stub, target):
    assert g.is_configfile_stub(text) is stub
    assert g.configfile_target(text) == target


# ------------------------------------------------------------------ layouts (grub.py)

def _tree(tmp_path, files, links=()):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for rel, target in links:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, p)
    return str(tmp_path / 'boot'), str(tmp_path / 'etc')


def test_openeuler_links_both_resolved_and_deduplicated(tmp_path):
    boot, etc = _tree(tmp_path, {'boot/grub2/grub.cfg': GRUB_CFG, 'boot/efi/EFI/openEuler/grub.cfg': GRUB_CFG},
                      [('etc/grub2.cfg', '../boot/grub2/grub.cfg'),
                       ('etc/grub2-efi.cfg', '/boot/efi/EFI/openEuler/grub.cfg')])  # absolute: rebased
    paths, notes = g.grub_cfg_candidates('grub2-mkconfig', boot, etc)
    assert paths == [boot + '/grub2/grub.cfg', boot + '/efi/EFI/openEuler/grub.cfg']
    assert notes == []


def test_efi_stub_replaced_by_target(tmp_path):
    stub = 'search --no-floppy --fs-uuid --set=dev 1\nset prefix=($dev)/grub2\nconfigfile $prefix/grub.cfg\n'
    boot, etc = _tree(tmp_path, {'boot/grub2/grub.cfg': GRUB_CFG, 'boot/efi/EFI/openEuler/grub.cfg': stub},
                      [('etc/grub2-efi.cfg', '../boot/efi/EFI/openEuler/grub.cfg')])
    paths, notes = g.grub_cfg_candidates('grub2-mkconfig', boot, etc)
    assert paths == [boot + '/grub2/grub.cfg']
    assert any('stub' in n for n in notes)


def test_detect_backend(tmp_path):
    boot, etc = _tree(tmp_path, {'boot/grub2/grub.cfg': GRUB_CFG, 'boot/loader/entries/a.conf': 'options ro\n'})
    assert b.detect_backend({'grubby': '/x/grubby', 'grub-mkconfig': '/x/g'}, boot, etc) == 'grubby'
    assert b.detect_backend({'grubby': None, 'grub-mkconfig': '/x/g', 'update-grub': '/x/u'}, boot, etc) == 'grub2-mkconfig'
    assert b.detect_backend({'grub-mkconfig': '/x/g'}, boot, etc) == 'grub2-mkconfig'
    deb_boot, deb_etc = _tree(tmp_path / 'deb', {'boot/grub/grub.cfg': GRUB_CFG})
    assert b.detect_backend({'grub-mkconfig': '/x/g', 'update-grub': '/x/u'}, deb_boot, deb_etc) == 'update-grub'
    with pytest.raises(b.BootLoaderError, match='no supported boot loader found'):
        b.detect_backend({}, deb_boot, deb_etc)
    with pytest.raises(b.BootLoaderError, match='no supported boot loader found'):
        b.detect_backend({'grub-mkconfig': '/x/g'}, deb_boot + '/nothing', deb_etc)
