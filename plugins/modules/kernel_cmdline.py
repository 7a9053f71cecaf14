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
    or a key whatever its value. Keys the kernel takes several times (C(console), C(memmap),
    C(systemd.setenv)) keep the node's values; the wanted ones come after them, in the order given. The order
    of the other arguments is kept. Arguments after a lone C(--) belong to init and are never touched. As in the
    kernel, C(-) and C(_) are the same in parameter names.
  - "Huge page arguments are merged as entries keyed by page size, as the kernel reads them (a C(hugepages=)
    counts pages of the C(hugepagesz=) before it): a wanted C(hugepagesz=<size> hugepages=<count>) pair replaces
    the count of the node's pair of that size where it is, the node's pairs of other sizes stay, new pairs are
    appended as pairs; C(default_hugepagesz=) with the C(hugepages=) after it, or a C(hugepages=) given alone, is
    the default size's entry; O(state=absent) removes whole pairs (C(hugepagesz=1G) that pair, C(hugepagesz) or
    C(hugepages) every one). A merge that would put a count on another size, and an ambiguous list (a
    C(hugepages=) with no size before it when sizes are given too, two counts for one size), are refused before
    anything is changed. See docs/kernel_cmdline.md."
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

import traceback

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.numaops.colocation.plugins.module_utils import bootloader
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.base import run as run_backend
from ansible_collections.numaops.colocation.plugins.module_utils.bootloader.node import BootNode, StepFailed
from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import (
    CmdlineError,
    proc_cmdline_tokens,
    unsatisfied,
)
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import MAX_CONFIG_BYTES
from ansible_collections.numaops.colocation.plugins.module_utils.nodewrite import result_text


def argument_spec():
    spec = dict(
        args=dict(type='list', elements='str', default=[]),
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        absent_args=dict(type='list', elements='str', default=[]),
        backend=dict(type='str', choices=['auto'] + bootloader.names(), default='auto'),
        grub_defaults_path=dict(type='path', default='/etc/default/grub'),
        grub_defaults_variable=dict(type='str', choices=['GRUB_CMDLINE_LINUX', 'GRUB_CMDLINE_LINUX_DEFAULT'],
                                    default='GRUB_CMDLINE_LINUX'),
        grub_cfg_paths=dict(type='list', elements='path'),
        proc_cmdline_path=dict(type='path', default='/proc/cmdline'),
        boot_dir=dict(type='path', default='/boot'),
        bls_dir=dict(type='path'),
        backup=dict(type='bool', default=False),
        grub_script_check_path=dict(type='path'),
    )
    # each backend's tool path option (grubby_path, grub_mkconfig_path, update_grub_path)
    for option in bootloader.tool_options():
        spec[option] = dict(type='path')
    return spec


def run(module):
    p = module.params
    node = BootNode(module, bootloader.tool_specs())
    try:
        node.want()
    except CmdlineError as exc:
        module.fail_json(msg=to_native(exc))
    if p['grub_script_check_path'] and not node.script_checker:
        module.fail_json(
            msg='grub_script_check_path: %s is not an executable file; nothing was changed. Give the path of '
                'grub2-script-check or grub-script-check, or leave the option out (then the one on PATH is '
                'used, and the check is skipped with a warning when none is installed)' % p['grub_script_check_path'],
            notes=node.notes)

    name = p['backend']
    if name == 'auto':
        try:
            name = bootloader.detect_backend(node.tools, node.boot_dir, node.etc_dir, node.bls_dir)
        except bootloader.BootLoaderError as exc:
            module.fail_json(msg=to_native(exc))
    node.backend = name

    try:
        with open(p['proc_cmdline_path'], 'rb') as f:
            proc_text = f.read(MAX_CONFIG_BYTES).decode('utf-8', 'surrogateescape')
    except (IOError, OSError) as exc:
        module.fail_json(msg='cannot read the running command line from %s: %s'
                             % (p['proc_cmdline_path'], to_native(exc)))
    cmdline_current = proc_text.replace('\0', ' ').strip()
    reboot_required = bool(unsatisfied(proc_cmdline_tokens(proc_text), node.present, node.absent))

    try:
        changed, paths, next_tokens = run_backend(bootloader.by_name(name)(node))
    except (CmdlineError, StepFailed) as exc:
        node.fail(to_native(exc))
    except (IOError, OSError) as exc:
        node.fail('%s failed: %s' % (name, to_native(exc)))
    except Exception as exc:  # pylint: disable=broad-except
        node.fail('%s failed unexpectedly: %s' % (name, to_native(exc)), exception=traceback.format_exc())
    if paths and name != 'grubby' and not node.script_checker:
        node.warn_unchecked()

    result = dict(
        changed=changed,
        reboot_required=reboot_required,
        backend=name,
        cmdline_current=cmdline_current,
        cmdline_next=' '.join(next_tokens or []),
        grub_cfg_paths=paths,
        notes=node.notes,
        backup_files=node.backups,
    )
    if module._diff:
        result['diff'] = node.diffs
    try:
        # file text that is not UTF-8 (a Latin-1 comment) is shown with \\x escapes: the files keep their bytes
        result = result_text(result)
    except Exception as exc:  # pylint: disable=broad-except
        node.fail('%s: cannot return the result: %s' % (name, to_native(exc)), exception=traceback.format_exc())
    node.changes.forget()
    module.exit_json(**result)


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    run(module)


if __name__ == '__main__':
    main()
