# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Memory QoS planning for a node, whatever decides the values: pods -> cgroup v2 values and ordered writes.

Pure (no file access) and stdlib-only; runs on managed nodes (Python 3.8+). The module
``numaops.colocation.memory_qos`` reads the cgroup tree into a snapshot, asks a *flavour* (a file of
``memqos_flavours``: which pods, which values per container and per level, see :class:`Flavour`) what each
pod and container should hold, asks :func:`plan_node` what to write, and writes in the returned order.

What every flavour shares (this file):

* cgroup paths of pods and containers (``cgroup.py``), validated before they become paths; only running
  containers with a container ID are written;
* quantities are exact integers (``Quantity.Value()`` rounds up), the kernel stores whole pages
  (rounding down), and the expected value is what the kernel will store;
* the levels above the containers: each managed pod's, each QoS class's and the kubepods cgroup's
  memory.min/low are the value the flavour gives for that cgroup, or (when it gives none) the sum of its
  children's; writes are ordered so that no parent is ever below the sum of its children: first every
  decrease, children before parents; then every increase, parents first.

With the systemd driver every cgroup the module writes is a systemd unit (a ``.slice`` or a ``.scope``), and
systemd writes a unit's own MemoryMin=/MemoryLow=/MemoryHigh= back into its cgroup whenever it re-applies the
unit's settings, which the kubelet makes it do (see docs/memory_qos.md). :func:`plan_node` therefore also
compares what systemd holds for each unit (``held``, from :func:`parse_unit_properties`), and
:func:`write_batches` groups the writes into one ``systemctl set-property`` call per unit and step.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import pod_resources as pr
import math

from ansible_collections.numaops.colocation.plugins.module_utils.quantity import QuantityError, parse_quantity

MEMORY_HIGH = 'memory.high'
MEMORY_LOW = 'memory.low'
MEMORY_MIN = 'memory.min'
CONTAINER_FILES = (MEMORY_HIGH, MEMORY_LOW, MEMORY_MIN)
PROTECTION_FILES = (MEMORY_MIN, MEMORY_LOW)
MAX = 'max'
# What a cgroup the kernel just created holds (and what a reset writes).
DEFAULTS = {MEMORY_HIGH: 'max', MEMORY_LOW: 0, MEMORY_MIN: 0}
LEVEL_KUBEPODS, LEVEL_QOS, LEVEL_POD, LEVEL_CONTAINER = 0, 1, 2, 3
LEVEL_NAMES = {LEVEL_KUBEPODS: 'kubepods', LEVEL_QOS: 'qos', LEVEL_POD: 'pod', LEVEL_CONTAINER: 'container'}
# The kernel's page_counter limit: PAGE_COUNTER_MAX = LONG_MAX / PAGE_SIZE pages reads back as "max".
LONG_MAX = 2 ** 63 - 1


class MemQosError(ValueError):
    """A pod or value that cannot be turned into memory QoS settings (the message names it)."""


class Flavour(object):
    """What decides the values: the interface of a memory-QoS flavour.

    A flavour is one file in ``memqos_flavours/`` with one subclass of this, registered in
    ``memqos_flavours/__init__.py``. It answers which pods it takes and which values each container and each
    level gets; the engine (this file) and the module do everything else: reading the pods and the cgroup tree,
    paths, page rounding, sums, write order, systemd units, check and diff mode, results.
    """

    #: the value of the module's ``flavour`` option
    name = None
    #: the pod fields it reads beyond :data:`POD_FIELDS` (the same shape); the action plugin keeps them
    pod_fields = {}

    def __init__(self, params):
        """Take the inputs from the module's parameters (validated here, before the node is looked at).

        Raises :class:`MemQosError` naming the option, the value and what is allowed."""
        self.params = params

    def ignored(self, pod):
        """Why the pod is left alone as a whole (counted in ``ignored``, not reported), or None."""
        return None

    def decide(self, pod):
        """``{'managed', 'config_name', 'reset', 'reason'}`` (and ``'invalid': True`` with a reason worth a warning;
        ``'pod_values'``: ``{file: bytes}`` for the pod's own cgroup, else the sum of its children)."""
        raise NotImplementedError

    def container_values(self, pod, decision, container, index):
        """``{memory.high, memory.low, memory.min}`` of one container of a managed pod, exact integers or ``'max'``
        before page rounding. Raises :class:`MemQosError` for a value it cannot use (the container is skipped)."""
        raise NotImplementedError

    def level_values(self, pods):
        """Values of the levels above the pods, from every pod not :meth:`ignored`: ``{'kubepods' | 'Burstable' |
        'BestEffort': {file: bytes}}``; a level or file left out holds the sum of its children."""
        return {}


