# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make a single-layer OCI image archive (an OCI image layout in a tar, what `ctr images import` reads) from
files on this machine, without a registry or a container engine. Part of the test VM's recipe (tests/vm).

    oci_archive.py OUT.tar NAME:TAG --entrypoint /pause --file /pause=SRC [--file ...] [--link bin/sh=busybox ...]

The layer is an uncompressed tar whose entries all have uid/gid 0 and mtime 0, so the same inputs give the
same image digest on every build. Standard library only.
"""
import argparse
import hashlib
import io
import json
import os
import sys
import tarfile


def _tarinfo(name, kind, mode, size=0, target=''):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.size = size
    info.linkname = target
    info.uid = info.gid = 0
    info.uname = info.gname = 'root'
    info.mtime = 0
    return info


def layer(files, links):
    """The layer tar: parent directories first, then the files (path -> bytes, mode), then the symbolic links."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.PAX_FORMAT) as tar:
        dirs = sorted({os.path.dirname(p) for p in list(files) + list(links)} - {''})
        done = set()
        for d in dirs:
            parts = d.split('/')
            for i in range(1, len(parts) + 1):
                sub = '/'.join(parts[:i])
                if sub not in done:
                    done.add(sub)
                    tar.addfile(_tarinfo(sub, tarfile.DIRTYPE, 0o755))
        for path in sorted(files):
            data, mode = files[path]
            tar.addfile(_tarinfo(path, tarfile.REGTYPE, mode, len(data)), io.BytesIO(data))
        for path in sorted(links):
            tar.addfile(_tarinfo(path, tarfile.SYMTYPE, 0o777, target=links[path]))
    return buf.getvalue()


def blob(data):
    return 'sha256:' + hashlib.sha256(data).hexdigest()


def archive(name, entrypoint, files, links, cmd=None, arch='amd64'):
    """The archive's bytes: oci-layout, index.json naming the image, and the manifest, config and layer blobs."""
    repo, _sep, tag = name.rpartition(':')
    if not repo or '/' in tag:
        raise ValueError('image name %r has no tag (name:tag)' % name)
    lay = layer(files, links)
    config = {
        'architecture': arch, 'os': 'linux',
        'config': {'Entrypoint': entrypoint, 'Cmd': cmd, 'Env': ['PATH=/bin:/usr/bin:/sbin:/usr/sbin'],
                   'WorkingDir': '/'},
        'rootfs': {'type': 'layers', 'diff_ids': [blob(lay)]},
        'history': [{'created_by': 'numaops.colocation tests/vm/oci_archive.py', 'created': '1970-01-01T00:00:00Z'}],
    }
    if cmd is None:
        del config['config']['Cmd']
    config_bytes = json.dumps(config, sort_keys=True, separators=(',', ':')).encode()
    manifest = {
        'schemaVersion': 2, 'mediaType': 'application/vnd.oci.image.manifest.v1+json',
        'config': {'mediaType': 'application/vnd.oci.image.config.v1+json', 'digest': blob(config_bytes),
                   'size': len(config_bytes)},
        'layers': [{'mediaType': 'application/vnd.oci.image.layer.v1.tar', 'digest': blob(lay), 'size': len(lay)}],
    }
    manifest_bytes = json.dumps(manifest, sort_keys=True, separators=(',', ':')).encode()
    index = {
        'schemaVersion': 2, 'mediaType': 'application/vnd.oci.image.index.v1+json',
        'manifests': [{'mediaType': manifest['mediaType'], 'digest': blob(manifest_bytes), 'size': len(manifest_bytes),
                       'platform': {'architecture': arch, 'os': 'linux'},
                       'annotations': {'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': tag}}],
    }
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode='w', format=tarfile.PAX_FORMAT) as tar:
        entries = [('oci-layout', json.dumps({'imageLayoutVersion': '1.0.0'}).encode()),
                   ('index.json', json.dumps(index, sort_keys=True).encode())]
        entries += [('blobs/sha256/' + blob(b)[7:], b) for b in (manifest_bytes, config_bytes, lay)]
        for d in ('blobs', 'blobs/sha256'):
            tar.addfile(_tarinfo(d, tarfile.DIRTYPE, 0o755))
        for path, data in entries:
            tar.addfile(_tarinfo(path, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))
    return out.getvalue(), blob(manifest_bytes)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('out')
    parser.add_argument('name', help='image name with tag, e.g. registry.k8s.io/pause:3.10')
    parser.add_argument('--entrypoint', nargs='+', required=True)
    parser.add_argument('--cmd', nargs='+')
    parser.add_argument('--file', action='append', default=[], help='PATH_IN_IMAGE=SOURCE (mode kept)')
    parser.add_argument('--link', action='append', default=[], help='PATH_IN_IMAGE=TARGET (symbolic link)')
    args = parser.parse_args(argv)
    files = {}
    for spec in args.file:
        dest, _sep, src = spec.partition('=')
        with open(src, 'rb') as handle:
            files[dest.lstrip('/')] = (handle.read(), os.stat(src).st_mode & 0o7777)
    links = {}
    for spec in args.link:
        dest, _sep, target = spec.partition('=')
        links[dest.lstrip('/')] = target
    data, digest = archive(args.name, args.entrypoint, files, links, cmd=args.cmd)
    with open(args.out, 'wb') as handle:
        handle.write(data)
    print('%s %s %d bytes' % (args.name, digest, len(data)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
