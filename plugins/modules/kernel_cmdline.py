#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: kernel_cmdline
short_description: Set or remove kernel command line arguments in the boot loader configuration
version_added: 1.0.0
author: numaops.colocation developers (@numaops)
description:
  - Adds, changes or removes kernel arguments (flags like C(mem_sampling_on) and C(key=value) pairs like
    C(numa_icon=enable)) in the boot loader configuration, for every installed kernel.
  - "Backends, chosen automatically unless O(backend) says otherwise:
    C(grubby) where grubby and BLS entries are present (RHEL, Fedora, openEuler with BLS) - runs
    C(grubby --update-kernel=ALL) and keeps C(GRUB_CMDLINE_LINUX) in step so new kernels inherit the args;
    C(update-grub) on Debian and Ubuntu;
    C(grub2-mkconfig) on openEuler/RHEL without BLS - regenerates every real grub.cfg (BIOS
    C(/boot/grub2/grub.cfg) and EFI C(/boot/efi/EFI/<distro>/grub.cfg)), following the C(/etc/grub2.cfg) and
    C(/etc/grub2-efi.cfg) links and, when the EFI file is a stub that C(configfile)s another, regenerating
    that other file. C(grubcfg) (never chosen automatically) edits the C(linux)/C(linux16)/C(linuxefi) lines
    of grub.cfg directly, for systems where regeneration is not wanted."
  - For C(update-grub) and C(grub2-mkconfig) the module edits O(grub_defaults_path), then runs
    C(grub-mkconfig)/C(grub2-mkconfig) into a temporary file next to each target (C(update-grub) is only
    C(grub-mkconfig -o /boot/grub/grub.cfg)), checks it with C(grub-script-check) when available, verifies it
    carries the arguments and only then moves it into place atomically. On any failure (a command, a check,
    a file that cannot be created, written, backed up or moved) every file already written is put back byte
    for byte (O(grub_defaults_path), grub.cfg files installed before the failing one, BLS entries; a
    grub.cfg the run created is removed) and the message names the file and the error. A grub.cfg whose
    directory does not exist (C(/boot/grub) without grub installed) fails the task before any file is touched.
  - A key given with a new value replaces the old value (no duplicate keys); O(state=absent) removes a flag
    or a key whatever its value. The order of the other arguments is kept. Arguments after a lone C(--)
    belong to init and are never touched. As in the kernel, C(-) and C(_) are the same in parameter names.
  - RV(reboot_required) compares the wanted arguments with what the running kernel was booted with
    (O(proc_cmdline_path)), not merely whether a file changed, so it stays true until the node has rebooted.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details:
      - Shows O(grub_defaults_path) and, for C(grubcfg), C(update-grub) and C(grub2-mkconfig), the grub.cfg
        C(linux) lines. In check mode the grub.cfg diff is the predicted edit of the current file (for the
        regenerating backends its C(linux) lines as grub-mkconfig is expected to write them, see
        RV(cmdline_next)); a real run shows the regenerated file.
  platform:
    support: full
    platforms: posix
