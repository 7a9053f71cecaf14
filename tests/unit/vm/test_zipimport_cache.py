# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/vm/guest/zipimport_cache.py, the test node's cache of what Python compiles from a zip archive: the same
source compiles once; what is loaded from the cache carries the archive it was imported from; another source, or a
damaged cache file, is compiled anew."""
from __future__ import annotations

import importlib.util
import os
import sys
import zipfile
import zipimport

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SOURCE = 'def where():\n    return where.__code__.co_filename\n\n\nVALUE = %d\n'


@pytest.fixture(name='cache')
def _cache(monkeypatch, tmp_path):
    """The module loaded from its file with its cache in ``tmp_path``; zipimport as it was afterwards."""
    monkeypatch.setattr(zipimport, '_compile_source', zipimport._compile_source)
    spec = importlib.util.spec_from_file_location(
        'zipimport_cache', os.path.join(ROOT, 'tests', 'vm', 'guest', 'zipimport_cache.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, 'CACHE', str(tmp_path / 'cache'))
    compiled = []
    real = module._compile

    def counting(pathname, source):
        compiled.append(pathname)
        return real(pathname, source)

    monkeypatch.setattr(module, '_compile', counting)
    module.compiled = compiled
    return module


def _import_from(archive, name, value):
    with zipfile.ZipFile(str(archive), 'w') as out:
        out.writestr(name + '.py', SOURCE % value)
    importer = zipimport.zipimporter(str(archive))
    if sys.version_info < (3, 10):
        try:
            return importer.load_module(name)
        finally:
            sys.modules.pop(name, None)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, importer))
    importer.exec_module(module)
    return module


def test_installed_over_zipimport(cache):
    assert zipimport._compile_source is cache.compile_source


def test_same_source_compiled_once_and_named_after_its_archive(cache, tmp_path):
    first = _import_from(tmp_path / 'a.zip', 'numaops_zc_mod', 1)
    second = _import_from(tmp_path / 'b.zip', 'numaops_zc_mod', 1)
    assert cache.compiled == [os.path.join(str(tmp_path / 'a.zip'), 'numaops_zc_mod.py')]
    assert first.where() == os.path.join(str(tmp_path / 'a.zip'), 'numaops_zc_mod.py')
    # a function's code object inside the module, loaded from the cache, names the second archive
    assert second.where() == os.path.join(str(tmp_path / 'b.zip'), 'numaops_zc_mod.py')
    assert second.VALUE == 1
    assert len(os.listdir(cache.CACHE)) == 1


def test_another_source_is_compiled(cache, tmp_path):
    _import_from(tmp_path / 'a.zip', 'numaops_zc_mod', 1)
    other = _import_from(tmp_path / 'b.zip', 'numaops_zc_mod', 2)
    assert other.VALUE == 2
    assert len(cache.compiled) == 2
    assert len(os.listdir(cache.CACHE)) == 2


def test_damaged_cache_file_is_compiled_anew(cache, tmp_path):
    _import_from(tmp_path / 'a.zip', 'numaops_zc_mod', 1)
    (entry,) = os.listdir(cache.CACHE)
    with open(os.path.join(cache.CACHE, entry), 'wb') as out:
        out.write(b'\x00not marshal')
    again = _import_from(tmp_path / 'b.zip', 'numaops_zc_mod', 1)
    assert again.VALUE == 1
    assert len(cache.compiled) == 2


def test_unwritable_cache_still_imports(cache, tmp_path):
    blocker = tmp_path / 'file'
    blocker.write_text('not a directory')
    cache.CACHE = str(blocker / 'cache')
    module = _import_from(tmp_path / 'a.zip', 'numaops_zc_mod', 3)
    assert module.VALUE == 3
