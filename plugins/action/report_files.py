# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.report_files: writes report files on the controller, in the worker itself
(no module is run): the directory made when missing, each file replaced atomically."""
from __future__ import annotations

import os
import tempfile

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.plugins.action import ActionBase

ARGUMENT_SPEC = dict(
    dir=dict(type='path', required=True),
    files=dict(type='list', elements='dict', required=True, options=dict(
        name=dict(type='str', required=True),
        content=dict(type='str', required=True),
    )),
    mode=dict(type='str', default='0644'),
)


def _write(path, data, mode):
    """Replace ``path`` with ``data`` atomically; True when its content changed."""
    try:
        with open(path, 'rb') as handle:
            if handle.read() == data:
                os.chmod(path, mode)
                return False
    except (IOError, OSError):
        pass
    fd, temp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, 'wb') as handle:
            handle.write(data)
        os.chmod(temp, mode)
        os.rename(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return True


class ActionModule(ActionBase):

    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        self._supports_async = False
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        checked = ArgumentSpecValidator(ARGUMENT_SPEC).validate(self._task.args)
        if checked.error_messages:
            raise AnsibleActionFail('numaops.colocation.report_files: %s' % '; '.join(checked.error_messages))
        args = checked.validated_parameters
        directory = os.path.expanduser(args['dir'])
        try:
            mode = int(str(args['mode']), 8)
        except ValueError:
            raise AnsibleActionFail('numaops.colocation.report_files: mode=%r is not an octal mode (for example '
                                    '"0644"). Nothing was written.' % args['mode'])
        names = [item['name'] for item in args['files']]
        for name in names:
            if not name or os.path.basename(name) != name or name in ('.', '..'):
                raise AnsibleActionFail('numaops.colocation.report_files: files[].name=%r is not a file name (no '
                                        'directory part allowed). Nothing was written.' % name)
        paths = [os.path.join(directory, name) for name in names]
        written = []
        check_mode = bool(self._play_context.check_mode)
        try:
            if not os.path.isdir(directory) and not check_mode:
                os.makedirs(directory, 0o755)
            for path, item in zip(paths, args['files']):
                data = item['content'].encode('utf-8')
                if check_mode:
                    try:
                        with open(path, 'rb') as handle:
                            same = handle.read() == data
                    except (IOError, OSError):
                        same = False
                    if not same:
                        written.append(path)
                elif _write(path, data, mode):
                    written.append(path)
        except (IOError, OSError) as err:
            raise AnsibleActionFail('numaops.colocation.report_files: cannot write the report files into %s on the '
                                    'controller: %s. Set colocation_report_dir to a directory you can write.'
                                    % (directory, err))
        result.update(changed=bool(written), paths=paths, written=written)
        return result
