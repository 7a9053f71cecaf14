# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nodefile.read_text, the one way a module reads a node file as text (node_preflight, memory_qos): regular files
only, at most a size limit, UTF-8; every refusal names the file."""
from __future__ import annotations

import os

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import nodefile


def test_the_text_of_a_file_and_none_when_missing(tmp_path):
    path = tmp_path / 'config.yaml'
    path.write_bytes('kind: KubeletConfiguration\n# \u00e9t\u00e9\n'.encode('utf-8'))
    assert nodefile.read_text(str(path)) == 'kind: KubeletConfiguration\n# \u00e9t\u00e9\n'
    assert nodefile.read_text(str(tmp_path / 'missing.yaml')) is None


def test_a_link_is_read_through(tmp_path):
    target = tmp_path / 'real.yaml'
    target.write_text('cgroupDriver: systemd\n')
    link = tmp_path / 'config.yaml'
    os.symlink(str(target), str(link))
    assert nodefile.read_text(str(link)) == 'cgroupDriver: systemd\n'


def test_an_oversize_file_is_refused_naming_it_and_the_limit(tmp_path):
    path = tmp_path / 'config.yaml'
    path.write_bytes(b'#' * 2049)
    with pytest.raises(nodefile.NodeFileError) as err:
        nodefile.read_text(str(path), 2048, 'kubelet file')
    message = str(err.value)
    assert str(path) in message and '2049 bytes' in message and '2048 bytes' in message
    assert 'kubelet file' in message and 'Nothing was changed' in message
    assert nodefile.read_text(str(path), 2049) == '#' * 2049


def test_a_file_that_is_not_utf8_is_refused_naming_it_line_and_column(tmp_path):
    path = tmp_path / 'kubeadm-flags.env'
    path.write_bytes(b'# flags\nKUBELET_KUBEADM_ARGS="--cgroup-driver=systemd" # caf\xe9\n')
    with pytest.raises(nodefile.NodeFileError) as err:
        nodefile.read_text(str(path), what='kubelet file')
    message = str(err.value)
    assert message.startswith('%s line 2, column 53: byte 0xe9 is not UTF-8; a kubelet file' % path)
    assert 'Nothing was changed' in message


def test_a_nul_byte_is_refused_naming_the_file_and_line(tmp_path):
    path = tmp_path / 'config.yaml'
    path.write_bytes(b'kind: KubeletConfiguration\n\x00\x00\x00\n')
    with pytest.raises(nodefile.NodeFileError) as err:
        nodefile.read_text(str(path))
    assert str(err.value).startswith('%s line 2: contains a NUL byte' % path)


@pytest.mark.parametrize('kind', ['directory', 'fifo'])
def test_what_is_not_a_regular_file_is_refused_naming_it(tmp_path, kind):
    path = tmp_path / 'config.yaml'
    if kind == 'directory':
        path.mkdir()
    else:
        os.mkfifo(str(path))   # reading it would block: it must be refused before it is opened
    with pytest.raises(nodefile.NodeFileError) as err:
        nodefile.read_text(str(path))
    assert str(path) in str(err.value) and ('directory' in str(err.value) or 'not a regular file' in str(err.value))