# ---------------------------------------------------------------- values
NON_NEGATIVE_MEMORY = 'a non-negative memory quantity'


def exact_quantity(value, field, allowed=NON_NEGATIVE_MEMORY):
    """The exact quantity (a Fraction) of ``value``. Raises :class:`MemQosError` naming ``field``, the value and
    what is ``allowed`` when it is not a quantity or is negative; the sign is judged before any rounding, so
    ``-0.5`` is refused rather than read as 0."""
    try:
        quantity = parse_quantity(value, field)
    except QuantityError as exc:
        raise MemQosError(str(exc))
    if quantity < 0:
        raise MemQosError(pr.describe(field, value, None, allowed))
    return quantity


def whole_bytes(quantity):
    """``Quantity.Value()``: an exact quantity rounded up to a whole byte."""
    return int(math.ceil(quantity))


def quantity_bytes(resources, key, where=''):
    """Bytes of ``resources[key]`` (a Kubernetes quantity, rounded up like ``Quantity.Value()``); 0 when absent.

    Raises :class:`MemQosError` naming ``where[key]``, the value and what is allowed."""
    resources = resources or {}
    if key not in resources or resources[key] is None:
        return 0
    return whole_bytes(exact_quantity(resources[key], '%s[%s]' % (where, key) if where else key))


def page_round(value, page_size):
    """What the kernel stores for a written value: whole pages, rounded down; huge values read as max."""
    if value == MAX:
        return MAX
    pages = int(value) // page_size
    if pages >= LONG_MAX // page_size:
        return MAX
    return pages * page_size


def parse_value(text):
    """A cgroup memory file's content -> ``'max'`` or an int; raises ValueError for anything else."""
    text = (text or '').strip()
    if text == MAX:
        return MAX
    if not text.isdigit():
        raise ValueError('not a cgroup memory value (an integer or "max"): %r' % (text,))
    return int(text)


def to_text(value):
    return MAX if value == MAX else str(int(value))


def _add(a, b):
    if a == MAX or b == MAX:
        return MAX
    return a + b


def _less(a, b):
    """a < b with max as infinity."""
    if a == MAX:
        return False
    if b == MAX:
        return True
    return a < b


# ---------------------------------------------------------------- pods
def pod_ref(pod):
    meta = (pod or {}).get('metadata') or {}
    return '%s/%s' % (meta.get('namespace') or 'default', meta.get('name') or '?')


def _container_statuses(pod):
    statuses = {}
    for status in ((pod.get('status') or {}).get('containerStatuses') or []):
        if isinstance(status, dict) and status.get('name'):
            statuses[status['name']] = status
    return statuses


