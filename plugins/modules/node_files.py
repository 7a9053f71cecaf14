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
version_added: 0.1.0
description:
  - The node-side half of this collection's file-editing modules (M(numaops.colocation.kubelet_config),
    M(numaops.colocation.containerd_nri)). Their action plugins read files through this module, compute the
    new content on the controller (where the YAML/TOML round-trip libraries are installed), and hand the
    result back to this module, which writes it on the node with the Python standard library only.
  - A write is refused, and nothing at all is written or removed, when the file's content no longer matches
    the checksum the caller based its change on (someone else changed the file in between).
  - Files are replaced through a temporary file in the same directory and an atomic rename; an existing
    file keeps its owner, group and mode (and SELinux context). A symbolic link is followed and its target
    is replaced, so the link stays a link.
  - Usable directly, but normally you call the higher-level modules instead.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
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
  remove:
    description:
      - Regular files to remove, when they exist (after the writes succeed). A directory is refused.
    type: list
    elements: path
    default: []
notes:
  - Only the paths named in O(write) and O(remove) are ever modified (plus backup copies next to them,
    and parent directories when O(write[].create_parents) is set).
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
  description: The files named in O(read), keyed by path.
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
backup_files:
  description: Backup copy made for each written path that had a previous version.
  returned: always
  type: dict
  sample:
    /etc/containerd/config.toml: /etc/containerd/config.toml.12345.2026-11-29@22:41:25~
'''

import base64
import grp
import hashlib
import os
import pwd
import stat
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native

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
)


def _sha1(data):
    return hashlib.sha1(data).hexdigest()


def _read_bytes(path):
    try:
        with open(path, 'rb') as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _describe(path):
    data = _read_bytes(path)
    if data is None:
        return dict(exists=False)
    st = os.stat(path)
    try:
        owner = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        owner = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return dict(exists=True, content=base64.b64encode(data).decode('ascii'), checksum=_sha1(data),
                size=len(data), mode='%04o' % stat.S_IMODE(st.st_mode), owner=owner, group=group)


def _write(module, path, data, mode, create_parents):
    directory = os.path.dirname(path) or '.'
    if not os.path.isdir(directory):
        if not create_parents:
            module.fail_json(msg='Cannot write %s: directory %s does not exist.' % (path, directory))
        os.makedirs(directory, 0o755)
    existed = os.path.exists(path)
    fd, tmp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), dir=directory)
    try:
        with os.fdopen(fd, 'wb') as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        module.atomic_move(tmp, path, unsafe_writes=False)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    if not existed:
        module.set_mode_if_different(path, mode, False)


def run(module):
    params = module.params
    result = dict(changed=False, files={}, written=[], removed=[], backup_files={})
    for path in params['read']:
        try:
            result['files'][path] = _describe(path)
        except (IOError, OSError) as err:
            module.fail_json(msg='Cannot read %s: %s' % (path, to_native(err)), **result)

    planned = []
    for item in params['write']:
        path = os.path.realpath(item['path'])
        data = to_bytes(item['content'], errors='surrogate_or_strict')
        if os.path.isdir(path):
            module.fail_json(msg='Cannot write %s: it is a directory.' % item['path'], **result)
        current = _read_bytes(path)
        expected = item['expected_checksum']
        if expected is not None:
            actual = 'absent' if current is None else _sha1(current)
            if actual != expected:
                module.fail_json(
                    msg='%s changed on the node while this task was running (expected %s, found %s); '
                        'nothing was written. Run the task again.'
                        % (item['path'], 'no file' if expected == 'absent' else 'checksum ' + expected,
                           'no file' if actual == 'absent' else 'checksum ' + actual), **result)
        if current != data:
            planned.append((item, path, data, current is not None))
    for path in params['remove']:
        if os.path.isdir(path) and not os.path.islink(path):
            module.fail_json(msg='Refusing to remove %s: it is a directory, not a file.' % path, **result)

    for item, path, data, existed in planned:
        result['written'].append(item['path'])
        if module.check_mode:
            continue
        if item['backup'] and existed:
            result['backup_files'][item['path']] = module.backup_local(path)
        try:
            _write(module, path, data, item['mode'], item['create_parents'])
        except (IOError, OSError) as err:
            module.fail_json(msg='Cannot write %s: %s' % (item['path'], to_native(err)), **result)
    for path in params['remove']:
        if os.path.lexists(path):
            result['removed'].append(path)
            if not module.check_mode:
                try:
                    os.unlink(path)
                except (IOError, OSError) as err:
                    module.fail_json(msg='Cannot remove %s: %s' % (path, to_native(err)), **result)
    result['changed'] = bool(result['written'] or result['removed'])
    return result


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.exit_json(**run(module))


if __name__ == '__main__':
    main()
