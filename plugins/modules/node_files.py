#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: node_files
short_description: Read, replace and remove files on a node, atomically and only when unchanged meanwhile
version_added: 1.0.0
description:
  - The node-side half of this collection's file-editing modules (M(numaops.colocation.kubelet_config),
    M(numaops.colocation.containerd_nri)). Their action plugins read files through this module, compute the
    new content on the controller (where the YAML/TOML round-trip libraries are installed), and hand the
    result back to this module, which writes it on the node with the Python standard library only.
  - A write is refused, and nothing at all is written or removed, when the file's content no longer matches
    the checksum the caller based its change on (someone else changed the file in between).
  - Files are replaced through a temporary file in the same directory and an atomic rename; an existing
    file keeps its owner, group and mode (and SELinux context). A symbolic link is followed and its target
    is replaced, so the link stays a link. A link whose target does not exist is reported by O(read)
    (C(dangling_link) in RV(files)); writing through it creates the target, so callers ask first.
  - The temporary file is C(.<name>.<8 random characters>.numaops) next to the file. One left behind by an
    interrupted run (killed between creating and renaming it) is removed by the next run that reads or writes
    that file; only files of exactly that name that no running process holds (locked while in use) are removed.
  - The writes and removals of one call are made in order; when one of them fails, those made before it are put back
    (the bytes, mode, owner and group; a link stays a link; a file created is removed) and the failure says so.
  - A file larger than O(max_size) is refused before it is read; an immutable (C(chattr +i)) or
    append-only file, or one in such a directory, is refused before anything is written, with the command
    that lifts the flag.
  - Usable directly, but normally you call the higher-level modules instead.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - numaops.colocation.node_lock_option
  - numaops.colocation.snapshot_option
attributes:
  check_mode:
    support: full
    details: Reports exactly which files would be written and removed, and writes nothing.
  diff_mode:
    support: none
    details: The calling modules produce the diff; this module returns the paths it touched.
  platform:
    platforms: posix
options:
  read:
    description:
      - Paths to read. Each is returned under RV(files) with its content (base64), checksum and ownership.
      - A missing path is reported with C(exists=false), not as an error.
    type: list
    elements: path
    default: []
  write:
    description:
      - Files to write. All preconditions are checked before anything is written.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: The file to write.
        type: path
        required: true
      content:
        description: The complete new content (text, written as UTF-8).
        type: str
        required: true
      expected_checksum:
        description:
          - SHA-1 of the content the caller read and based its change on, or V(absent) when the caller
            saw no file. The write is refused when the file now differs.
          - Omit to write whatever the file holds now.
        type: str
      mode:
        description: Mode for a file that is created (an existing file keeps its mode).
        type: raw
        default: '0644'
      backup:
        description: Keep a timestamped copy of the previous content next to the file before replacing it.
        type: bool
        default: false
      create_parents:
        description: Create missing parent directories (mode 0755) for a new file.
        type: bool
        default: false
  expect:
    description:
      - Files that must still hold what the caller read earlier (in another task), checked right after O(lock) and
        before anything else. When one differs, nothing is copied, read, written or removed, the task fails and
        RV(stale) names them (C(numaops.colocation.node_config) then reads them again and plans anew).
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: The file (a link is followed).
        type: path
        required: true
      checksum:
        description: Its SHA-1 when it was read, or V(absent) when there was no file.
        type: str
        required: true
  max_size:
    description:
      - Files larger than this many bytes are refused (read and write). Real kubelet and containerd
        configuration files are a few kilobytes.
    type: int
    default: 1048576
  restore:
    description:
      - Files to put back as O(snapshot) copied them, given as the entries of RV(snapshots) (the rollback of the
        role R(numaops.colocation.node_prep,ansible_collections.numaops.colocation.node_prep_role) passes them back).
        Done after O(lock), O(expect) and O(snapshot), before O(write) and O(remove).
      - Every copy is checked against its C(checksum) before anything is restored; a missing or different copy
        fails the task with nothing restored.
      - A file that existed gets its bytes, mode, owner and group back, through the same atomic replacement as
        O(write). A path that was a symbolic link is a link with the same text again (re-created if something
        replaced it) and the file at its end (C(target)) gets the content; a chain of links and a link into
        another directory are followed to the end. A file that did not exist is removed (for a link whose target
        did not exist, the target is removed and the link kept).
      - A file that already is what the entry describes is left alone (not in RV(restored)).
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: The file as the caller named it (a link maybe).
        type: path
        required: true
      existed:
        description: Whether the file (the end of the link) existed when it was copied.
        type: bool
        required: true
      backup:
        description: Where the copy is. Required when O(restore[].existed) is true.
        type: path
      checksum:
        description: SHA-1 of the copied content; the copy must still have it.
        type: str
        default: ''
      owner:
        description: Owner to restore (name or uid); V('') keeps the current one.
        type: str
        default: ''
      group:
        description: Group to restore (name or gid); V('') keeps the current one.
        type: str
        default: ''
      mode:
        description: Mode to restore (octal, like V('0640')); V('') takes the copy's mode.
        type: str
        default: ''
      link:
        description: The text of the symbolic link O(restore[].path) was, or V(null) for a regular or missing file.
        type: str
      target:
        description: The file at the end of the link (the one written and restored); defaults to O(restore[].path).
        type: path
  remove:
    description:
      - Regular files to remove, when they exist (after the writes succeed). A directory is refused.
    type: list
    elements: path
    default: []