def pod_plan(pod, decision, driver, kubelet_cgroup_root, page_size, values):
    """Per-pod plan: cgroup paths and the expected (page-rounded) container values.

    ``values(pod, decision, container, index)`` gives a container's raw values (a flavour's
    :meth:`Flavour.container_values`). Returns ``{'namespace', 'name', 'uid', 'config_name', 'qos_class', 'cgroup',
    'reset', 'skipped', 'invalid', 'pod_values', 'containers': [{'name', 'cgroup', 'expected', 'skipped',
    'invalid'}]}``; ``skipped`` is a reason or None; ``invalid`` is True when the skip is due to data that cannot be
    used (a pod UID, QoS class, container ID or resource quantity; the reason says what is allowed) rather than the
    routine "not running" case. Paths are relative to the cgroup root.
    """
    meta = pod.get('metadata') or {}
    plan = {'namespace': meta.get('namespace') or 'default', 'name': meta.get('name'),
            'uid': meta.get('uid'), 'config_name': decision.get('config_name'),
            'qos_class': (pod.get('status') or {}).get('qosClass'), 'cgroup': None,
            'reset': decision.get('reset', False), 'skipped': None, 'invalid': False,
            'pod_values': decision.get('pod_values'), 'containers': []}
    where = 'pod %s' % pod_ref(pod)
    try:
        uid = cg.pod_cgroup_uid(pod)
        plan['cgroup'] = cg.pod_path(driver, plan['qos_class'], uid, kubelet_cgroup_root)
    except cg.CgroupPathError as exc:
        plan['skipped'] = '%s: %s' % (where, exc)
        plan['invalid'] = True
        return plan
    statuses = _container_statuses(pod)
    for index, container in enumerate((pod.get('spec') or {}).get('containers') or []):
        name = container.get('name')
        entry = {'name': name, 'cgroup': None, 'expected': None, 'skipped': None, 'invalid': False}
        plan['containers'].append(entry)
        try:
            raw = values(pod, decision, container, index)
        except MemQosError as exc:
            entry['skipped'] = str(exc)
            entry['invalid'] = True
            continue
        entry['expected'] = dict((k, to_text(page_round(v, page_size))) for k, v in raw.items())
        status = statuses.get(name) or {}
        if 'running' not in (status.get('state') or {}):
            entry['skipped'] = 'container is not running'
            continue
        if not status.get('containerID'):
            entry['skipped'] = ('container is running but its status.containerStatuses[].containerID is empty; '
                                'allowed: containerd://, cri-o:// or docker:// followed by 64 lower-case hex digits')
            entry['invalid'] = True
            continue
        try:
            runtime, cid = cg.parse_container_id(status['containerID'])
            entry['cgroup'] = plan['cgroup'] + '/' + cg.container_dir_name(driver, runtime, cid)
        except cg.CgroupPathError as exc:
            entry['skipped'] = str(exc)
            entry['invalid'] = True
    return plan


# ---------------------------------------------------------------- node plan
def _read(snapshot, path, name):
    """Value of a file in the snapshot: 'max', int, or None when the file (or cgroup) does not exist."""
    return (snapshot.get(path) or {}).get(name)


