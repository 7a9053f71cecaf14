#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: containerd_nri
short_description: Switch NRI on (or off) in containerd's config.toml, keeping every other byte of the file
version_added: 1.0.0
description:
  - Sets the NRI (Node Resource Interface) plugin table C([plugins."io.containerd.nri.v1.nri"]) of containerd's
    configuration, which NUMA-affinity and colocation NRI plugins need. Works with every config version current
    containerd releases read - C(version = 2) (containerd 1.7), C(version = 3) (containerd 2.0 to 2.2) and
    C(version = 4) (containerd 2.3 and later); the NRI table is at the same place in all three. A file whose
    C(version) is higher than the detected containerd reads is refused.
  - The whole NRI table already in the file is checked against containerd's own types (booleans, strings, Go
    duration strings, the C(default_validator) table); a wrong-typed value (C(socket_path = 7)) is refused with
    its key, because containerd would not load the NRI plugin with it. Unknown keys are kept with a warning.
  - Always writes C(disable) explicitly, because containerd 1.7 ships NRI disabled and 2.x enabled, so a file
    that omits the key means different things on different versions.
  - The file is edited with a round-trip TOML parser on the controller; comments, ordering, quoting style and
    all other tables stay exactly as they were. The NRI table is found however it is written
    (C("...") or C('...') quoting, dotted keys, inline table) and never added twice.
  - A missing or empty file gets a minimal valid config for the detected containerd (C(version) included),
    when its directory exists. A missing directory, or a O(path) that is a symbolic link to a file that does
    not exist (dangling link), is refused unless O(create=true). An existing link is kept, and its target is edited.
  - Files larger than 1 MiB, directories, non-UTF-8 files and files with NUL bytes are refused with the file
    and the reason. Immutable files (C(chattr +i)) are refused before anything is written.
  - k3s and rke2 regenerate their containerd C(config.toml) from C(config.toml.tmpl) (C(config-v3.toml.tmpl)
    with containerd 2) at every start and say so in its first line (C(DO NOT EDIT)). A change to such a
    file is refused with that advice (O(template=refuse)), or made in the template the header names
    (O(template=manage)). A drop-in the generated file already imports needs no change to it.
    A version 1 config, or a containerd older than 1.7, is refused with a clear message and nothing is written.
  - The containerd version is taken from O(containerd_version), else from C(containerd --version) on the node
    (also in check mode; it only reads), else from the file's C(version) key.
  - With O(mode=dropin) the NRI table goes into a separate file (O(dropin_path)) and the main file only gets
    that file added to its C(imports) list (unless an existing entry or glob already covers it). Use this when
    another tool (k3s, rke2, a template) owns the main file.
  - The module does not restart containerd. It returns RV(restart_required); use
    M(numaops.colocation.containerd_nri_verify) in a handler to restart, wait for containerd and the NRI
    socket, and restore the backup when containerd does not come back.
  - Runs through an action plugin; needs C(tomlkit) on the controller and only Python's standard library on
    the node. Files are read and written through M(numaops.colocation.node_files) (atomic replace, owner and
    mode kept, refused when the file changed in between).
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reports exactly what would be written (with C(--diff) the new text) and writes nothing.
  diff_mode:
    support: full
  platform:
    platforms: posix
requirements:
  - tomlkit >= 0.11.0 on the controller
options:
  path:
    description: containerd's main configuration file.
    type: path
    default: /etc/containerd/config.toml
  state:
    description:
      - V(enabled) writes C(disable = false) in the NRI table, V(disabled) writes C(disable = true).
    type: str
    choices: [enabled, disabled]
    default: enabled
  socket_path:
    description:
      - C(socket_path) of the NRI table, the Unix socket NRI plugins connect to (at most 107 bytes).
      - Not set means the file's current value is kept (containerd's default is C(/var/run/nri/nri.sock)).
    type: path
  plugin_path:
    description:
      - C(plugin_path), the directory of pre-installed NRI plugins containerd starts itself.
      - Not set means the file's current value is kept (default C(/opt/nri/plugins)).
    type: path
  plugin_config_path:
    description:
      - C(plugin_config_path), the directory of configuration files of pre-installed NRI plugins.
      - Not set means the file's current value is kept (default C(/etc/nri/conf.d)).
    type: path
  plugin_registration_timeout:
    description:
      - C(plugin_registration_timeout), a Go duration such as V(5s) or V(1m30s) (units ns, us, ms, s, m, h).
      - A value equal in duration to the file's (V(5000ms) and V(5s)) is left as written.
    type: str
  plugin_request_timeout:
    description:
      - C(plugin_request_timeout), a Go duration such as V(2s).
    type: str
  disable_connections:
    description:
      - C(disable_connections); V(true) lets only pre-installed plugins run (no external plugin connects through
        the socket, and the socket is not created).
    type: bool
  mode:
    description:
      - V(inline) edits the NRI table in O(path).
      - V(dropin) writes the NRI table into O(dropin_path) and makes sure O(path) imports it. containerd 1.7
        replaces the main file's whole NRI table with the drop-in's (so NRI settings of the main file are copied
        into the drop-in); containerd 2.x merges them key by key.
    type: str
    choices: [inline, dropin]
    default: inline
  dropin_path:
    description:
      - The drop-in file for O(mode=dropin). An absolute path; its directory is created when missing.
    type: path
    default: /etc/containerd/conf.d/99-nri.toml
  containerd_version:
    description:
      - The containerd version on the node (V(1.7), V(1.7.24), V(2.1.0)); overrides C(containerd --version) and the
        file's C(version). Decides the config version of a new file and the defaults reported in RV(nri).
    type: str
  containerd_binary:
    description:
      - The containerd program run (as C(<containerd_binary> --version)) to detect the version when
        O(containerd_version) is not set. A missing program is not an error.
    type: str
    default: containerd
  misplaced_keys:
    description:
      - What to do with NRI option keys written outside the NRI table (at the top level of the file or directly
        under C([plugins])), where containerd silently ignores them.
      - V(warn) leaves them and warns; V(remove) deletes them (shown in the diff).
    type: str
    choices: [warn, remove]
    default: warn
  create:
    description:
      - Create O(path) also when its directory does not exist, or through a symbolic link whose target does not
        exist. Off by default, because either usually means containerd is not installed where O(path) says.
      - A missing O(path) in an existing directory is created either way; the drop-in's directory is always
        created.
    type: bool
    default: false
  template:
    description:
      - What to do when O(path) says it is generated from a template (C(DO NOT EDIT), as k3s and rke2 write).
      - V(refuse) fails when the file would have to change, with the template to use instead.
      - V(manage) edits the template file the header names, next to O(path) (it must exist and be plain
        TOML without C({{ }}) directives).
    type: str
    choices: [refuse, manage]
    default: refuse
  backup:
    description:
      - Keep a timestamped copy of each file before it is replaced. The copy of O(path) is returned as
        RV(backup_file) and, with the others, in RV(restore) for M(numaops.colocation.containerd_nri_verify).
    type: bool
    default: false
