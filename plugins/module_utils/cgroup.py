# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kubernetes pod and container cgroup v2 paths, as plain Python (no file access).

The kubelet names a pod's cgroup from the components ``[<cgroup root parts>..., 'kubepods',
<qos>, 'pod<uid>']`` (the QoS component is absent for Guaranteed pods):

* cgroupfs driver: the components joined with ``/`` (``kubepods/burstable/pod<uid>``);
* systemd driver: nested slices, each named after all components so far joined with ``-``, with
  ``-`` inside a component escaped to ``_`` (``kubepods.slice/kubepods-burstable.slice/
  kubepods-burstable-pod<uid with _>.slice``).

Container cgroups below the pod: ``cri-containerd-<id>.scope``, ``crio-<id>.scope`` or
``docker-<id>.scope`` with systemd; the bare ``<id>`` with cgroupfs (containerd, docker), and
``crio-<id>`` for CRI-O's cgroupfs manager.

Pod UIDs and container IDs come from the cluster and end up in paths: only the forms Kubernetes and the
runtimes produce are accepted (an RFC 4122 UUID, or the 32-hex config hash of a static pod; a
``<runtime>://`` prefix and 64 lower-case hex digits), so nothing can leave the kubepods tree.
Pure, stdlib-only, Python 3.8+.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import posixpath
import re

DRIVERS = ('systemd', 'cgroupfs')
QOS_CLASSES = ('Guaranteed', 'Burstable', 'BestEffort')
QOS_COMPONENT = {'Guaranteed': None, 'Burstable': 'burstable', 'BestEffort': 'besteffort'}
# runtime scheme in status.containerStatuses[].containerID -> runtime name used in results
RUNTIMES = {'containerd': 'containerd', 'cri-o': 'crio', 'docker': 'docker'}
SYSTEMD_SCOPE_PREFIX = {'containerd': 'cri-containerd', 'crio': 'crio', 'docker': 'docker'}
CGROUPFS_PREFIX = {'containerd': '', 'crio': 'crio-', 'docker': ''}
MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror'

_UUID_RE = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
_HASH_RE = re.compile(r'^[0-9a-f]{32}$')
_CONTAINER_ID_RE = re.compile(r'^([a-z-]+)://([0-9a-f]{64})$')
_ROOT_COMPONENT_RE = re.compile(r'^[A-Za-z0-9_][A-Za-z0-9_.-]*$')
_KUBELET_DRIVER_RE = re.compile(r'''^["']?cgroupDriver["']?\s*:\s*["']?([^\s"'#,]+)["']?\s*,?\s*(#.*)?$''')


class CgroupPathError(ValueError):
    """A pod UID, container ID, QoS class, driver or cgroup root that cannot become a safe path."""


def validate_pod_uid(uid):
    """Return the UID when it has a form Kubernetes produces (lower-case UUID or 32-hex hash)."""
    if isinstance(uid, str) and (_UUID_RE.fullmatch(uid) or _HASH_RE.fullmatch(uid)):
        return uid
    raise CgroupPathError('pod UID %r is not a Kubernetes pod UID; allowed: a lower-case UUID like '
                          '0b6a3c1e-4f7d-4a8e-9c1b-2d3e4f5a6b7c (or the 32-hex config hash of a static pod)' % (uid,))


def named_uid(pod):
    """The UID the kubelet names the pod's cgroup after, unchecked (None when the pod has none).

    For a mirror pod (a static pod's API object) that is the static pod's config hash from the
    ``kubernetes.io/config.mirror`` annotation, not metadata.uid.
    """
    meta = (pod or {}).get('metadata') or {}
    return (meta.get('annotations') or {}).get(MIRROR_POD_ANNOTATION) or meta.get('uid')


def pod_cgroup_uid(pod):
    """The UID the kubelet names the pod's cgroup after (:func:`named_uid`), checked by validate_pod_uid."""
    return validate_pod_uid(named_uid(pod))


def parse_container_id(container_id):
    """Split ``containerd://<64 hex>`` into ``('containerd', '<64 hex>')``.

    Accepted runtimes: containerd://, cri-o:// (returned as 'crio') and docker://.
    """
    match = _CONTAINER_ID_RE.fullmatch(container_id) if isinstance(container_id, str) else None
    if not match or match.group(1) not in RUNTIMES:
        raise CgroupPathError('container ID %r is not one a supported runtime produces; allowed: '
                              'containerd://, cri-o:// or docker:// followed by 64 lower-case hex digits'
                              % (container_id,))
    return RUNTIMES[match.group(1)], match.group(2)


def root_components(kubelet_cgroup_root):
    """Components of the kubelet's cgroupRoot (``''`` or ``'/'`` means none), validated."""
    text = (kubelet_cgroup_root or '').strip('/')
    if not text:
        return []
    parts = text.split('/')
    for part in parts:
        if part in ('.', '..') or not _ROOT_COMPONENT_RE.fullmatch(part):
            raise CgroupPathError(
                'kubelet_cgroup_root %r is not a cgroup path the kubelet accepts; allowed: "" or "/", or '
                'components of letters, digits, "_", "-" and "." separated by "/" (no "." or "..")'
                % (kubelet_cgroup_root,))
    return parts


def _check_driver(driver):
    if driver not in DRIVERS:
        raise CgroupPathError('cgroup driver %r is not supported; allowed: systemd, cgroupfs' % (driver,))


def _check_qos(qos_class):
    if qos_class not in QOS_CLASSES:
        raise CgroupPathError('QoS class %r is not a Kubernetes QoS class; allowed: %s'
                              % (qos_class, ', '.join(QOS_CLASSES)))


def _escape_systemd(component):
    return component.replace('-', '_')


def _components_to_path(driver, components):
    if driver == 'cgroupfs':
        return '/'.join(components)
    parts = []
    for index in range(1, len(components) + 1):
        parts.append('-'.join(_escape_systemd(c) for c in components[:index]) + '.slice')
    return '/'.join(parts)


def _kubepods_components(kubelet_cgroup_root):
    return root_components(kubelet_cgroup_root) + ['kubepods']


def kubepods_path(driver, kubelet_cgroup_root=''):
    """Relative path of the kubepods cgroup (``kubepods.slice`` or ``kubepods``)."""
    _check_driver(driver)
    return _components_to_path(driver, _kubepods_components(kubelet_cgroup_root))


def qos_path(driver, qos_class, kubelet_cgroup_root=''):
    """Relative path of the QoS-class cgroup; Guaranteed pods live directly under kubepods."""
    _check_driver(driver)
    _check_qos(qos_class)
    components = _kubepods_components(kubelet_cgroup_root)
    if QOS_COMPONENT[qos_class]:
        components.append(QOS_COMPONENT[qos_class])
    return _components_to_path(driver, components)


def pod_path(driver, qos_class, uid, kubelet_cgroup_root=''):
    """Relative path of a pod's cgroup."""
    _check_driver(driver)
    _check_qos(qos_class)
    components = _kubepods_components(kubelet_cgroup_root)
    if QOS_COMPONENT[qos_class]:
        components.append(QOS_COMPONENT[qos_class])
    components.append('pod' + validate_pod_uid(uid))
    return _components_to_path(driver, components)


def container_dir_name(driver, runtime, container_id):
    """Directory name of a container's cgroup inside its pod's cgroup."""
    _check_driver(driver)
    if runtime not in SYSTEMD_SCOPE_PREFIX or not re.fullmatch(r'[0-9a-f]{64}', container_id or ''):
        raise CgroupPathError('container %r of runtime %r cannot be named; allowed runtimes: %s with 64 '
                              'lower-case hex digits' % (container_id, runtime, ', '.join(sorted(SYSTEMD_SCOPE_PREFIX))))
    if driver == 'systemd':
        return '%s-%s.scope' % (SYSTEMD_SCOPE_PREFIX[runtime], container_id)
    return CGROUPFS_PREFIX[runtime] + container_id


def container_path(driver, qos_class, uid, container_id, kubelet_cgroup_root=''):
    """Relative path of a container's cgroup from its ``<runtime>://<id>`` container ID."""
    runtime, cid = parse_container_id(container_id)
    return pod_path(driver, qos_class, uid, kubelet_cgroup_root) + '/' + container_dir_name(driver, runtime, cid)


def join_under(cgroup_root, relative, kubelet_cgroup_root='', driver='systemd'):
    """Absolute path of ``relative`` under ``cgroup_root``; refuses anything outside the kubepods tree."""
    base = posixpath.normpath(cgroup_root)
    top = posixpath.normpath(posixpath.join(base, kubepods_path(driver, kubelet_cgroup_root)))
    full = posixpath.normpath(posixpath.join(base, relative))
    if full != top and not full.startswith(top + '/'):
        raise CgroupPathError('refusing path %s: it is outside the kubepods cgroup %s' % (full, top))
    return full


def driver_from_kubelet_config(text):
    """The cgroupDriver a KubeletConfiguration (YAML or JSON text) sets, or None when it sets none.

    Only a top-level ``cgroupDriver`` key is considered (stdlib only: a line scan, no YAML library).
    Raises CgroupPathError for a value other than systemd/cgroupfs.
    """
    if not text:
        return None
    stripped = text.strip()
    if stripped.startswith('{'):
        import json
        try:
            data = json.loads(stripped)
        except ValueError:
            data = {}
        value = data.get('cgroupDriver') if isinstance(data, dict) else None
    else:
        value = None
        for line in text.splitlines():
            if line[:1] in (' ', '\t'):
                continue
            match = _KUBELET_DRIVER_RE.fullmatch(line.rstrip())
            if match:
                value = match.group(1)
    if value is None:
        return None
    if value not in DRIVERS:
        raise CgroupPathError('kubelet configuration sets cgroupDriver %r; allowed: systemd, cgroupfs' % (value,))
    return value


def driver_from_tree(exists, kubelet_cgroup_root=''):
    """Guess the driver from which kubepods directory exists; ``exists(relative_path) -> bool``.

    Returns None when neither or both exist (the caller must then ask for cgroup_driver).
    """
    found = [d for d in DRIVERS if exists(kubepods_path(d, kubelet_cgroup_root))]
    return found[0] if len(found) == 1 else None


# ---------------------------------------------------------------- the Volcano agent's driver detection
# pkg/agent/utils/cgroup/cgroup.go GetCgroupDriver (Volcano v1.14.1, v1.15.0): the environment variable
# CGROUP_DRIVER, then these files in this order, then the running kubelet's command line (--cgroup-driver,
# else the file of --config), then a guess from the cgroup tree.
ENV_DRIVER = 'CGROUP_DRIVER'
KUBELET_CONFIG_FILE = '/var/lib/kubelet/config.yaml'
KUBELET_KUBECONFIG_FILE = '/etc/kubernetes/kubelet.conf'
KUBEADM_FLAGS_FILE = '/var/lib/kubelet/kubeadm-flags.env'
_FLAG_DRIVER_RE = re.compile(r'''(?:^|[\s"'=])--cgroup-driver(?:=|\s+)["']?([^\s"']*)''')


def driver_from_flags(text):
    """The value of the last ``--cgroup-driver`` in kubelet flags text (``--cgroup-driver=x`` or
    ``--cgroup-driver x``, for example kubeadm-flags.env's KUBELET_KUBEADM_ARGS), or None.

    The last one wins, as for the kubelet's own flag parsing. Raises CgroupPathError for a value other
    than systemd/cgroupfs.
    """
    found = None
    for line in (text or '').splitlines():
        if line.lstrip().startswith('#'):
            continue
        for match in _FLAG_DRIVER_RE.finditer(line):
            found = match.group(1)
    if found is None:
        return None
    if found not in DRIVERS:
        raise CgroupPathError('--cgroup-driver=%s; allowed: systemd, cgroupfs' % (found,))
    return found


def driver_from_file(text):
    """What the agent looks for in each of its files: a ``cgroupDriver:`` setting, else ``--cgroup-driver``."""
    return driver_from_kubelet_config(text) or driver_from_flags(text)


def driver_from_cmdline(args, read_file):
    """The driver of a kubelet command line (a list of arguments, as /proc/<pid>/cmdline holds them).

    ``--cgroup-driver`` (both forms; the last wins) first, else the ``cgroupDriver`` of the file named by
    ``--config`` (``read_file(path) -> text or None``). Returns ``(driver, where)`` or ``(None, None)``.
    """
    driver = driver_from_flags(' '.join(args or []))
    if driver:
        return driver, '--cgroup-driver'
    config = None
    for index, arg in enumerate(args or []):
        if arg.startswith('--config='):
            config = arg[len('--config='):]
        elif arg == '--config' and index + 1 < len(args):
            config = args[index + 1]
    if config:
        text = read_file(config)
        driver = driver_from_file(text) if text else None
        if driver:
            return driver, config
    return None, None


def choose_driver(candidates):
    """Pick the driver like the agent: the first source in ``candidates`` (an ordered list of
    ``(source, driver or None)``) that names one. Returns ``(driver, source, others)``; ``others`` are
    the later sources that name a different driver (the kubelet lets a flag override its config file,
    the agent does not: worth a warning).
    """
    named = [(source, driver) for source, driver in candidates if driver]
    if not named:
        return None, None, []
    driver, source = named[0][1], named[0][0]
    return driver, source, [(s, d) for s, d in named[1:] if d != driver]
