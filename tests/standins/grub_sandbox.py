#!/usr/bin/env python
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Build a sandbox root for the kernel_cmdline tests from tests/unit/plugins/fixtures/grub/<layout>.

    grub_sandbox.py LAYOUT DEST [--broken-grub-d]

LAYOUT is one of debian, openeuler-bios, openeuler-efi, openeuler-efi-stub, bls. DEST receives:

* the fixture tree (etc/, boot/, proc/cmdline), with the symlinks listed in its ``symlinks`` file
  (``etc/grub2.cfg -> ../boot/grub2/grub.cfg`` ...; kept out of git because some dangle on purpose);
* ``etc/grub.d/``: a copy of this machine's real /etc/grub.d (``--broken-grub-d`` adds a script whose
  output fails grub-script-check);
* ``usr/sbin/grub-mkconfig`` (and ``grub2-mkconfig`` for the openEuler/BLS layouts,
  ``update-grub`` for debian): wrappers that run the REAL Debian /usr/sbin/grub-mkconfig in a
  private mount namespace (``unshare --mount``) where DEST/etc is bind-mounted on /etc and DEST/boot
  on /boot, so the real generator reads the sandbox's /etc/default/grub, /etc/grub.d and kernels and
  never the host's. Debian's generator acts for openEuler's grub2-mkconfig: same command line
  (``-o FILE``), same inputs; its output is Debian-flavoured (``linux`` lines, not ``linux16``);
* ``usr/sbin/grubby`` for the bls layout: the grubby STAND-IN (tests/standins/grubby).

Prints DEST. Needs root (mount namespaces), like the grub tools themselves.
"""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), 'unit', 'plugins', 'fixtures', 'grub')
LAYOUTS = ('debian', 'openeuler-bios', 'openeuler-efi', 'openeuler-efi-stub', 'bls')
REAL_MKCONFIG = '/usr/sbin/grub-mkconfig'
REAL_SCRIPT_CHECK = '/usr/bin/grub-script-check'

WRAPPER = """#!/bin/sh
# Test wrapper: the REAL %(real)s, run in a private mount namespace with the sandbox
# %(root)s bind-mounted on /etc and /boot. Output paths (-o) are sandbox paths, visible unchanged.
exec unshare --mount --propagation private sh -c '
  mount --bind "$0/etc" /etc && mount --bind "$0/boot" /boot && shift && exec "$@"
' "%(root)s" _ %(real)s "$@"
"""

UPDATE_GRUB = """#!/bin/sh
# Test wrapper standing for Debian's update-grub (which is: exec grub-mkconfig -o /boot/grub/grub.cfg)
set -e
exec "%(root)s/usr/sbin/grub-mkconfig" -o "%(root)s/boot/grub/grub.cfg" "$@"
"""

BROKEN = """#!/bin/sh
# Injected by the tests: emits a grub script with an unterminated block.
echo 'if [ x = x ]; then'
echo '  echo broken'
"""


def _write_exec(path, text):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o755)


def build(layout, dest, broken_grub_d=False):
    if layout not in LAYOUTS:
        raise ValueError('unknown layout %r; one of %s' % (layout, ', '.join(LAYOUTS)))
    src = os.path.join(FIXTURES, layout)
    dest = os.path.abspath(dest)
    os.makedirs(dest, exist_ok=True)
    for dirpath, _dirs, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        os.makedirs(os.path.join(dest, rel), exist_ok=True)
        for name in files:
            if rel == '.' and name == 'symlinks':
                continue
            shutil.copy2(os.path.join(dirpath, name), os.path.join(dest, rel, name))
    links = os.path.join(src, 'symlinks')
    if os.path.exists(links):
        with open(links) as f:
            for line in f:
                if line.strip():
                    name, target = line.split()
                    path = os.path.join(dest, name)
                    if os.path.lexists(path):
                        os.unlink(path)
                    os.symlink(target, path)
    # what the Debian generator expects besides the layout's own files
    for d in ('boot/grub', 'etc/default', 'usr/sbin'):
        os.makedirs(os.path.join(dest, d), exist_ok=True)
    grub_d = os.path.join(dest, 'etc', 'grub.d')
    if os.path.isdir('/etc/grub.d') and not os.path.exists(grub_d):
        shutil.copytree('/etc/grub.d', grub_d, symlinks=True)
    if broken_grub_d:
        _write_exec(os.path.join(grub_d, '15_broken_for_test'), BROKEN)
    sbin = os.path.join(dest, 'usr', 'sbin')
    wrapper = WRAPPER % {'real': REAL_MKCONFIG, 'root': dest}
    _write_exec(os.path.join(sbin, 'grub-mkconfig'), wrapper)
    if layout == 'debian':
        _write_exec(os.path.join(sbin, 'update-grub'), UPDATE_GRUB % {'root': dest})
    else:
        _write_exec(os.path.join(sbin, 'grub2-mkconfig'), wrapper)
    if layout == 'bls':
        with open(os.path.join(HERE, 'grubby')) as f:
            text = f.read()
        # run the stand-in with the interpreter building the sandbox (no "python" on PATH needed)
        _write_exec(os.path.join(sbin, 'grubby'), text.replace('#!/usr/bin/env python', '#!' + sys.executable, 1))
    return dest


def generate_initial(dest, target):
    """Run the sandbox generator once so the layout starts from a really generated grub.cfg."""
    subprocess.check_call([os.path.join(dest, 'usr', 'sbin', 'grub-mkconfig'), '-o', target],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    dest = build(argv[0], argv[1], broken_grub_d='--broken-grub-d' in argv[2:])
    print(dest)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