def plan_node(pod_plans, snapshot, children, top_paths, hierarchy=True, page_size=4096, held=None, level_values=None):
    """Decide every value and the write order for a node.

    ``pod_plans``: from :func:`pod_plan` for managed pods. ``snapshot``: ``{cgroup path: {file: value}}``
    as read from the node ('max'/int; a missing file is absent; a missing cgroup is absent from the
    snapshot). ``children``: ``{cgroup path: [child cgroup paths]}`` for the kubepods cgroup, the
    QoS-class cgroups and the managed pods' cgroups. ``top_paths``: ``{'kubepods': path, 'qos':
    [paths]}``.

    Returns ``{'pods': [...], 'levels': [...], 'writes': [ordered writes], 'written', 'unchanged',
    'skipped', 'problems', 'containers_found'}``; each write is ``{'cgroup', 'file', 'old', 'new', 'level'}``
    with text values. ``problems`` lists the skips that deserve a warning (everything but a pod or container
    that is gone or not running), each ``{'kind': 'invalid' | 'no_memory_controller', 'pod': 'ns/name' or
    None, 'container': name or None, 'level': 'pod'/'qos'/'kubepods' or None, 'cgroup', 'reason'}``.
    ``containers_found``: containers of managed pods whose cgroup exists (the ones that should be written).
    ``held``: ``{cgroup path: {file: value}}`` of the cgroups that are loaded systemd units (what systemd
    holds as the unit's MemoryMin=/MemoryLow=/MemoryHigh= and writes again whenever it re-applies the unit);
    a value that is right in the file but not in ``held`` is written too (the write then carries ``held``,
    the unit's value, or None when it could not be read). Without ``held`` only the files count.
    ``level_values``: ``{cgroup path: {file: bytes}}``, what the flavour gives the QoS-class and kubepods levels
    (a pod's comes with its plan, ``pod_values``); every level or file without one holds the sum of its children.
    """
    held = held or {}
    level_values = level_values or {}
    pod_given = dict((plan['cgroup'], plan.get('pod_values')) for plan in pod_plans if plan.get('pod_values'))
    held_differ = {}
    final = {}
    writes = []
    counts = {'unchanged': 0, 'skipped': 0, 'found': 0}
    pods_out = []
    problems = []

    def problem(kind, reason, cgroup, pod=None, container=None, level=None):
        problems.append({'kind': kind, 'pod': pod, 'container': container, 'level': level,
                         'cgroup': cgroup, 'reason': reason})

    def want(path, name, value, level):
        old = _read(snapshot, path, name)
        value = page_round(value, page_size)
        final.setdefault(path, {})[name] = value
        kept = _read(held, path, name) if path in held else value
        if old == value and kept == value:
            counts['unchanged'] += 1
            return False
        write = {'cgroup': path, 'file': name, 'old': None if old is None else to_text(old),
                 'new': to_text(value), 'level': level}
        if kept != value:
            write['held'] = None if kept is None else to_text(kept)
            held_differ.setdefault(path, {})[name] = write['held']
        writes.append(write)
        return True

    managed_pods = []
    for plan in pod_plans:
        out = dict((k, plan[k]) for k in ('namespace', 'name', 'uid', 'config_name', 'qos_class',
                                          'cgroup', 'reset'))
        out['skipped'] = plan['skipped']
        out['containers'] = []
        pods_out.append(out)
        ref = '%s/%s' % (out['namespace'], out['name'])
        if plan.get('invalid'):
            problem('invalid', plan['skipped'], plan['cgroup'], pod=ref)
        if plan['skipped'] is None and plan['cgroup'] not in snapshot:
            out['skipped'] = 'pod cgroup %s not found (the pod is gone or not started yet)' % plan['cgroup']
        if out['skipped']:
            counts['skipped'] += 1
            continue
        managed_pods.append(out)
        for entry in plan['containers']:
            cout = {'name': entry['name'], 'cgroup': entry['cgroup'], 'expected': entry['expected'],
                    'actual': None, 'drift': [], 'changed': False, 'skipped': entry['skipped']}
            out['containers'].append(cout)
            if entry.get('invalid'):
                problem('invalid', entry['skipped'], entry['cgroup'], pod=ref, container=entry['name'])
            if cout['skipped'] is None and entry['cgroup'] not in snapshot:
                cout['skipped'] = 'container cgroup %s not found (the container is gone)' % entry['cgroup']
            if cout['skipped'] is None:
                counts['found'] += 1
                missing = [f for f in CONTAINER_FILES if _read(snapshot, entry['cgroup'], f) is None]
                if missing:
                    cout['skipped'] = ('%s has no %s: the memory controller is not enabled for this cgroup'
                                       % (entry['cgroup'], ', '.join(missing)))
                    problem('no_memory_controller', cout['skipped'], entry['cgroup'], pod=ref,
                            container=entry['name'])
            if cout['skipped']:
                counts['skipped'] += 1
                continue
            cout['actual'] = dict((f, to_text(_read(snapshot, entry['cgroup'], f))) for f in CONTAINER_FILES)
            for name in CONTAINER_FILES:
                value = MAX if entry['expected'][name] == MAX else int(entry['expected'][name])
                if want(entry['cgroup'], name, value, LEVEL_CONTAINER):
                    cout['drift'].append(name)
                    cout['changed'] = True
            cout['held'] = held_differ.get(entry['cgroup'], {})

    levels = []
    if hierarchy:
        def level_sum(path, level, label, ref=None, given=None):
            kids = children.get(path) or []
            entry = {'cgroup': path, 'level': label, 'expected': {}, 'actual': {}, 'drift': [], 'changed': False}
            missing = [f for f in PROTECTION_FILES if _read(snapshot, path, f) is None]
            if path not in snapshot or missing:
                entry['skipped'] = ('%s has no %s: the memory controller is not enabled for this cgroup'
                                    % (path, ', '.join(missing or PROTECTION_FILES)))
                problem('no_memory_controller', entry['skipped'], path, pod=ref, level=label)
                levels.append(entry)
                return
            entry['skipped'] = None
            for name in PROTECTION_FILES:
                total = 0
                for kid in kids:
                    value = (final.get(kid) or {}).get(name)
                    if value is None:
                        value = _read(snapshot, kid, name)
                    total = _add(total, value or 0)
                if given and given.get(name) is not None:
                    total = given[name]
                entry['expected'][name] = to_text(page_round(total, page_size))
                entry['actual'][name] = to_text(_read(snapshot, path, name))
                if want(path, name, total, level):
                    entry['drift'].append(name)
                    entry['changed'] = True
            entry['held'] = held_differ.get(path, {})
            levels.append(entry)

        for out in managed_pods:
            level_sum(out['cgroup'], LEVEL_POD, 'pod', '%s/%s' % (out['namespace'], out['name']), pod_given.get(out['cgroup']))
        for path in top_paths.get('qos') or []:
            if path in snapshot:
                level_sum(path, LEVEL_QOS, 'qos', given=level_values.get(path))
        if top_paths.get('kubepods') in snapshot:
            level_sum(top_paths['kubepods'], LEVEL_KUBEPODS, 'kubepods', given=level_values.get(top_paths['kubepods']))

    ordered = order_writes(writes)
    return {'pods': pods_out, 'levels': levels, 'writes': ordered, 'written': len(ordered),
            'unchanged': counts['unchanged'], 'skipped': counts['skipped'], 'problems': problems,
            'containers_found': counts['found']}