options:
  args:
    description:
      - Kernel arguments, each a flag (C(mem_sampling_on)) or C(key=value) (C(numa_icon=enable)).
      - A value with spaces is written double quoted, as the kernel expects it (C(dyndbg="file foo.c +p")).
      - Give one key several times to keep several values in that order (C(console=tty0), C(console=ttyS0)).
      - "Refused: quotes other than a whole double-quoted value, C($), backquote, backslash, C(;), C(&), C(|),
        C(<), C(>), C(#), parentheses, braces and control characters - they would break the quoting of
        /etc/default/grub or of a grub.cfg linux line."
    type: list
    elements: str
    default: []
  state:
    description:
      - V(present) sets O(args) (a key with another value gets the given value); V(absent) removes every
        key of O(args) whatever its value.
    type: str
    choices: [present, absent]
    default: present
  absent_args:
    description:
      - Keys (or flags) to remove in the same task, whatever their value, together with O(args).
      - A key both in O(args) with O(state=present) and here is an error.
    type: list
    elements: str
    default: []
  backend:
    description:
      - Boot loader backend; V(auto) picks C(grubby) (grubby and BLS entries present), then C(update-grub),
        then C(grub2-mkconfig) (a grub.cfg to regenerate exists). V(grubcfg) is never picked automatically.
    type: str
    choices: [auto, grubby, grub2-mkconfig, update-grub, grubcfg]
    default: auto
  grub_defaults_path:
    description:
      - The grub defaults file holding C(GRUB_CMDLINE_LINUX). Its parent's parent stands for C(/etc) when
        looking for C(grub2.cfg) and C(grub2-efi.cfg) links.
      - With C(grubby) and C(grubcfg) it is kept in step when it exists, so that a later regeneration or a
        new kernel keeps the arguments.
    type: path
    default: /etc/default/grub
  grub_defaults_variable:
    description:
      - Which variable new keys are added to. Keys already present in C(GRUB_CMDLINE_LINUX) or
        C(GRUB_CMDLINE_LINUX_DEFAULT) are changed where they are.
      - C(GRUB_CMDLINE_LINUX) applies to every menu entry including recovery ones.
    type: str
    choices: [GRUB_CMDLINE_LINUX, GRUB_CMDLINE_LINUX_DEFAULT]
    default: GRUB_CMDLINE_LINUX
  grub_cfg_paths:
    description:
      - The grub.cfg files to regenerate (C(update-grub), C(grub2-mkconfig)) or edit (C(grubcfg)).
      - Default, detected under O(boot_dir) - C(update-grub) C(/boot/grub/grub.cfg); C(grub2-mkconfig) and
        C(grubcfg) the targets of C(/etc/grub2.cfg) and C(/etc/grub2-efi.cfg), C(/boot/grub2/grub.cfg) and
        C(/boot/efi/EFI/*/grub.cfg), configfile stubs replaced by the file they load.
      - Not used by C(grubby).
    type: list
    elements: path
  proc_cmdline_path:
    description: Where the running kernel's command line is read from.
    type: path
    default: /proc/cmdline
  boot_dir:
    description: The C(/boot) directory (a sandbox tree in tests); absolute symlink targets under C(/boot) are mapped into it.
    type: path
    default: /boot
  bls_dir:
    description: Directory of BLS entries; default C(<boot_dir>/loader/entries). Passed to grubby as C(--bls-directory) when not the default.
    type: path
  backup:
    description: Keep a timestamped copy of every file before it is changed (O(grub_defaults_path), grub.cfg files, BLS entries).
    type: bool
    default: false
  grubby_path:
    description: The grubby executable; default C(grubby) from C(PATH) and the sbin directories.
    type: path
  grub_mkconfig_path:
    description: The generator; default C(grub2-mkconfig), else C(grub-mkconfig), from C(PATH) and the sbin directories.
    type: path
  update_grub_path:
    description: The C(update-grub) executable, used to recognise Debian/Ubuntu; default from C(PATH).
    type: path
  grub_script_check_path:
    description:
      - The syntax checker run on every generated or edited grub.cfg before it is installed; default
        C(grub2-script-check), else C(grub-script-check), from C(PATH) and the sbin directories.
      - When none is found the check is skipped with a warning (also in RV(notes)) whenever a grub.cfg is
        (or in check mode would be) generated or edited.
      - A path given here that is not an executable file fails the task before anything is changed.
    type: path
notes:
  - A reboot is needed for the arguments to take effect; use RV(reboot_required) with M(ansible.builtin.reboot).
  - Where C(/etc/kernel/cmdline) exists (next to the C(default) directory of O(grub_defaults_path); RHEL 9,
    Fedora), it is kept in step with the same arguments, because C(kernel-install) builds the boot entry of a
    kernel installed later from it. It is never created.
  - A file that is a symbolic link stays a link; its target is written. Line endings (CRLF) and bytes that are
    not UTF-8 (Latin-1 comments, menu entry titles) are kept. Refused, naming the file and the reason, before
    anything is written - a NUL byte, a directory, C(/etc/default/grub), C(/etc/kernel/cmdline) or a BLS entry
    above 1 MiB, a grub.cfg above 8 MiB, an immutable or append-only file (C(chattr +i)/C(+a)).
  - Each file is replaced atomically, but the set is not - a run killed between two renames leaves e.g.
    C(/etc/default/grub) new and grub.cfg old, and the next run finishes the job (it compares every file with
    the wanted arguments). It also removes temporary files an interrupted run left
    (C(.<name>.<8 characters>.numaops), only ours, only those no running process holds) and says so in RV(notes).
  - The C(grubby) backend does not regenerate grub.cfg; BLS entries carry the arguments.
  - Snippets in C(/etc/default/grub.d/) that overwrite C(GRUB_CMDLINE_LINUX*) are detected by the check of the
    generated file - the run fails and restores every file.
seealso:
  - name: Kernel parameters
    description: The kernel's documentation of its command line.
    link: https://docs.kernel.org/admin-guide/kernel-parameters.html
'''

EXAMPLES = r'''
- name: Enable NUMA memory sampling
  numaops.colocation.kernel_cmdline:
    args:
      - mem_sampling_on
      - numa_icon=enable
  register: kcmd

- name: Reboot when the running kernel does not have the arguments yet
  ansible.builtin.reboot:
  when: kcmd.reboot_required

- name: Move to cgroup v2 and drop a conflicting flag in one task
  numaops.colocation.kernel_cmdline:
    args:
      - systemd.unified_cgroup_hierarchy=1
    absent_args:
      - cgroup_no_v1

- name: Remove CPU isolation whatever its value
  numaops.colocation.kernel_cmdline:
    args:
      - isolcpus
    state: absent

- name: openFuyao style - edit /etc/grub2-efi.cfg directly, no regeneration, keep a backup
  numaops.colocation.kernel_cmdline:
    args:
      - mem_sampling_on
    backend: grubcfg
    grub_cfg_paths:
      - /etc/grub2-efi.cfg
    backup: true
'''

RETURN = r'''
changed:
  description: Whether a boot loader file was (or in check mode would be) changed.
  returned: always
  type: bool
reboot_required:
  description:
    - True when the running kernel (O(proc_cmdline_path)) does not have the wanted arguments, whether or not
      this run changed a file.
  returned: always
  type: bool
  sample: true
backend:
  description: The backend used.
  returned: always
  type: str
  sample: update-grub
cmdline_current:
  description: The command line the running kernel was booted with.
  returned: always
  type: str
  sample: BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=0b7e... ro quiet
cmdline_next:
  description:
    - The arguments of the default boot entry after this run (predicted in check mode) - the first linux
      line of the first grub.cfg for the regenerating backends and C(grubcfg), C(grubby --info=DEFAULT) for
      C(grubby).
    - "Check mode, C(update-grub) and C(grub2-mkconfig): the first linux line of the existing grub.cfg with
      the old C(GRUB_CMDLINE_LINUX) C(GRUB_CMDLINE_LINUX_DEFAULT) replaced by the new ones, as grub-mkconfig
      writes them (exact when that grub.cfg was generated from the current O(grub_defaults_path)). When the
      grub.cfg does not exist yet (first run of C(update-grub)) only the arguments from O(grub_defaults_path)
      are listed - C(GRUB_CMDLINE_LINUX) followed by C(GRUB_CMDLINE_LINUX_DEFAULT) - without the C(root=)
      and C(ro) the generator adds."
  returned: always
  type: str
  sample: root=UUID=0b7e... ro quiet mem_sampling_on numa_icon=enable
grub_cfg_paths:
  description: The files regenerated or edited (BLS entry files for C(grubby)); in check mode those that would be.
  returned: always
  type: list
  elements: str
  sample: [/boot/grub2/grub.cfg, /boot/efi/EFI/openEuler/grub.cfg]
diff:
  description: Before and after of O(grub_defaults_path) and of the grub.cfg files (see the diff_mode attribute).
  returned: in diff mode
  type: list
  elements: dict
notes:
  description: What was found on the way (stubs followed, dangling links skipped, files not present).
  returned: always
  type: list
  elements: str
backup_files:
  description: Backup copies made when O(backup=true).
  returned: always
  type: list
  elements: str
'''

import os
import traceback

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import (
    CmdlineError,
    edit_grub_cfg,
    edit_kernel_cmdline_file,
    edit_grub_defaults,
    edit_tokens,
    grub_cfg_default_cmdline,
    grub_cfg_linux_lines,
    grub_defaults_cmdline,
    parse_wanted,
    predict_generated_cfg,
    proc_cmdline_tokens,
    tokenize,
    token_key,
    unsatisfied,
    bls_options,
)
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import (
    MAX_CONFIG_BYTES,
    MAX_GRUB_CFG_BYTES,
    Changes,
    NodeFileError,
    TempFile,
    check_writable,
    read_limited,
    remove_stale_temp_files,
    result_text,
    write_error,
)
from ansible_collections.numaops.colocation.plugins.module_utils.grub import (
    BootLoaderError,
    bls_entries,
    detect_backend,
    grub_cfg_candidates,
    resolve_link,
    resolve_targets,
)

DEFAULT_BLS_DIR = '/boot/loader/entries'
SBIN = ['/usr/sbin', '/sbin', '/usr/local/sbin']


def decode(path, data):
    """File bytes as text, keeping every byte: non-UTF-8 bytes (Latin-1 comments, menu titles) become
    surrogates that encode() turns back into the same bytes; line endings (CRLF) are kept as they are."""
    text = data.decode('utf-8', 'surrogateescape')
    if '\x00' in text:
        offset = text.index('\x00')
        raise CmdlineError('%s line %d: contains a NUL byte; it is not a text file, so it is not edited'
                           % (path, text.count('\n', 0, offset) + 1))
    return text


def encode(text):
    return text.encode('utf-8', 'surrogateescape')


def limit_for(path):
    return MAX_GRUB_CFG_BYTES if os.path.basename(path).endswith('.cfg') else MAX_CONFIG_BYTES


def read_text(path, limit=None):
    """The text of path (see decode()); refuses directories, NUL bytes and files above the size limit."""
    try:
        data = read_limited(path, limit or limit_for(path), 'boot loader file')
    except NodeFileError as exc:
        raise CmdlineError(to_native(exc))
    if data is None:
        raise CmdlineError('cannot read %s: it does not exist%s' % (
            path, '' if not os.path.islink(path) else ' (a symbolic link to %s, which is missing)' % os.path.realpath(path)))
    return decode(path, data)


class StepFailed(Exception):
    """A file operation or command failed while changing files; the message names the file and the error."""


class KernelCmdline(object):

    def __init__(self, module):
        self.module = module
        self.p = module.params
        self.notes = []
        self.backups = []
        self.diffs = []
        self.touched = []
        # every file changed, kept before its first change, put back when a later step fails
        self.changes = Changes(mover=self.move)
        self._temps = {}
        self._warned_unchecked = False

    # ---------------------------------------------------------------- helpers

    def fail(self, msg, **kwargs):
        remembered = self.changes.paths
        restored, failed = self.rollback()
        if failed:
            msg += ('. COULD NOT RESTORE %s - put back by hand (backup=true keeps copies)' % '; '.join(failed))
        if restored:
            msg += '; restored byte for byte: %s' % ', '.join(restored)
        elif remembered and not failed:
            msg += '; no file was left changed'
        self.module.fail_json(**result_text(dict(msg=msg, notes=self.notes, **kwargs)))

    def call(self, what, func, *args, **kwargs):
        """Run an AnsibleModule helper (atomic_move, backup_local, run_command) so that its failure raises
        StepFailed - whether it raises or calls fail_json itself (older ansible-core) - and the rollback runs."""
        module = self.module
        original = module.fail_json

        def raise_instead(msg='', **kw):
            exc = kw.get('exception')
            detail = '%s (%s)' % (msg, to_native(exc)) if isinstance(exc, BaseException) else msg
            raise StepFailed('%s: %s' % (what, detail))

        module.fail_json = raise_instead
        try:
            return func(*args, **kwargs)
        except StepFailed:
            raise
        except Exception as exc:  # pylint: disable=broad-except
            detail = to_native(exc)
            if exc.__cause__ is not None:
                detail += ' (%s)' % to_native(exc.__cause__)
            raise StepFailed('%s: %s' % (what, detail))
        finally:
            module.fail_json = original

    def run_cmd(self, cmd):
        return self.call('cannot run %s' % cmd[0], self.module.run_command, cmd)

    def tool(self, option, names):
        given = self.p[option]
        if given:
            if not (os.path.isfile(given) and os.access(given, os.X_OK)):
                self.notes.append('%s: %s is not an executable file; treated as not installed' % (option, given))
                return None
            return given
        for name in names:
            found = self.module.get_bin_path(name, opt_dirs=SBIN)
            if found:
                return found
        return None

    def target(self, path):
        """The file a write to path replaces: the target of a link (rebased into the sandbox), so links stay."""
        return resolve_link(path, self.boot_dir, self.etc_dir)

    def clean_stale(self, path):
        """Remove our temporary files for path that an interrupted run left (only ours, by exact name)."""
        for name in remove_stale_temp_files(self.target(path), self.module.check_mode):
            self.notes.append('%s temporary file %s left by an interrupted earlier run'
                              % ('would remove' if self.module.check_mode else 'removed', name))

    def writable(self, path):
        try:
            check_writable(self.target(path))
        except NodeFileError as exc:
            raise CmdlineError(to_native(exc))

    def mkstemp(self, path):
        """A locked temporary file next to path (same file system, so the final move is atomic); its name."""
        directory = os.path.dirname(path)
        try:
            tmp = TempFile(path)
        except (IOError, OSError) as exc:
            raise StepFailed('cannot create a temporary file in %s for %s: %s' % (directory, path, write_error(path, exc)))
        self._temps[tmp.name] = tmp
        return tmp.name

    def drop_tmp(self, tmp):
        handle = self._temps.pop(tmp, None)
        if handle is not None:
            handle.close()
        else:
            for leftover in (tmp, tmp + '.new'):
                if os.path.exists(leftover):
                    os.unlink(leftover)

    def move(self, tmp, path):
        """Move tmp onto path atomically with AnsibleModule.atomic_move (SELinux context kept); its failure, raised or
        through fail_json (older ansible-core), raises."""
        module = self.module
        original = module.fail_json

        def raise_instead(msg='', **kw):
            raise RuntimeError(msg)

        module.fail_json = raise_instead
        try:
            module.atomic_move(tmp, path)
        finally:
            module.fail_json = original

    def write_tmp(self, tmp, path, data):
        """Write data (text or bytes) meant for path into its temporary file tmp."""
        try:
            with open(tmp, 'wb') as f:
                f.write(data if isinstance(data, bytes) else encode(data))
                f.flush()
                os.fsync(f.fileno())
        except (IOError, OSError) as exc:
            raise StepFailed('cannot write the new %s (temporary file %s): %s' % (path, tmp, to_native(exc)))

    def write_atomic(self, path, data):
        """Write data (text or bytes) to path through the node-file write path (nodefile.Changes): kept first to be
        put back on failure, then replaced atomically; a link is kept and its target replaced."""
        try:
            self.changes.write(path, data if isinstance(data, bytes) else encode(data), target=self.target(path),
                               limit=limit_for(path))
        except NodeFileError as exc:
            raise StepFailed(to_native(exc))

    def install(self, tmp, path):
        """Put the staged (checked) content of tmp into path through write_atomic."""
        try:
            with open(tmp, 'rb') as f:
                data = f.read()
        except (IOError, OSError) as exc:
            raise StepFailed('cannot read the new %s (temporary file %s): %s' % (path, tmp, to_native(exc)))
        self.write_atomic(path, data)

    def backup(self, path):
        if self.p['backup'] and os.path.exists(path):
            self.backups.append(self.call('cannot back up %s' % path, self.module.backup_local, path))

    def remember(self, path):
        """Keep path (a tool changes it, not write_atomic) to put back if the run fails later."""
        try:
            self.changes.remember(path, self.target(path), limit_for(path))
        except NodeFileError as exc:
            raise StepFailed(to_native(exc))

    def rollback(self):
        """Put every remembered file back exactly. Returns (restored paths, texts of the failures)."""
        restored, failed = self.changes.rollback()
        for text in failed:
            self.notes.append('could not restore %s' % text)
        return restored, failed

    def warn_unchecked(self):
        if self._warned_unchecked:
            return
        self._warned_unchecked = True
        msg = ('neither grub2-script-check nor grub-script-check was found (PATH, %s): grub.cfg goes into place '
               'without a syntax check. Install grub2-tools (openEuler/RHEL) or grub-common (Debian/Ubuntu), or '
               'give grub_script_check_path' % ', '.join(SBIN))
        self.module.warn(msg)
        self.notes.append(msg)

    def script_check(self, path):
        if not self.script_checker:
            self.warn_unchecked()
            return
        rc, out, err = self.run_cmd([self.script_checker, path])
        if rc != 0:
            raise CmdlineError('%s rejected the generated grub.cfg (%s): %s; nothing was installed'
                               % (self.script_checker, path, (err or out).strip()))

    def add_diff(self, path, before, after):
        self.diffs.append({'before_header': path, 'after_header': path, 'before': before, 'after': after})

    # ---------------------------------------------------------------- main

    def run(self):
        p = self.p
        try:
            self.present, self.absent = parse_wanted(p['args'], p['state'], p['absent_args'])
        except CmdlineError as exc:
            self.module.fail_json(msg=to_native(exc))
        self.boot_dir = p['boot_dir']
        self.etc_dir = os.path.dirname(os.path.dirname(p['grub_defaults_path'])) or '/'
        self.bls_dir = p['bls_dir'] or os.path.join(self.boot_dir, 'loader', 'entries')
        self.grubby = self.tool('grubby_path', ['grubby'])
        self.mkconfig = self.tool('grub_mkconfig_path', ['grub2-mkconfig', 'grub-mkconfig'])
        self.update_grub = self.tool('update_grub_path', ['update-grub'])
        self.script_checker = self.tool('grub_script_check_path', ['grub2-script-check', 'grub-script-check'])
        if p['grub_script_check_path'] and not self.script_checker:
            self.module.fail_json(
                msg='grub_script_check_path: %s is not an executable file; nothing was changed. Give the path of '
                    'grub2-script-check or grub-script-check, or leave the option out (then the one on PATH is '
                    'used, and the check is skipped with a warning when none is installed)' % p['grub_script_check_path'],
                notes=self.notes)

        backend = p['backend']
        if backend == 'auto':
            try:
                backend = detect_backend({'grubby': self.grubby, 'grub-mkconfig': self.mkconfig,
                                          'update-grub': self.update_grub}, self.boot_dir, self.etc_dir, self.bls_dir)
            except BootLoaderError as exc:
                self.module.fail_json(msg=to_native(exc))
        self.backend = backend

        try:
            with open(p['proc_cmdline_path'], 'rb') as f:
                proc_text = f.read(MAX_CONFIG_BYTES).decode('utf-8', 'surrogateescape')
        except (IOError, OSError) as exc:
            self.module.fail_json(msg='cannot read the running command line from %s: %s'
                                      % (p['proc_cmdline_path'], to_native(exc)))
        self.cmdline_current = proc_text.replace('\0', ' ').strip()
        reboot_required = bool(unsatisfied(proc_cmdline_tokens(proc_text), self.present, self.absent))

        try:
            if backend == 'grubby':
                changed, paths, next_tokens = self.run_grubby()
            elif backend == 'grubcfg':
                changed, paths, next_tokens = self.run_grubcfg()
            else:
                changed, paths, next_tokens = self.run_regenerate()
        except (CmdlineError, StepFailed) as exc:
            self.fail(to_native(exc))
        except (IOError, OSError) as exc:
            self.fail('%s failed: %s' % (backend, to_native(exc)))
        except Exception as exc:  # pylint: disable=broad-except
            self.fail('%s failed unexpectedly: %s' % (backend, to_native(exc)), exception=traceback.format_exc())
        if paths and backend != 'grubby' and not self.script_checker:
            self.warn_unchecked()

        result = dict(
            changed=changed,
            reboot_required=reboot_required,
            backend=backend,
            cmdline_current=self.cmdline_current,
            cmdline_next=' '.join(next_tokens or []),
            grub_cfg_paths=paths,
            notes=self.notes,
            backup_files=self.backups,
        )
        if self.module._diff:
            result['diff'] = self.diffs
        try:
            # file text that is not UTF-8 (a Latin-1 comment) is shown with \\x escapes: the files keep their bytes
            result = result_text(result)
        except Exception as exc:  # pylint: disable=broad-except
            self.fail('%s: cannot return the result: %s' % (backend, to_native(exc)), exception=traceback.format_exc())
        self.changes.forget()
        self.module.exit_json(**result)

    # ---------------------------------------------------------------- /etc/default/grub

    def plan_defaults(self, required):
        path = self.p['grub_defaults_path']
        if not os.path.exists(path):
            if required:
                raise CmdlineError('%s does not exist; backend %s generates grub.cfg from it. Give the right '
                                   'path in grub_defaults_path' % (path, self.backend))
            self.notes.append('%s does not exist; only the boot entries are changed' % path)
            return None, None
        self.clean_stale(path)
        before = read_text(path)
        after = edit_grub_defaults(before, self.present, self.absent, path, self.p['grub_defaults_variable'])
        if after != before:
            self.writable(path)
        self.add_diff(path, before, after)
        return before, after

    def plan_kernel_cmdline(self):
        """/etc/kernel/cmdline (RHEL 9, Fedora: kernel-install copies it into the BLS entry of a kernel installed
        later): kept in step where it exists, so a kernel update keeps the arguments."""
        path = os.path.join(self.etc_dir, 'kernel', 'cmdline')
        if not os.path.lexists(path):
            return None
        if not os.path.exists(path):
            self.notes.append('%s is a symbolic link to %s, which does not exist; not changed'
                              % (path, os.path.realpath(path)))
            return None
        self.clean_stale(path)
        before = read_text(path)
        after = edit_kernel_cmdline_file(before, self.present, self.absent)
        if after != before:
            self.writable(path)
        self.add_diff(path, before, after)
        return (path, before, after)

    def apply_kernel_cmdline(self, plan):
        if plan is None or plan[1] == plan[2]:
            return
        path = plan[0]
        self.backup(path)
        self.remember(path)
        self.write_atomic(path, plan[2])
        self.touched.append(path)

    def apply_defaults(self, before, after):
        if before is None or before == after:
            return
        path = self.p['grub_defaults_path']
        self.backup(path)
        self.remember(path)
        self.write_atomic(path, after)
        self.touched.append(path)

    # ---------------------------------------------------------------- grubby

    def grubby_cmd(self, *args):
        cmd = [self.grubby] + list(args)
        if os.path.normpath(self.bls_dir) != DEFAULT_BLS_DIR:
            cmd.append('--bls-directory=%s' % self.bls_dir)
        return cmd

    def grubby_info(self, which):
        rc, out, err = self.run_cmd(self.grubby_cmd('--info=%s' % which))
        if rc != 0:
            raise CmdlineError('grubby --info=%s failed (rc=%d): %s' % (which, rc, (err or out).strip()))
        entries = []
        for line in out.splitlines():
            if '=' not in line:
                continue
            key, value = line.split('=', 1)
            if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
                value = value[1:-1]
            if key == 'index':
                entries.append({'index': value})
            elif entries:
                entries[-1][key] = value
        for e in entries:
            toks = tokenize(e.get('args', ''))
            if e.get('root') and not any(token_key(t) == 'root' for t in toks):
                toks = ['root=%s' % e['root']] + toks
            e['tokens'] = toks
        return entries

    def run_grubby(self):
        if not self.grubby:
            raise CmdlineError('backend grubby: grubby was not found; install it or give grubby_path')
        if not bls_entries(self.bls_dir):
            raise CmdlineError('backend grubby: no BLS entries (*.conf) in %s; give bls_dir or choose another backend'
                               % self.bls_dir)
        before_defaults, after_defaults = self.plan_defaults(required=False)
        kcmd = self.plan_kernel_cmdline()
        entries = self.grubby_info('ALL')
        if not entries:
            raise CmdlineError('grubby --info=ALL lists no boot entries (BLS directory %s)' % self.bls_dir)
        try:
            default = self.grubby_info('DEFAULT')[0]
        except (CmdlineError, IndexError):
            default = entries[0]
            self.notes.append('grubby --info=DEFAULT gave no entry; the first entry stands for the default')
        todo = [e for e in entries if unsatisfied(e['tokens'], self.present, self.absent)]
        files = [f for f in bls_entries(self.bls_dir)
                 if unsatisfied(tokenize(bls_options(read_text(f)) or ''), self.present, self.absent)]
        changed = bool(todo) or (before_defaults != after_defaults) or bool(kcmd and kcmd[1] != kcmd[2])
        next_tokens = edit_tokens(default['tokens'], self.present, self.absent, 'append')
        if not changed or self.module.check_mode:
            return changed, files, next_tokens

        add, remove = [], []
        wanted_keys = dict(self.present)
        for key, values in self.present:
            if any(unsatisfied(e['tokens'], [(key, values)], []) for e in todo):
                add.extend(v.raw for v in values)
        for e in todo:
            for t in e['tokens']:
                k = token_key(t)
                spelled = t.replace('"', '').split('=', 1)[0]
                if k in self.absent or (k in wanted_keys and spelled not in [v.raw.split('=', 1)[0] for v in wanted_keys[k]]):
                    if spelled not in remove:
                        remove.append(spelled)
        snapshot = dict((f, read_text(f)) for f in bls_entries(self.bls_dir))
        if todo:
            for f in files:
                self.backup(f)
            for f in snapshot:
                self.remember(f)
            cmd = ['--update-kernel=ALL']
            if remove:
                cmd.append('--remove-args=%s' % ' '.join(remove))
            if add:
                cmd.append('--args=%s' % ' '.join(add))
            rc, out, err = self.run_cmd(self.grubby_cmd(*cmd))
            if rc != 0:
                raise CmdlineError('grubby %s failed (rc=%d): %s'
                                   % (' '.join(cmd), rc, (err or out).strip()))
            expected = dict((e.get('id') or e['index'], edit_tokens(e['tokens'], self.present, self.absent, 'append'))
                            for e in entries)
            for e in self.grubby_info('ALL'):
                want = expected.get(e.get('id') or e['index'])
                if want is None or tokenize(' '.join(want)) != tokenize(' '.join(e['tokens'])) \
                        or unsatisfied(e['tokens'], self.present, self.absent):
                    raise CmdlineError(
                        'grubby %s left entry %s with args %r where %r was expected (grubby splits arguments on '
                        'blanks, so quoted values with spaces cannot go through it)'
                        % (' '.join(cmd), e.get('title') or e.get('kernel'), ' '.join(e['tokens']),
                           ' '.join(want or [])))
        self.apply_defaults(before_defaults, after_defaults)
        self.apply_kernel_cmdline(kcmd)
        changed_files = [f for f in snapshot if os.path.exists(f) and read_text(f) != snapshot[f]]
        for f in changed_files:
            self.add_diff(f, snapshot[f], read_text(f))
        try:
            next_tokens = self.grubby_info('DEFAULT')[0]['tokens']
        except (CmdlineError, IndexError):
            pass
        return True, changed_files, next_tokens

    # ---------------------------------------------------------------- grub.cfg targets

    def targets(self, backend):
        given = self.p['grub_cfg_paths']
        if given:
            paths, notes = resolve_targets(given, self.boot_dir, self.etc_dir)
            missing = [t for t in paths if not os.path.isfile(t)]
            if missing and backend == 'grubcfg':
                raise CmdlineError('grub_cfg_paths: %s does not exist; backend grubcfg edits existing files only'
                                   % ', '.join(missing))
        else:
            paths, notes = grub_cfg_candidates(backend, self.boot_dir, self.etc_dir)
            if not paths:
                raise CmdlineError('backend %s: no grub.cfg found under %s (nor via %s/grub2.cfg, %s/grub2-efi.cfg); '
                                   'give grub_cfg_paths' % (backend, self.boot_dir, self.etc_dir, self.etc_dir))
        for t in paths:
            directory = os.path.dirname(t)
            if not os.path.isfile(t) and not os.path.isdir(directory):
                raise CmdlineError(
                    'backend %s: the directory %s of the grub.cfg to generate (%s) does not exist; nothing was changed. '
                    'Is grub installed for this boot layout (grub-install creates it)? Create the directory, or give '
                    'the real grub.cfg in grub_cfg_paths' % (backend, directory, t))
        self.notes.extend(notes)
        for t in paths:
            self.clean_stale(t)
        return paths

    def cfg_satisfied(self, text):
        lines = grub_cfg_linux_lines(text)
        if not lines:
            return False
        first = lines[0][2]
        if unsatisfied(first, self.present, []):
            return False
        return not any(unsatisfied(toks, [], self.absent) for _i, _k, toks in lines)

    def run_grubcfg(self):
        before_defaults, after_defaults = self.plan_defaults(required=False)
        kcmd = self.plan_kernel_cmdline()
        plans = []
        for path in self.targets('grubcfg'):
            before = read_text(path)
            if not grub_cfg_linux_lines(before):
                raise CmdlineError('%s has no linux/linux16/linuxefi line to edit (BLS or stub config?); '
                                   'choose backend grubby or grub2-mkconfig' % path)
            after = edit_grub_cfg(before, self.present, self.absent)
            if after != before:
                self.writable(path)
            plans.append((path, before, after))
            self.add_diff(path, before, after)
        changed_paths = [pl[0] for pl in plans if pl[1] != pl[2]]
        changed = bool(changed_paths) or before_defaults != after_defaults or bool(kcmd and kcmd[1] != kcmd[2])
        next_tokens = grub_cfg_default_cmdline(plans[0][2]) if plans else None
        if not changed or self.module.check_mode:
            return changed, changed_paths, next_tokens
        staged = []
        try:
            for path, before, after in plans:
                if before == after:
                    continue
                tmp = self.mkstemp(path)
                staged.append((path, tmp))
                self.write_tmp(tmp, path, after)
                self.script_check(tmp)
            self.apply_defaults(before_defaults, after_defaults)
            for path, tmp in staged:
                self.backup(path)
                self.remember(path)
                self.install(tmp, path)
            self.apply_kernel_cmdline(kcmd)
        finally:
            for _path, tmp in staged:
                self.drop_tmp(tmp)
        return True, changed_paths, next_tokens

    # ---------------------------------------------------------------- regeneration

    def run_regenerate(self):
        if not self.mkconfig:
            raise CmdlineError('backend %s: neither grub2-mkconfig nor grub-mkconfig was found; install grub or '
                               'give grub_mkconfig_path' % self.backend)
        if self.backend == 'update-grub' and not self.p['grub_mkconfig_path'] and os.path.basename(self.mkconfig) == 'grub2-mkconfig':
            alt = self.module.get_bin_path('grub-mkconfig', opt_dirs=SBIN)
            self.mkconfig = alt or self.mkconfig
        before_defaults, after_defaults = self.plan_defaults(required=True)
        kcmd = self.plan_kernel_cmdline()
        targets = self.targets(self.backend)
        current = {}
        for t in targets:
            current[t] = read_text(t) if os.path.isfile(t) else ''
        stale = [t for t in targets if not self.cfg_satisfied(current[t])]
        for t in targets:
            if 'blscfg' in current[t] and not grub_cfg_linux_lines(current[t]):
                raise CmdlineError('%s boots BLS entries (blscfg) and has no linux line: the arguments live in the '
                                   'BLS entries; use backend grubby' % t)
        defaults_changed = before_defaults != after_defaults
        regen = targets if defaults_changed else stale
        for t in regen:
            if os.path.exists(t):
                self.writable(t)
        changed = bool(regen) or bool(kcmd and kcmd[1] != kcmd[2])
        path = self.p['grub_defaults_path']
        vars_before = grub_defaults_cmdline(before_defaults, path)
        vars_after = grub_defaults_cmdline(after_defaults, path)
        # the first linux line as grub-mkconfig will write it; without a grub.cfg yet only the arguments from
        # /etc/default/grub are known (root= and ro come from the generator)
        predicted = dict((t, predict_generated_cfg(current[t], vars_before, vars_after, self.present, self.absent))
                         for t in targets)
        next_tokens = grub_cfg_default_cmdline(predicted[targets[0]]) or edit_tokens(
            vars_after['GRUB_CMDLINE_LINUX'] + vars_after['GRUB_CMDLINE_LINUX_DEFAULT'], [], [])
        if not changed or self.module.check_mode:
            for t in regen:
                self.add_diff(t, current[t], predicted[t])
            return changed, regen, next_tokens
        if not regen:
            self.apply_kernel_cmdline(kcmd)
            return True, regen, next_tokens

        self.apply_defaults(before_defaults, after_defaults)
        staged = []
        try:
            for t in regen:
                tmp = self.mkstemp(t)
                staged.append((t, tmp))
                rc, out, err = self.run_cmd([self.mkconfig, '-o', tmp])
                if rc != 0:
                    raise CmdlineError('%s -o %s failed (rc=%d): %s; nothing was installed'
                                       % (self.mkconfig, t, rc, (err or out).strip()[-2000:]))
                self.script_check(tmp)
                try:
                    text = read_text(tmp, MAX_GRUB_CFG_BYTES)
                except (IOError, OSError, CmdlineError) as exc:
                    raise StepFailed('cannot read the grub.cfg generated for %s (%s): %s; nothing was installed'
                                     % (t, tmp, to_native(exc)))
                if not self.cfg_satisfied(text):
                    lines = grub_cfg_linux_lines(text)
                    missing = unsatisfied(lines[0][2], self.present, self.absent) if lines else ['any linux line']
                    raise CmdlineError(
                        'the grub.cfg generated for %s by %s does not carry %s (snippets in %s.d/ overriding '
                        'GRUB_CMDLINE_LINUX*, or a BLS layout?); nothing was installed'
                        % (t, self.mkconfig, ', '.join(missing), path))
                self.add_diff(t, current[t], text)
                if t == targets[0]:
                    next_tokens = grub_cfg_default_cmdline(text)
            for t, tmp in staged:
                self.backup(t)
                self.remember(t)
                self.install(tmp, t)
            self.apply_kernel_cmdline(kcmd)
        finally:
            for _t, tmp in staged:
                self.drop_tmp(tmp)
        return True, regen, next_tokens


def main():
    module = AnsibleModule(
        argument_spec=dict(
            args=dict(type='list', elements='str', default=[]),
            state=dict(type='str', choices=['present', 'absent'], default='present'),
            absent_args=dict(type='list', elements='str', default=[]),
            backend=dict(type='str', choices=['auto', 'grubby', 'grub2-mkconfig', 'update-grub', 'grubcfg'], default='auto'),
            grub_defaults_path=dict(type='path', default='/etc/default/grub'),
            grub_defaults_variable=dict(type='str', choices=['GRUB_CMDLINE_LINUX', 'GRUB_CMDLINE_LINUX_DEFAULT'],
                                        default='GRUB_CMDLINE_LINUX'),
            grub_cfg_paths=dict(type='list', elements='path'),
            proc_cmdline_path=dict(type='path', default='/proc/cmdline'),
            boot_dir=dict(type='path', default='/boot'),
            bls_dir=dict(type='path'),
            backup=dict(type='bool', default=False),
            grubby_path=dict(type='path'),
            grub_mkconfig_path=dict(type='path'),
            update_grub_path=dict(type='path'),
            grub_script_check_path=dict(type='path'),
        ),
        supports_check_mode=True,
    )
    KernelCmdline(module).run()


if __name__ == '__main__':
    main()