notes:
  - Only the paths named in O(write), O(remove) and O(restore) (and the ends of their links) are ever modified
    (plus backup copies next to them,
    parent directories when O(write[].create_parents) is set, and the copies of O(snapshot) below its O(snapshot.dest)).
'''

EXAMPLES = r'''
- name: Read the containerd configuration
  numaops.colocation.node_files:
    read:
      - /etc/containerd/config.toml
  register: current

- name: Replace it, only if nobody changed it since it was read
  numaops.colocation.node_files:
    write:
      - path: /etc/containerd/config.toml
        content: "{{ new_content }}"
        expected_checksum: "{{ current.files['/etc/containerd/config.toml'].checksum }}"
        backup: true
'''

RETURN = r'''
files:
  description:
    - The files named in O(read), keyed by path.
    - C(write_error) and C(remove_error) are what a write (O(write)) or a removal (O(remove)) of the path would be
      refused with (an immutable or append-only file, or one in such a directory), or V(null); a caller that only
      plans, in check mode, knows it from the read without a second call.
  returned: always
  type: dict
  sample:
    /etc/containerd/config.toml:
      exists: true
      content: dmVyc2lvbiA9IDIK
      checksum: 8a6e5cf0bdfa5d6e2b5b0f2b2b8bd3c5e9a5b8e1
      size: 12
      mode: '0644'
      owner: root
      group: root
      link_target: null
      dangling_link: null
      write_error: null
      remove_error: null
written:
  description: Paths whose content was replaced or created (would be, in check mode).
  returned: always
  type: list
  elements: str
  sample: [/etc/containerd/config.toml]
removed:
  description: Paths in O(remove) that existed and were removed (would be, in check mode).
  returned: always
  type: list
  elements: str
  sample: [/var/lib/kubelet/cpu_manager_state]
removed_temp_files:
  description: Stale temporary files of an interrupted earlier run that were removed (would be, in check mode).
  returned: always
  type: list
  elements: str
  sample: [/etc/containerd/.config.toml.k2j4x9_a.numaops]
snapshots:
  description:
    - One entry per path of O(snapshot.paths), in order - C(path), C(existed), C(backup) (where the copy is),
      C(checksum) (SHA-1 of the content; V('') for a missing file), C(owner), C(group) and C(mode) (V('') for a
      missing file), C(link) (the text of the link the path is, or V(null)) and C(target) (the file at the end of
      the link, the one a write replaces). Pass them to O(restore) to put the files back.
  returned: always
  type: list
  elements: dict
  sample:
    - path: /var/lib/kubelet/config.yaml
      existed: true
      backup: /var/backups/numaops-colocation/20261201T180000Z/var/lib/kubelet/config.yaml
      checksum: 2f1c8e5a0c0f7a4d7f0f0b7c5a3c1e9e6c6a1f00
      owner: root
      group: root
      mode: '0644'
      link: ../../etc/kubernetes/kubelet.yaml
      target: /etc/kubernetes/kubelet.yaml
restored:
  description: Paths of O(restore) that were put back (would be, in check mode); files that already matched are left out.
  returned: always
  type: list
  elements: str
  sample: [/var/lib/kubelet/config.yaml]
put_back:
  description:
    - When a write or removal failed, the paths of O(write) and O(remove) this call had written or removed before it,
      which were put back as they were (RV(written) and RV(removed) still list them, the failed one last).
  returned: failure, when a write or removal failed after others of the same call
  type: list
  elements: str
  sample: [/var/lib/kubelet/config.yaml]
backup_files:
  description: Backup copy made for each written path that had a previous version.
  returned: always
  type: dict
  sample:
    /etc/containerd/config.toml: /etc/containerd/config.toml.12345.2026-11-29@22:41:25~
stale:
  description: The files of O(expect) that changed since the caller read them (the task failed having done nothing).
  returned: when a file of O(expect) changed
  type: list
  elements: str
  sample: [/var/lib/kubelet/cpu_manager_state]