# The parts of a pod object memory_qos reads whatever the flavour (the module's documentation of O(pods) names the
# same; a flavour adds its own with Flavour.pod_fields); the rest of what the API returns (managedFields, env,
# volumes, ...) is dropped on the controller before the pods travel to the node. None: the whole value is kept.
POD_FIELDS = {
    'apiVersion': None, 'kind': None,
    'metadata': {'name': None, 'namespace': None, 'uid': None, 'labels': None, 'annotations': None,
                 'deletionTimestamp': None},
    'spec': {'nodeName': None, 'containers': [{'name': None, 'resources': None}]},
    'status': {'phase': None, 'qosClass': None, 'conditions': None,
               'containerStatuses': [{'name': None, 'containerID': None, 'state': None}]},
}


def _slim(value, fields):
    """``value`` cut down to ``fields`` (a dict of sub-fields, a one-item list for the items of a list, None for
    all of it). Anything not shaped as ``fields`` expects is kept as it is, so the module reports bad input the
    same way whether or not it was slimmed."""
    if fields is None:
        return value
    if isinstance(fields, list):
        if not isinstance(value, list):
            return value
        return [_slim(item, fields[0]) for item in value]
    if not isinstance(value, dict):
        return value
    return dict((key, _slim(value[key], sub)) for key, sub in fields.items() if key in value)


