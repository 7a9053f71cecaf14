#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: report_files
short_description: Write a run's report files into a directory on the controller, in one task
version_added: 1.0.0
description:
  - Creates O(dir) on the controller when it is missing (with its parents, mode 0755) and writes each file of
    O(files) into it, replacing it atomically (a temporary file in the same directory, then a rename), mode O(mode).
  - Runs entirely in the action plugin, on the controller, whatever host the task runs for, so no module is sent
    anywhere. (The C(ansible.builtin.file) and C(ansible.builtin.copy) tasks it replaces in the collection's
    playbooks ran three to five modules on the controller for two files.)
  - The files are the run's report (C(playbooks/node_prep.yml), C(playbooks/audit.yml)), not a change of a node, so
    the collection's playbooks run it with C(changed_when=false) and C(check_mode=false).
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reports which files would be written and writes nothing.
  diff_mode:
    support: none
    details: Report files; no diff.
  platform:
    platforms: posix
    details: The controller.
options:
  dir:
    description: The directory on the controller.
    type: path
    required: true
  files:
    description: The files to write below O(dir).
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: The file name (no directory part).
        type: str
        required: true
      content:
        description: The text to write (UTF-8).
        type: str
        required: true
  mode:
    description: The mode of the files written.
    type: str
    default: '0644'
notes:
  - C(become) does not apply; the files belong to the user running ansible-playbook.
seealso:
  - module: ansible.builtin.copy
'''

EXAMPLES = r'''
- name: Write the fleet summary files on the controller
  numaops.colocation.report_files:
    dir: "{{ colocation_report_dir }}"
    files:
      - name: node_prep-20261201T101500Z.json
        content: "{{ summary | to_nice_json }}"
      - name: node_prep-20261201T101500Z.md
        content: "{{ summary_markdown }}"
  run_once: true
  changed_when: false
  check_mode: false
'''

RETURN = r'''
paths:
  description: Every file of O(files), with its directory.
  returned: success
  type: list
  elements: str
  sample: [/home/ops/numaops-colocation-reports/node_prep-20261201T101500Z.json]
written:
  description: The files whose content changed (in check mode, would change).
  returned: success
  type: list
  elements: str
'''
