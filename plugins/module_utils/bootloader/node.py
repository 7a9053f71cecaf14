# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every boot-loader backend works with (BootNode): the task's wanted arguments and directories, the tools
found, the files read (bytes kept: see decode), the shared files every backend keeps in step (/etc/default/grub,
/etc/kernel/cmdline), the grub.cfg targets, the syntax check, the notes and diffs of the result, and the one
write-and-restore path of the node's files (module_utils/nodewrite.py: every write kept first, put back on failure).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import (
    CmdlineError,
    edit_grub_defaults,
    edit_kernel_cmdline_file,
    parse_wanted,
    unsatisfied,
)
from ansible_collections.numaops.colocation.plugins.module_utils.grub import (
    grub_cfg_candidates,
    grub_cfg_linux_lines,
    resolve_link,
    resolve_targets,
)
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import (
    MAX_CONFIG_BYTES,
    MAX_GRUB_CFG_BYTES,
    NodeFileError,
    TempFile,
    check_writable,
    read_limited,
    remove_stale_temp_files,
    write_error,
)
from ansible_collections.numaops.colocation.plugins.module_utils.nodewrite import Changes, result_text

DEFAULT_BLS_DIR = '/boot/loader/entries'
SBIN = ['/usr/sbin', '/sbin', '/usr/local/sbin']
# the syntax checker every backend that writes a grub.cfg runs on it (the backends' own tools: their TOOLS)
SCRIPT_CHECK = ('grub_script_check_path', ('grub2-script-check', 'grub-script-check'))


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


class BootNode(object):
    """The node as the backends see it, for one run of kernel_cmdline (``module``: its AnsibleModule).

    ``tools`` maps each tool name of the registered backends' TOOLS to its path (None: not found)."""

    def __init__(self, module, tool_specs):
        self.module = module
        self.p = module.params
        self.check_mode = module.check_mode
        self.notes = []
        self.backups = []
        self.diffs = []
        self.touched = []
        # every file changed, kept before its first change, put back when a later step fails
        self.changes = Changes(mover=self.move)
        self._temps = {}
        self._warned_unchecked = False
        p = self.p
        self.boot_dir = p['boot_dir']
        self.etc_dir = os.path.dirname(os.path.dirname(p['grub_defaults_path'])) or '/'
        self.bls_dir = p['bls_dir'] or os.path.join(self.boot_dir, 'loader', 'entries')
        self.tools = {}
        for name, (option, names) in tool_specs:
            if name not in self.tools:
                self.tools[name] = self.tool(option, names)
        self.script_checker = self.tool(*SCRIPT_CHECK)
        self.present, self.absent = [], []

    def want(self):
        """The wanted arguments (raises CmdlineError naming the argument that is refused)."""
        self.present, self.absent = parse_wanted(self.p['args'], self.p['state'], self.p['absent_args'])

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
        for name in remove_stale_temp_files(self.target(path), self.check_mode):
            self.notes.append('%s temporary file %s left by an interrupted earlier run'
                              % ('would remove' if self.check_mode else 'removed', name))

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
        """Write data (text or bytes) to path through the node-file write path (nodewrite.Changes): kept first to be
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

    def install_staged(self, staged):
        """Put each staged (path, tmp) in place, in order: a backup copy when asked, kept to be put back on failure,
        then installed through write_atomic."""
        for path, tmp in staged:
            self.backup(path)
            self.remember(path)
            self.install(tmp, path)

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
