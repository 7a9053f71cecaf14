# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The stdout callback of scripts/sandbox.sh: ansible's default output, with each failure printed once.

ansible-core's default callback prints a failed task's message twice, first as an error with the task's
source lines, then again inside the whole result as one long JSON line. Here a failure is one line, cause
first: ``fatal: [host]: FAILED! <message>``; ``-v`` adds the rest of the result, as the default callback
shows it. Everything else is the default callback's.
"""
from __future__ import annotations

DOCUMENTATION = """
    name: sandbox_output
    type: stdout
    short_description: the default output, each failure printed once with its cause first
    description:
      - ansible's default output, except that a failed task prints its message once, on the C(fatal) line, and
        the rest of its result only with C(-v).
    extends_documentation_fragment:
      - default_callback
      - result_format_callback
"""

from ansible import constants as C
from ansible.plugins.callback.default import CallbackModule as DefaultCallback


class CallbackModule(DefaultCallback):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'sandbox_output'

    def v2_runner_on_failed(self, result, ignore_errors=False):
        data = result.result
        if (result.task.loop and 'results' in data) or self._display.verbosity > 0 or not data.get('msg'):
            super().v2_runner_on_failed(result, ignore_errors)
            return
        if self._last_task_banner != result.task._uuid:
            self._print_task_banner(result.task)
        self._handle_warnings(data)
        line = 'fatal: [%s]: FAILED! %s' % (self.host_label(result), data['msg'])
        self._display.display(line, color=C.COLOR_ERROR, stderr=self.get_option('display_failed_stderr'))
        if ignore_errors:
            self._display.display('...ignoring', color=C.COLOR_SKIP)