notes:
  - C(ctr plugins ls) shows the NRI plugin as C(ok) even when NRI is disabled; it proves nothing. Check for the
    NRI socket instead (M(numaops.colocation.containerd_nri_verify) does).
  - NRI options written at the top level of the file are ignored by containerd; see O(misplaced_keys).
seealso:
  - module: numaops.colocation.containerd_nri_verify
  - module: numaops.colocation.node_files
  - name: containerd NRI documentation
    description: The NRI plugin's options and behaviour.
    link: https://github.com/containerd/containerd/blob/main/docs/NRI.md
'''

EXAMPLES = r'''
- name: Enable NRI in containerd
  numaops.colocation.containerd_nri:
    backup: true
  register: nri
  notify: Restart containerd and verify NRI

- name: Enable NRI through a drop-in (main file owned by k3s/rke2 templates)
  numaops.colocation.containerd_nri:
    path: /etc/containerd/config.toml
    mode: dropin
    dropin_path: /etc/containerd/conf.d/99-nri.toml
    plugin_request_timeout: 5s

- name: Only pre-installed NRI plugins, no external connections
  numaops.colocation.containerd_nri:
    state: enabled
    disable_connections: true
    plugin_path: /opt/nri/plugins

# handlers:
- name: Restart containerd and verify NRI
  numaops.colocation.containerd_nri_verify:
    nri: "{{ nri.nri }}"
    restore: "{{ nri.restore }}"
'''

RETURN = r'''
changed:
  description: Whether a file was (in check mode, would be) written.
  returned: always
  type: bool
restart_required:
  description: containerd must be restarted for the change to apply (true whenever a file changed).
  returned: success
  type: bool
  sample: true
config_version:
  description: The C(version) of the main config file after the change.
  returned: success
  type: int
  sample: 2
containerd_version:
  description: The containerd version used for the decisions (from O(containerd_version) or C(containerd --version)),
    null when unknown.
  returned: success
  type: str
  sample: 1.7.24~ds1
nri:
  description: containerd's effective NRI settings after the change (file values over containerd's defaults for
    this version; in O(mode=dropin) the merge containerd does).
  returned: success
  type: dict
  sample:
    disable: false
    socket_path: /var/run/nri/nri.sock
    plugin_path: /opt/nri/plugins
    plugin_config_path: /etc/nri/conf.d
    plugin_registration_timeout: 5s
    plugin_request_timeout: 2s
    disable_connections: false
path:
  description: The main config file.
  returned: success
  type: str
  sample: /etc/containerd/config.toml
mode:
  description: The O(mode) used.
  returned: success
  type: str
  sample: inline
files:
  description: The files written (would be written in check mode).
  returned: success
  type: list
  elements: str
  sample: [/etc/containerd/config.toml]
backup_file:
  description: The backup of O(path), when O(backup=true) and the file was replaced (not in check mode).
  returned: when a backup of the main file was made
  type: str
  sample: /etc/containerd/config.toml.12345.2026-11-29@10:00:00~
backup_files:
  description: Every backup made, by file.
  returned: success
  type: dict
restore:
  description:
    - How to undo this change, for O(numaops.colocation.containerd_nri_verify#module:restore) - one entry per
      written file that can be undone - C(backup_file) to copy back, or null for a file this run created (it is
      removed). Files replaced without O(backup) are not listed.
  returned: success
  type: list
  elements: dict
  sample: [{path: /etc/containerd/config.toml, backup_file: /etc/containerd/config.toml.12345.2026-11-29@10:00:00~}]
diff:
  description: Before and after text of the changed file (a list of two when O(mode=dropin) changed both files).
  returned: in diff mode, when a file changed
  type: raw
'''

from ansible_collections.numaops.colocation.plugins.module_utils.action_only import action_only_main
from ansible_collections.numaops.colocation.plugins.module_utils.containerd import ARGUMENT_SPEC


def main():
    action_only_main('numaops.colocation.containerd_nri', ARGUMENT_SPEC)


if __name__ == '__main__':
    main()
