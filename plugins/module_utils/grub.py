# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""grub.cfg files: where they are (their links, EFI configfile stubs, the BLS entries beside them) and their text
(the linux/linux16/linuxefi lines, the edit of their arguments, the prediction of what grub-mkconfig writes). The
backends that use them, and which one is picked, are in bootloader/.

Everything takes paths as arguments so a sandbox tree can stand for ``/``: ``boot_dir`` for
``/boot`` and ``etc_dir`` for ``/etc``. Absolute symlink targets under ``/boot`` or ``/etc`` are
rebased onto those directories. Python 3.8, standard library only.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import os
import re

from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import (
    GRUB_CMDLINE_VARS,
    edit_tokens,
    token_key,
    tokenize,
)


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


# ---------------------------------------------------------------------------------------------------------------
# grub.cfg text

_LINUX_RE = re.compile(r'^(?P<lead>[ \t]*)(?P<cmd>linux|linux16|linuxefi)(?P<sep>[ \t]+)(?P<kernel>\S+)'
                       r'(?P<args>[^\r\n]*)(?P<nl>\r?\n?)$')


def grub_cfg_linux_lines(text):
    """[(line index, kernel path, arg tokens)] of the linux/linux16/linuxefi lines of grub.cfg."""
    found = []
    for i, line in enumerate(text.splitlines(True)):
        m = _LINUX_RE.match(line)
        if m:
            found.append((i, m.group('kernel'), tokenize(m.group('args'), quotes='"\'')))
    return found


def _rewrite_linux_lines(text, new_args):
    """``text`` with the args of every linux/linux16/linuxefi line replaced by ``new_args(old_tokens, n)``
    (``n`` counts the linux lines from 0); lines whose tokens do not change, and all other lines, are kept
    byte-exact."""
    lines = text.splitlines(True)
    n = 0
    for i, line in enumerate(lines):
        m = _LINUX_RE.match(line)
        if not m:
            continue
        old = tokenize(m.group('args'), quotes='"\'')
        new = new_args(old, n)
        n += 1
        if new == old:
            continue
        lines[i] = '%s%s%s%s %s%s' % (m.group('lead'), m.group('cmd'), m.group('sep'), m.group('kernel'),
                                      ' '.join(new), m.group('nl'))
    return ''.join(lines)


def edit_grub_cfg(text, present, absent):
    """Set the args on every linux/linux16/linuxefi line of a grub.cfg; other lines are kept byte-exact."""
    return _rewrite_linux_lines(text, lambda old, n: edit_tokens(old, present, absent, 'in_place'))


def grub_cfg_default_cmdline(text):
    """Tokens of the first linux line of a grub.cfg (the default entry with GRUB_DEFAULT=0), or None."""
    found = grub_cfg_linux_lines(text)
    return found[0][2] if found else None


def _last_run(tokens, run):
    """Index of the last place where ``run`` occurs as consecutive items of ``tokens``, or -1."""
    n = len(run)
    for i in range(len(tokens) - n, -1, -1):
        if tokens[i:i + n] == run:
            return i
    return -1


def predict_generated_args(tokens, before, after, default_entry=False):
    """Predict the args grub-mkconfig writes on a linux line once /etc/default/grub went from before to after.

    ``tokens`` are the line's args in the current grub.cfg; ``before``/``after`` are
    grub_defaults_cmdline() of /etc/default/grub before and after the edit. grub-mkconfig writes
    ``root=... ro`` (worked out by the generator), then GRUB_CMDLINE_LINUX followed by
    GRUB_CMDLINE_LINUX_DEFAULT on normal entries, GRUB_CMDLINE_LINUX alone on recovery entries
    (``single``/``recovery`` before it). So:

    * where the line holds the old values as one consecutive run, that run is replaced by the new
      values and the generator's own words around it are kept;
    * otherwise, on a line starting with ``root=`` (the generator's form): the default (first) entry
      is ``root=... ro``, the new GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT, then the trailing
      grub ``$variables`` of the line (Ubuntu's ``$vt_handoff``); another entry whose old values were
      empty gets the new ones at its end (GRUB_CMDLINE_LINUX alone on a recovery entry).

    None when nothing fits (a hand-edited line).
    """
    lin, dflt = GRUB_CMDLINE_VARS
    for old, new in ((before[lin] + before[dflt], after[lin] + after[dflt]), (before[lin], after[lin])):
        if old:
            i = _last_run(tokens, old)
            if i >= 0:
                return tokens[:i] + new + tokens[i + len(old):]
    if not tokens or token_key(tokens[0]) != 'root':
        return None
    start = 2 if len(tokens) > 1 and tokens[1] == 'ro' else 1
    if default_entry:
        new = after[lin] + after[dflt]
    elif before[lin]:
        return None
    elif 'single' in tokens or 'recovery' in tokens:
        new = after[lin]
    elif not before[dflt]:
        new = after[lin] + after[dflt]
    else:
        return None
    end = len(tokens)
    while end > start and tokens[end - 1].startswith('$') and tokens[end - 1] not in new:
        end -= 1
    return (tokens[:start] if default_entry else tokens[:end]) + new + tokens[end:]


def predict_generated_cfg(text, before, after, present, absent):
    """The grub.cfg ``text`` with every linux line as grub-mkconfig is predicted to write it.

    Each line goes through predict_generated_args() (the first one as the default entry); a line no
    prediction fits gets the args edited in place as edit_grub_cfg() does. Other lines are kept.
    """
    def new_args(old, n):
        new = predict_generated_args(old, before, after, default_entry=n == 0)
        return edit_tokens(old, present, absent, 'in_place') if new is None else new
    return _rewrite_linux_lines(text, new_args)


def is_configfile_stub(text):
    """True for an EFI grub.cfg that only loads another file (``configfile``) and has no menu entry."""
    has_configfile = False
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith('#'):
            continue
        if _LINUX_RE.match(line) or s.startswith('menuentry') or s.startswith('blscfg'):
            return False
        if s.startswith('configfile'):
            has_configfile = True
    return has_configfile


def configfile_target(text):
    """The path a configfile stub loads, with ``$prefix`` / ``${prefix}`` and ``($dev)`` resolved.

    Returns the path on its file system (for example ``/grub2/grub.cfg`` or ``/boot/grub2/grub.cfg``),
    or None.
    """
    variables = {}
    target = None
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r'^set\s+(\w+)=(\S+)$', s)
        if m:
            variables[m.group(1)] = m.group(2).replace('"', '').replace("'", '')
            continue
        m = re.match(r'^configfile\s+(\S+)$', s)
        if m:
            target = m.group(1).replace('"', '').replace("'", '')
    if target is None:
        return None
    for _i in range(5):
        new = re.sub(r'\$\{?(\w+)\}?', lambda mm: variables.get(mm.group(1), mm.group(0)), target)
        if new == target:
            break
        target = new
    target = re.sub(r'^\([^)]*\)', '', target)
    return target if target.startswith('/') else None
