# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Test setup: move the host paths of a `containerd config default` output (stdin) into a sandbox DIR.

Only quoted values are replaced (root, state, gRPC address, opt plugin path), so the result keeps the
layout containerd wrote; the module under test then edits that file.
"""
import re
import sys

sandbox = sys.argv[1]
text = sys.stdin.read()
for old, new in (('/run/containerd/containerd.sock', '/containerd.sock'), ('/run/containerd', '/state'),
                 ('/var/lib/containerd', '/root'), ('/opt/containerd', '/opt')):
    text = re.sub(r'(["\'])%s(["\'])' % re.escape(old), lambda m, new=new: m.group(1) + sandbox + new + m.group(2), text)
sys.stdout.write(text)
