# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node-side entry point of modules whose work is done by their action plugin on the controller."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.module_utils.basic import AnsibleModule


def action_only_main(name, argument_spec):
    """Validate the arguments, then explain that the module cannot run without its action plugin.

    Ansible always runs ``name`` through the action plugin of the same name, which reads and writes the
    node's files with ``numaops.colocation.node_files``. Reaching this code means the plugin was bypassed
    (for example the module file was copied out of the collection).
    """
    module = AnsibleModule(argument_spec=argument_spec, supports_check_mode=True)
    module.fail_json(msg='%s must run through its action plugin (plugins/action/%s.py of the numaops.colocation '
                         'collection), which edits the file on the controller side; it was bypassed. Install the '
                         'whole collection and call the module as a task.' % (name, name.rsplit('.', 1)[-1]))
