# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Boot loader layouts: backend detection and grub.cfg target discovery.

Everything takes paths as arguments so a sandbox tree can stand for ``/``: ``boot_dir`` for
``/boot`` and ``etc_dir`` for ``/etc``. Absolute symlink targets under ``/boot`` or ``/etc`` are
rebased onto those directories. Python 3.8, standard library only.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import os

from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import (
    configfile_target,
    is_configfile_stub,
)

BACKENDS = ('grubby', 'grub2-mkconfig', 'update-grub', 'grubcfg')


class BootLoaderError(Exception):
    """No usable boot loader layout; the message says what was looked for."""


def rebase(path, boot_dir='/boot', etc_dir='/etc'):
    """Map an absolute /boot/... or /etc/... path into the (sandbox) boot_dir / etc_dir."""
    path = os.path.normpath(path)
    for real, here in (('/boot', boot_dir), ('/etc', etc_dir)):
        if here != real and (path == real or path.startswith(real + '/')):
            return os.path.normpath(here + path[len(real):])
    return path


def resolve_link(path, boot_dir='/boot', etc_dir='/etc', max_hops=16):
    """Follow symlinks of ``path`` hop by hop, rebasing absolute targets; return the final path."""
    seen = 0
    path = os.path.normpath(path)
    while os.path.islink(path) and seen < max_hops:
        target = os.readlink(path)
        if os.path.isabs(target):
            path = rebase(target, boot_dir, etc_dir)
        else:
            path = os.path.normpath(os.path.join(os.path.dirname(path), target))
        seen += 1
    return path


def _read(path):
    try:
        with open(path, 'r') as f:
            return f.read()
    except (IOError, OSError, UnicodeDecodeError):
        return None


def stub_target(stub_path, text, boot_dir='/boot'):
    """The file an EFI ``configfile`` stub loads, mapped under boot_dir (None when unknown)."""
    target = configfile_target(text)
    if not target:
        return None
    if target == '/boot' or target.startswith('/boot/'):
        candidates = [boot_dir + target[len('/boot'):]]
    else:
        # the stub's ($dev) is usually the /boot file system; when /boot is not separate it is /
        candidates = [os.path.normpath(boot_dir + target), os.path.normpath(os.path.dirname(boot_dir) + target)]
    for c in candidates:
        if os.path.isfile(c):
            return c
    return candidates[0]


def grub_cfg_candidates(backend, boot_dir='/boot', etc_dir='/etc'):
    """grub.cfg files a backend regenerates or edits by default, as (paths, notes).

    * update-grub: ``<boot>/grub/grub.cfg``
    * grub2-mkconfig / grubcfg: what ``<etc>/grub2.cfg`` and ``<etc>/grub2-efi.cfg`` point to, plus
      ``<boot>/grub2/grub.cfg`` and ``<boot>/efi/EFI/<distro>/grub.cfg``; EFI stubs that
      ``configfile`` another file are replaced by that file. Duplicates (the same real file) are
      dropped, missing files are skipped.
    """
    notes = []
    if backend == 'update-grub':
        raw = [os.path.join(boot_dir, 'grub', 'grub.cfg')]
    else:
        raw = []
        for link in ('grub2.cfg', 'grub2-efi.cfg'):
            p = os.path.join(etc_dir, link)
            if os.path.lexists(p):
                target = resolve_link(p, boot_dir, etc_dir)
                if os.path.isfile(target):
                    raw.append(target)
                else:
                    notes.append('%s points to %s, which does not exist; skipped' % (p, target))
        raw.append(os.path.join(boot_dir, 'grub2', 'grub.cfg'))
        raw.extend(sorted(glob.glob(os.path.join(boot_dir, 'efi', 'EFI', '*', 'grub.cfg'))))
        if backend == 'grubcfg':
            raw.append(os.path.join(boot_dir, 'grub', 'grub.cfg'))
    # update-grub always writes /boot/grub/grub.cfg, created when missing
    return resolve_targets(raw, boot_dir, etc_dir, notes, skip_missing=backend != 'update-grub')


def resolve_targets(paths, boot_dir='/boot', etc_dir='/etc', notes=None, skip_missing=False):
    """Resolve links and configfile stubs of grub.cfg paths, drop duplicates; return (paths, notes)."""
    notes = notes if notes is not None else []
    out = []
    seen = set()
    for p in paths:
        real = resolve_link(p, boot_dir, etc_dir)
        if not os.path.isfile(real):
            if skip_missing:
                continue
            out_path = real
        else:
            text = _read(real)
            out_path = real
            if text is not None and is_configfile_stub(text):
                target = stub_target(real, text, boot_dir)
                if target is None:
                    notes.append('%s is a configfile stub whose target could not be worked out; skipped' % real)
                    continue
                notes.append('%s is a stub that loads %s; that file is the one regenerated' % (real, target))
                out_path = resolve_link(target, boot_dir, etc_dir)
        key = os.path.realpath(out_path)
        if key in seen:
            continue
        seen.add(key)
        out.append(out_path)
    return out, notes


def bls_entries(bls_dir):
    """Sorted BLS entry files (``*.conf``) of bls_dir."""
    return sorted(glob.glob(os.path.join(bls_dir, '*.conf')))


def detect_backend(tools, boot_dir='/boot', etc_dir='/etc', bls_dir=None):
    """Pick a backend from the tools found and the layout of boot_dir.

    ``tools`` maps 'grubby', 'grub-mkconfig' (grub2-mkconfig or grub-mkconfig), 'update-grub' to a
    path or None. Order: grubby with BLS entries; update-grub (Debian/Ubuntu: no <boot>/grub2);
    grub2-mkconfig with a grub.cfg to regenerate; update-grub. ``grubcfg`` is never chosen automatically.
    """
    bls_dir = bls_dir or os.path.join(boot_dir, 'loader', 'entries')
    if tools.get('grubby') and bls_entries(bls_dir):
        return 'grubby'
    debian = tools.get('update-grub') and tools.get('grub-mkconfig')
    if debian and not os.path.isdir(os.path.join(boot_dir, 'grub2')):
        return 'update-grub'
    if tools.get('grub-mkconfig'):
        paths, _notes = grub_cfg_candidates('grub2-mkconfig', boot_dir, etc_dir)
        if paths:
            return 'grub2-mkconfig'
    if debian:
        return 'update-grub'
    found = ', '.join('%s=%s' % (k, v) for k, v in sorted(tools.items()) if v) or 'none'
    raise BootLoaderError(
        'no supported boot loader found: looked for grubby with BLS entries in %s, update-grub '
        '(Debian/Ubuntu), grub2-mkconfig/grub-mkconfig with a grub.cfg under %s (or %s/grub2*.cfg); '
        'tools found: %s. Install the grub tools, point grubby_path/grub_mkconfig_path/update_grub_path '
        'at them, or set backend=grubcfg with grub_cfg_paths to edit grub.cfg directly'
        % (bls_dir, boot_dir, etc_dir, found))