lock:
  description: The result of M(numaops.colocation.node_lock) (C(outcome), C(holder), C(age), C(stale)).
  returned: when O(lock) is given
  type: dict
  sample: {outcome: refreshed, holder: {run_id: 20261201T101500Z-4711, controller: ctl-1, pid: 4242}}
'''

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native

from ansible_collections.numaops.colocation.plugins.module_utils import nodelock
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import (
    MAX_CONFIG_BYTES, RESTORE_SPEC, SNAPSHOT_SPEC, NodeFileError, changed_meanwhile_message, check_writable,
    oversize_message, read_for_plan, read_limited, remove_stale_temp_files, sha1, write_error, write_target,
)
from ansible_collections.numaops.colocation.plugins.module_utils.nodewrite import (
    Changes, is_state, parse_mode, put_back, replace_file, restore_state, snapshot_entry,
)

ARGUMENT_SPEC = dict(
    read=dict(type='list', elements='path', default=[]),
    write=dict(type='list', elements='dict', default=[], options=dict(
        path=dict(type='path', required=True),
        content=dict(type='str', required=True),
        expected_checksum=dict(type='str'),
        mode=dict(type='raw', default='0644'),
        backup=dict(type='bool', default=False),
        create_parents=dict(type='bool', default=False),
    )),
    remove=dict(type='list', elements='path', default=[]),
    snapshot=dict(type='dict', options=SNAPSHOT_SPEC),
    restore=dict(type='list', elements='dict', default=[], options=RESTORE_SPEC),
    expect=dict(type='list', elements='dict', default=[], options=dict(
        path=dict(type='path', required=True),
        checksum=dict(type='str', required=True),
    )),
    max_size=dict(type='int', default=MAX_CONFIG_BYTES),
    # taken or renewed first (numaops.colocation.node_lock's options; the action plugin fills in the holder)
    lock=dict(type='dict', options=nodelock.OPTIONS_SPEC),
)


def _mover(module):
    """module.atomic_move (keeps the SELinux context), with its failure (an exception, or fail_json in older
    ansible-core) as an exception for write_error() instead of a traceback or an internal repr."""
    def move(tmp, path):
        original = module.fail_json

        def capture(msg='', **kwargs):
            raise RuntimeError(msg)

        module.fail_json = capture
        try:
            module.atomic_move(tmp, path, unsafe_writes=False)
        finally:
            module.fail_json = original
    return move


def _write(module, path, data, mode, create_parents):
    directory = os.path.dirname(path) or '.'
    if not os.path.isdir(directory):
        if not create_parents:
            raise NodeFileError('cannot write %s: directory %s does not exist. Nothing was changed.' % (path, directory))
        try:
            os.makedirs(directory, 0o755)
        except OSError as err:
            raise NodeFileError('cannot create directory %s for %s: %s' % (directory, path, to_native(err)))
    existed = os.path.exists(path)
    try:
        new_mode = None if existed else parse_mode(mode)
        symbolic = False
    except NodeFileError:
        new_mode, symbolic = None, True  # u=rw,g=r,o=r and the like: set as AnsibleModule sets it
    replace_file(path, data, mode=new_mode, mover=_mover(module))
    if symbolic:
        module.set_mode_if_different(path, mode, False)


def _snapshot_one(module, path, dest, prefix, limit):
    if not os.path.isabs(path):
        raise NodeFileError('snapshot: %s is not an absolute path. Nothing was changed.' % path)
    if os.path.isdir(path):
        raise NodeFileError('cannot use %s: it is a directory, not a file. Nothing was changed.' % path)
    relative = path[len(prefix):] if prefix and path.startswith(prefix) else path
    backup = os.path.join(dest, relative.lstrip('/'))
    entry, data = snapshot_entry(path, backup, limit)
    if data is None or module.check_mode:
        return entry
    directory = os.path.dirname(backup)
    try:
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o700)
    except (IOError, OSError) as err:
        raise NodeFileError('snapshot: cannot create %s for the copy of %s: %s. Nothing was changed.'
                            % (directory, path, to_native(err)))
    _write(module, backup, data, entry['mode'], False)
    return entry


def _restore(module, entries, limit, result):
    """Put back the files of ``entries`` (snapshot entries): every copy is checked first, then each file is
    brought back (links stay links, their target gets the bytes, mode, owner and group back)."""
    states = []
    for entry in entries:
        try:
            states.append(restore_state(entry, limit))
        except NodeFileError as err:
            module.fail_json(msg=str(err), **result)
    failed = []
    for state in states:
        if is_state(state):
            continue
        result['restored'].append(state['path'])
        if module.check_mode:
            continue
        try:
            put_back(state, _mover(module))
        except NodeFileError as err:
            failed.append(str(err))
    if failed:
        module.fail_json(msg='could not restore every file: %s' % '; '.join(failed), **result)


def run(module):
    params = module.params
    limit = params['max_size']
    result = dict(changed=False, files={}, written=[], removed=[], backup_files={}, removed_temp_files=[],
                  snapshots=[], restored=[])

    def fail(msg):
        module.fail_json(msg=msg, **result)

    if params['lock'] is not None:
        # the node lock first (node_lock's work, in this call): held by another run, nothing else is done and the
        # action plugin decides (a stale lock is taken over by running this module again; otherwise the task fails)
        result['lock'] = {}
        try:
            nodelock.step(params['lock'], module.check_mode, result['lock'])
        except nodelock.LockError as err:
            fail(str(err))
        if result['lock']['outcome'] == 'held' and not module.check_mode:
            return result

    # files the caller planned from an earlier read: one that changed since stops the call before anything is done
    stale = []
    for item in params['expect']:
        try:
            current = read_limited(item['path'], limit, 'configuration file')
        except NodeFileError as err:
            fail(str(err))
        if ('absent' if current is None else sha1(current)) != item['checksum']:
            stale.append(item['path'])
    if stale:
        result['stale'] = stale
        fail('%s changed on the node since the caller read %s; nothing was copied, written or removed.'
             % (', '.join(stale), 'it' if len(stale) == 1 else 'them'))

    snapshot = params['snapshot']
    for path in (snapshot or {}).get('paths') or []:
        try:
            result['snapshots'].append(_snapshot_one(module, path, snapshot['dest'], snapshot['strip_prefix'], limit))
        except NodeFileError as err:
            fail(str(err))
        except (IOError, OSError) as err:
            fail('snapshot: cannot read %s: %s. Nothing was changed.' % (path, to_native(err)))

    _restore(module, params['restore'], limit, result)
    for path in [w['path'] for w in params['write']]:
        for name in remove_stale_temp_files(write_target(path), module.check_mode):
            if name not in result['removed_temp_files']:
                result['removed_temp_files'].append(name)
    try:
        read_for_plan(params['read'], limit, module.check_mode, result['files'], result['removed_temp_files'])
    except NodeFileError as err:
        fail(str(err))

    planned = []
    for item in params['write']:
        path = write_target(item['path'])
        data = to_bytes(item['content'], errors='surrogate_or_strict')
        if len(data) > limit:
            fail(oversize_message(item['path'], len(data), limit))
        try:
            current = read_limited(path, limit, 'configuration file')
        except NodeFileError as err:
            fail(str(err))
        expected = item['expected_checksum']
        if expected is not None:
            actual = 'absent' if current is None else sha1(current)
            if actual != expected:
                fail(changed_meanwhile_message(item['path'], expected, actual))
        if current != data:
            try:
                check_writable(path)
            except NodeFileError as err:
                fail(str(err))
            planned.append((item, path, data, current is not None))
    for path in params['remove']:
        if os.path.isdir(path) and not os.path.islink(path):
            fail('Refusing to remove %s: it is a directory, not a file.' % path)
        if os.path.lexists(path):
            try:
                check_writable(path)
            except NodeFileError as err:
                fail(str(err).replace('cannot write', 'cannot remove'))

    # what this call changes, kept before each change: a later write or removal that fails puts it all back
    changes = Changes(mover=_mover(module), limit=limit)
    changed_paths = []

    def undo(msg, path):
        _restored, failed = changes.rollback()
        before = [item for item in changed_paths if item != path]
        if failed:
            msg += ' What this call had changed before could not all be put back: %s' % '; '.join(failed)
        elif before:
            result['put_back'] = before
            msg += (' The %d file(s) this call had written or removed before it are put back as they were (put_back).'
                    % len(before))
        fail(msg)

    for item, path, data, existed in planned:
        result['written'].append(item['path'])
        if module.check_mode:
            continue
        try:
            if item['backup'] and existed:
                result['backup_files'][item['path']] = module.backup_local(path)
            changes.remember(item['path'], path)
            changed_paths.append(item['path'])
            _write(module, path, data, item['mode'], item['create_parents'])
        except NodeFileError as err:
            undo(str(err), item['path'])
        except Exception as err:  # pylint: disable=broad-except
            undo(write_error(path, err), item['path'])
    for path in params['remove']:
        if os.path.lexists(path):
            result['removed'].append(path)
            if not module.check_mode:
                try:
                    changes.remember(path)
                    changed_paths.append(path)
                    os.unlink(path)
                except (IOError, OSError, NodeFileError) as err:
                    undo('cannot remove %s: %s' % (path, to_native(err)), path)
    result['changed'] = bool(result['written'] or result['removed'] or result['restored'])
    return result


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.exit_json(**run(module))


if __name__ == '__main__':
    main()
