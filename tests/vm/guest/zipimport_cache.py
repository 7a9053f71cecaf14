# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The test node's Python keeps the bytecode it compiles for a module imported from a zip archive, as it keeps
the bytecode of a module read from a file (__pycache__), so that the second import of the same source does not
compile it again.

Ansible runs every module from a zip archive it sends with the task (AnsiballZ), and zipimport compiles every
source in it at each run: under emulation, compiling ansible.module_utils.basic and what it imports takes more
than two seconds of each task on the node. The code run is the same: the cache is keyed by the SHA-256 of the
source (and the interpreter's bytecode magic number and optimisation level), and each code object loaded from it
gets the file name of the archive it was imported from, as compiling it there would have given it.

Installed by tests/vm/image.sh with a .pth file that imports it at interpreter start. Not part of the collection.
"""
import hashlib
import marshal
import os
import sys
import zipimport

CACHE = os.path.join('/var/cache/numaops-zipimport', '%s-%d' % (
    zipimport._bootstrap_external.MAGIC_NUMBER.hex(), sys.flags.optimize))

_compile = zipimport._compile_source
_CODE = type(_compile.__code__)


def _named(code, filename):
    """``code`` and every code object in it with ``filename``."""
    return code.replace(co_filename=filename, co_consts=tuple(
        _named(const, filename) if isinstance(const, _CODE) else const for const in code.co_consts))


def compile_source(pathname, source):
    """zipimport's _compile_source, from the cache when the same source was compiled before."""
    path = os.path.join(CACHE, hashlib.sha256(source).hexdigest())
    try:
        with open(path, 'rb') as cached:
            code = marshal.loads(cached.read())
        if isinstance(code, _CODE):
            return _named(code, pathname)
    except (OSError, ValueError, EOFError, TypeError):
        pass
    code = _compile(pathname, source)
    try:
        os.makedirs(CACHE, exist_ok=True)
        part = '%s.%d.part' % (path, os.getpid())
        with open(part, 'wb') as out:
            out.write(marshal.dumps(code))
        os.replace(part, path)
    except OSError:
        pass
    return code


zipimport._compile_source = compile_source