def merge_fields(base, extra):
    """The field tree ``base`` with the fields of ``extra`` (same shape) added."""
    if base is None or extra is None:
        return None
    if isinstance(base, list):
        return [merge_fields(base[0], extra[0] if isinstance(extra, list) else extra)]
    merged = dict(base)
    for key, sub in extra.items():
        merged[key] = merge_fields(base[key], sub) if key in base else sub
    return merged


def slim_pods(data, extra=None):
    """The pods document ``data`` (a PodList, a k8s_info result, one pod or a list of pods) with each pod cut
    down to :data:`POD_FIELDS` (and the fields ``extra`` adds, a flavour's ``pod_fields``). A document of another
    shape is returned as it is (the module refuses it)."""
    fields = merge_fields(POD_FIELDS, extra) if extra else POD_FIELDS
    if isinstance(data, dict):
        for key in ('items', 'resources'):
            if isinstance(data.get(key), list):
                return dict(data, **{key: slim_pods(data[key], extra)})
        if data.get('kind') == 'Pod':
            return _slim(data, fields)
        return data
    if not isinstance(data, list):
        return data
    return [_slim(pod, fields) if isinstance(pod, dict) and isinstance(pod.get('metadata'), dict) else pod
            for pod in data]


REPORTS = ('all', 'changes')


def _noteworthy(entry):
    return bool(entry.get('changed') or entry.get('drift') or entry.get('skipped'))


def report_entries(pods, levels, report='all'):
    """The RV(pods) and RV(levels) entries a result shows: every one (``all``), or (``changes``) the pods with a
    container that is (or would be) written, drifted or skipped, or that were skipped whole (each listed with all
    its containers), and the levels that drifted or were skipped. Entries are returned as they are, in order."""
    if report not in REPORTS:
        raise MemQosError('report %r is not known; allowed: %s' % (report, ', '.join(REPORTS)))
    if report == 'all':
        return list(pods), list(levels)
    return ([pod for pod in pods if pod.get('skipped') or any(_noteworthy(c) for c in pod.get('containers') or [])],
            [level for level in levels if _noteworthy(level)])


def order_writes(writes):
    """Order writes so that no parent is ever below the sum of its children.

    First every decrease (and every write whose old value is unknown last among them), deepest level
    first; then every increase, top level first. Within a level the order is by path then file, so the
    plan is deterministic. memory.high writes carry no hierarchy constraint and follow the same rule.
    """
    def is_decrease(write):
        old = write['old']
        if old is None:
            return False
        new = MAX if write['new'] == MAX else int(write['new'])
        old = MAX if old == MAX else int(old)
        return _less(new, old)

    decreases = sorted((w for w in writes if is_decrease(w)), key=lambda w: (-w['level'], w['cgroup'], w['file']))
    increases = sorted((w for w in writes if not is_decrease(w)), key=lambda w: (w['level'], w['cgroup'], w['file']))
    return decreases + increases


# ---------------------------------------------------------------- systemd units
# The cgroup files the module writes and the systemd unit properties that carry them.
SYSTEMD_PROPERTIES = {MEMORY_MIN: 'MemoryMin', MEMORY_LOW: 'MemoryLow', MEMORY_HIGH: 'MemoryHigh'}
SYSTEMD_UNIT_SUFFIXES = ('.slice', '.scope')
SYSTEMD_INFINITY = 'infinity'


def systemd_unit(cgroup):
    """The systemd unit a cgroup path is named after (its last component when it ends in .slice or .scope), or None."""
    name = (cgroup or '').rstrip('/').rsplit('/', 1)[-1]
    for suffix in SYSTEMD_UNIT_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name
    return None


def show_argv(units):
    """``systemctl show`` of the properties :func:`parse_unit_properties` reads, for ``units``."""
    return ['systemctl', 'show', '--property=Id,LoadState,%s' % ','.join(sorted(SYSTEMD_PROPERTIES.values())),
            '--'] + list(units)


def set_property_argv(unit, values):
    """``systemctl set-property --runtime`` of ``values`` ({file: 'max' or digits}) on ``unit``."""
    return ['systemctl', 'set-property', '--runtime', '--', unit] + [
        '%s=%s' % (SYSTEMD_PROPERTIES[name], SYSTEMD_INFINITY if values[name] == MAX else values[name])
        for name in sorted(values)]


def parse_unit_properties(text):
    """``{unit: {file: value}}`` from the output of :func:`show_argv` (blocks separated by a blank line).

    Only loaded units are returned: a cgroup that is not a loaded unit is written as a plain file. A value
    systemd shows as ``infinity`` is ``'max'``; one that is neither that nor a byte count is left out, so
    the file is written again with the property (the write's ``held`` is then None).
    """
    out = {}
    for block in (text or '').replace('\r\n', '\n').split('\n\n'):
        fields = {}
        for line in block.splitlines():
            key, sep, value = line.partition('=')
            if sep:
                fields[key.strip()] = value.strip()
        unit = fields.get('Id')
        if not unit or fields.get('LoadState') != 'loaded':
            continue
        values = {}
        for name, prop in SYSTEMD_PROPERTIES.items():
            value = fields.get(prop)
            if value == SYSTEMD_INFINITY:
                values[name] = MAX
            elif value is not None and value.isdigit():
                values[name] = int(value)
        out[unit] = values
    return out


def write_batches(writes):
    """The writes as calls: a list of lists, each the writes of one call, in the order to make them.

    Writes with ``via`` == 'systemd' to the same cgroup that follow each other in ``writes`` (the order of
    :func:`order_writes`) are one ``systemctl set-property`` call; a memory.high write (no hierarchy constraint)
    joins its cgroup's first memory.min/memory.low write, so a container whose high falls and whose protection
    rises is one call, not two. Every other write is a call of its own. The protection writes keep their order,
    so :func:`check_order` holds for the flattened batches as it did for ``writes``.
    """
    first = {}
    for index, write in enumerate(writes):
        if write.get('via') == 'systemd' and write['file'] != MEMORY_HIGH:
            first.setdefault(write['cgroup'], index)

    def position(item):
        index, write = item
        if write.get('via') == 'systemd' and write['file'] == MEMORY_HIGH and write['cgroup'] in first:
            return (first[write['cgroup']], 0)
        return (index, 1)

    batches = []
    for _index, write in sorted(enumerate(writes), key=position):
        last = batches[-1][-1] if batches else None
        if (last is not None and write.get('via') == 'systemd' and last.get('via') == 'systemd'
                and last['cgroup'] == write['cgroup'] and write['file'] not in [w['file'] for w in batches[-1]]):
            batches[-1].append(write)
        else:
            batches.append([write])
    return batches


def check_order(writes, initial, parents):
    """Replay ``writes`` over ``initial`` ({path: {file: value}}) and return the first state where a
    parent's memory.min/low is below the sum of its children's, or None. ``parents``: {child: parent}.
    Used by the tests to prove :func:`order_writes`; cheap enough to run on real plans.
    """
    state = dict((p, dict(v)) for p, v in initial.items())
    kids = {}
    for child, parent in parents.items():
        kids.setdefault(parent, []).append(child)

    def violations():
        for parent, children in kids.items():
            for name in PROTECTION_FILES:
                have = (state.get(parent) or {}).get(name)
                if have is None:
                    continue
                total = 0
                for child in children:
                    total = _add(total, (state.get(child) or {}).get(name) or 0)
                if _less(have, total):
                    return (parent, name, have, total)
        return None

    for write in writes:
        state.setdefault(write['cgroup'], {})[write['file']] = parse_value(write['new'])
        bad = violations()
        if bad:
            return {'after': write, 'parent': bad[0], 'file': bad[1], 'parent_value': bad[2], 'children_sum': bad[3]}
    return None
