# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's drop-in directory (``--config-dir``): which files it reads, in which order, and the
configuration it runs with once they are merged over the main file.

The kubelet's rules (``cmd/kubelet/app/server.go``, ``mergeKubeletConfigurations``):

- the directory is walked recursively (Go's ``filepath.WalkDir``: entries of each directory in name order, a
  sub-directory visited at its place in that order, a link to a directory not followed, not even when
  ``--config-dir`` itself is one: then nothing is read); every entry that is not a
  directory and whose name ends in ``.conf`` (case-sensitive) is read, everything else is skipped;
- a directory that does not exist stops the kubelet at start-up; so does an empty drop-in, one that is not YAML or
  JSON, and one without ``apiVersion``/``kind`` (1.32 and later: other than ``kubelet.config.k8s.io/v1beta1`` /
  ``KubeletConfiguration``; this module asks for exactly those in every release);
- 1.32 and later: the main configuration (defaulted) is turned into JSON and each drop-in is applied to it in that
  order as a JSON merge patch (RFC 7386): maps are merged key by key, every other value (scalars, lists) is
  replaced whole, and ``null`` removes the key, which the kubelet then defaults;
- 1.31: the drop-ins are merged among themselves the same way, and the result is decoded over the main
  configuration: maps merged, other values replaced, but a ``null`` does not remove what the main file sets.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import json
import posixpath

from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import releases
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import (
    API_VERSION, KIND, KubeletConfigError)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.options import MANAGED_KEYS, OPTION_FOR_KEY
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.plan import nested_value_equal, value_equal

SUFFIX = '.conf'
# the first kubelet minor that applies drop-ins as merge patches over the defaulted main configuration
PATCH_OVER_MAIN_SINCE = 32
# the kubelet's hard-eviction thresholds when the main file sets none (pkg/kubelet/eviction/defaults_linux.go)
DEFAULT_EVICTION_HARD = {
    'memory.available': '100Mi',
    'nodefs.available': '10%',
    'nodefs.inodesFree': '5%',
    'imagefs.available': '15%',
    'imagefs.inodesFree': '5%',
}
# managed keys whose value is a map: a drop-in overrides them entry by entry
MAP_KEYS = ('cpuManagerPolicyOptions', 'topologyManagerPolicyOptions', 'systemReserved', 'kubeReserved',
            'featureGates')


def _pretty(value):
    return json.dumps(value, sort_keys=True)


def go_ext(name):
    """Go's ``filepath.Ext`` of a file name: the suffix from its last dot, or ''."""
    dot = name.rfind('.')
    return name[dot:] if dot >= 0 else ''


def dropin_files(config_dir, entries):
    """The drop-in files the kubelet reads below ``config_dir``, in its order, and the entries it skips.

    ``entries``: (path, is_dir) of everything below ``config_dir`` (any depth), ``is_dir`` true only for a real
    directory (a link to one is not). Returns ``(files, skipped)``."""
    prefix = config_dir.rstrip('/') + '/'
    files = []
    skipped = []
    for path, is_dir in entries:
        if is_dir or not path.startswith(prefix):
            continue
        if go_ext(posixpath.basename(path)) == SUFFIX:
            files.append(path)
        else:
            skipped.append(path)

    def order(path):
        return path[len(prefix):].split('/')
    return sorted(files, key=order), sorted(skipped, key=order)


def link_root_warning(config_dir):
    """The warning for a drop-in directory that is a symbolic link: the kubelet's walk does not follow it (Go's
    ``filepath.WalkDir`` does not follow a link, the root included), so it reads no drop-in from there."""
    return ('config_dir %s is a symbolic link: the kubelet does not follow it (it walks --config-dir without '
            'following links) and reads no drop-in from it, so none is merged here either. Point the kubelet\'s '
            '--config-dir (and config_dir) at the directory itself' % config_dir)


def check_dropin(config, path):
    """Refuse a drop-in the kubelet refuses to start with (raises KubeletConfigError naming the file)."""
    if config is None:
        raise KubeletConfigError(['%s is empty; the kubelet refuses to start with an empty drop-in ("kubelet config '
                                  'file was empty"). Remove it or give it apiVersion %s, kind %s and the keys it '
                                  'sets' % (path, API_VERSION, KIND)])
    if not isinstance(config, dict):
        raise KubeletConfigError(['%s does not hold a YAML mapping (found %s); the kubelet refuses to start with it. '
                                  'A drop-in is a KubeletConfiguration document (apiVersion %s, kind %s) holding only '
                                  'the keys it overrides' % (path, type(config).__name__, API_VERSION, KIND)])
    problems = []
    if config.get('kind') != KIND:
        problems.append('kind is %s, expected "%s"' % (_pretty(config.get('kind')), KIND))
    if config.get('apiVersion') != API_VERSION:
        problems.append('apiVersion is %s, expected "%s"' % (_pretty(config.get('apiVersion')), API_VERSION))
    if problems:
        raise KubeletConfigError(['%s: %s; the kubelet refuses to start with a drop-in that is not a '
                                  'KubeletConfiguration ("failed to load kubelet dropin file"). Set both, or remove '
                                  'the file' % (path, ', '.join(problems))])
    for key in config:
        for managed in MANAGED_KEYS:
            if key != managed and key.lower() == managed.lower():
                raise KubeletConfigError(['%s: key %s is spelled %s by the kubelet; the kubelet\'s JSON decoding '
                                          'matches it regardless of case, so which of the two wins depends on the '
                                          'key order. Rename it to %s' % (path, key, managed, managed)])


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch of ``patch`` over ``target`` (neither is changed)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _decode_over(target, value):
    """Go's json.Unmarshal of ``value`` into an existing ``target``: maps merged, everything else replaced."""
    if isinstance(target, dict) and isinstance(value, dict):
        result = copy.deepcopy(target)
        for key, item in value.items():
            result[key] = _decode_over(result.get(key), item)
        return result
    return copy.deepcopy(value)


def _eviction_base(main, minor):
    """evictionHard as the kubelet holds it after reading the main file alone: its defaults when the file sets none,
    else the file's, with the defaults filled in under mergeDefaultEvictionSettings (1.33 and later)."""
    hard = main.get('evictionHard')
    if not isinstance(hard, dict):
        return dict(DEFAULT_EVICTION_HARD)
    hard = dict(hard)
    merge = releases.release_rules(releases.NEWEST_KNOWN_MINOR if minor is None else minor)[
        'merge_default_eviction_settings']
    if merge and main.get('mergeDefaultEvictionSettings') is True:
        for name, value in DEFAULT_EVICTION_HARD.items():
            hard.setdefault(name, value)
    return hard


def effective_config(main, dropins, minor=None):
    """The configuration the kubelet runs with: ``main`` (the main file's plain dict) with ``dropins``
    ([(path, plain dict)], in the kubelet's order) merged over it, by the rules of kubelet minor ``minor``
    (None: the current rules). ``main`` is returned as it is when there are no drop-ins."""
    if not dropins:
        return main
    base = copy.deepcopy(main)
    eviction = any('evictionHard' in config or 'mergeDefaultEvictionSettings' in config for _path, config in dropins)
    if eviction:
        # the merge starts from the main configuration as the kubelet loaded it: a drop-in's evictionHard entries
        # merge into the kubelet's defaults when the main file sets none
        base['evictionHard'] = _eviction_base(main, minor)
    if minor is not None and minor < PATCH_OVER_MAIN_SINCE:
        combined = {}
        for _path, config in dropins:
            combined = merge_patch(combined, config)
        result = _decode_over(base, combined)
    else:
        result = base
        for _path, config in dropins:
            result = merge_patch(result, config)
    if eviction:
        if 'evictionHard' not in result:
            result['evictionHard'] = {}  # a drop-in's null: the kubelet runs with no hard-eviction threshold
        if result.get('mergeDefaultEvictionSettings') is True:
            # the kubelet fills in the default thresholds when it loads the main file only; what that did is in
            # evictionHard already, and a drop-in's mergeDefaultEvictionSettings changes nothing
            result['mergeDefaultEvictionSettings'] = False
    return result


def _touches(config, key, entry=None):
    """Whether a drop-in's ``config`` sets (or removes) ``key`` (the map entry ``entry`` of it, when given)."""
    if key not in config:
        return False
    if entry is None:
        return True
    value = config[key]
    return not isinstance(value, dict) or entry in value


def overrides(dropins, keys=MANAGED_KEYS):
    """Every managed key (a map key: each of its entries, as ``key.entry``) a drop-in sets or removes, in the
    kubelet's order: [{'file', 'key', 'value'}] (``value`` None for a removal)."""
    found = []
    for path, config in dropins:
        for key in keys:
            if key not in config:
                continue
            value = config[key]
            if key in MAP_KEYS and isinstance(value, dict) and value:
                for entry in sorted(value):
                    found.append({'file': path, 'key': '%s.%s' % (key, entry), 'value': copy.deepcopy(value[entry])})
            else:
                found.append({'file': path, 'key': key, 'value': copy.deepcopy(value)})
    return found


def _last_toucher(dropins, key, entry=None):
    for path, config in reversed(dropins):
        if _touches(config, key, entry):
            return path
    return None


def _entry(value, entry):
    return value.get(entry) if isinstance(value, dict) else None


def conflicts(asked, planned, effective, dropins, config_dir, path):
    """Refusals for values the task asks that a drop-in overrides.

    ``asked``: {key: None (the whole key) or [entries of a map key]} the task sets; ``planned``: the main file's
    new configuration; ``effective``: ``planned`` with the drop-ins merged over it (effective_config)."""
    errors = []
    for key in MANAGED_KEYS:
        if key not in asked:
            continue
        entries = asked[key]
        option = OPTION_FOR_KEY[key]
        if entries is None:
            if value_equal(key, effective.get(key), planned.get(key)):
                continue
            if key not in MAP_KEYS or not isinstance(effective.get(key), dict):
                places = [(None, _last_toucher(dropins, key))]
                entries = ()
            else:
                entries = sorted(set(planned.get(key) or {}) | set(effective.get(key) or {}))
                places = []
        else:
            places = []
        if entries:
            for entry in entries:
                mine, theirs = _entry(planned.get(key), entry), _entry(effective.get(key), entry)
                if (mine is None) != (theirs is None) or (
                        mine is not None and not nested_value_equal(key, entry, theirs, mine)):
                    places.append((entry, _last_toucher(dropins, key, entry)))
        for entry, dropin in places:
            if dropin is None:
                continue
            name = key if entry is None else '%s.%s' % (key, entry)
            mine = planned.get(key) if entry is None else _entry(planned.get(key), entry)
            theirs = effective.get(key) if entry is None else _entry(effective.get(key), entry)
            wanted = ('%s set to %s' % (name, _pretty(mine))) if mine is not None else ('%s removed' % name)
            runs = ('sets %s to %s' % (name, _pretty(theirs))) if theirs is not None else ('removes %s' % name)
            errors.append(
                '%s %s, and the kubelet merges the drop-in directory %s over %s (every *.conf file, in name order), '
                'so it would run with that instead of %s (option %s). Remove %s from %s, set it there to the value '
                'you ask, or leave %s unset' % (dropin, runs, config_dir, path, wanted, option, name, dropin, option))
    return errors


# ---------------------------------------------------------------------------------------------------------------
# Drop-in mode: the keys the module manages written into one drop-in file of its own

DEFAULT_DROPIN_NAME = '90-numaops-colocation.conf'
MISSING = object()


def check_dropin_name(name):
    """Refusals for the name of the module's own drop-in file (a file name directly in the directory, read by the
    kubelet: ending in ``.conf``)."""
    if not isinstance(name, str) or not name or '/' in name or name in ('.', '..') or name.startswith('.'):
        return ['drop_in_name %s is not a file name: give a plain file name ending in %s, such as %s (it is '
                'created directly in config_dir)' % (_pretty(name), SUFFIX, DEFAULT_DROPIN_NAME)]
    if go_ext(name) != SUFFIX:
        return ['drop_in_name %s does not end in %s; the kubelet reads only files whose name ends in %s '
                '(case-sensitive), so it would never read it. Use a name such as %s'
                % (_pretty(name), SUFFIX, SUFFIX, DEFAULT_DROPIN_NAME)]
    return []


def split_at(files, ours):
    """``files`` ([(path, config)] in the kubelet's order, ``ours`` among them or not) split into the drop-ins
    before and after ``ours`` (by the kubelet's order: the path ``ours`` would have)."""
    prefix = posixpath.dirname(ours) + '/'
    key = ours[len(prefix):].split('/') if ours.startswith(prefix) else [ours]
    before, after = [], []
    for path, config in files:
        if path == ours:
            continue
        order = path[len(prefix):].split('/') if path.startswith(prefix) else [path]
        (before if order < key else after).append((path, config))
    return before, after


def _entry_equal(key, name, old, new):
    if old is None or new is None:
        return old is None and new is None
    return nested_value_equal(key, name, old, new)


def dropin_values(current, planned, base, asked):
    """The content of the module's own drop-in after the change.

    ``current``: the drop-in as it is (a plain dict, ``apiVersion``/``kind`` at least); ``planned``: the
    configuration asked for at the drop-in's place (the main file and the drop-ins before it, the drop-in itself
    merged over them, then the task's values planned over that, as the main file is planned in main-file mode);
    ``base``: the main file and the drop-ins before ours merged (what ours is merged over); ``asked``: {key: None
    (the whole key) or [entries of a map key]} of the task (see conflicts()).

    For each asked key the drop-in holds the planned value (for a map: the entries asked, the entries it held
    already and those that differ from ``base``; ``null`` for every entry of ``base`` the plan drops), and
    ``null`` when the plan removes a key that ``base`` sets (the kubelet then uses its default); a removed key that
    ``base`` does not set leaves the drop-in. Every other key of the drop-in stays."""
    result = copy.deepcopy(current)
    for key in MANAGED_KEYS:
        if key not in asked:
            continue
        new = planned.get(key, MISSING)
        below = base.get(key, MISSING)
        mine = current.get(key, MISSING)
        if new is MISSING:
            if below is MISSING:
                result.pop(key, None)
            else:
                result[key] = None
            continue
        if key in MAP_KEYS and isinstance(new, dict):
            entries = asked[key]
            below_map = below if isinstance(below, dict) else {}
            mine_map = mine if isinstance(mine, dict) else {}
            value = {}
            for name, item in new.items():
                if (entries is None or name in entries or name in mine_map or name not in below_map
                        or not _entry_equal(key, name, below_map[name], item)):
                    value[name] = copy.deepcopy(mine_map[name] if name in mine_map and _entry_equal(
                        key, name, mine_map[name], item) else item)
            for name in below_map:
                if name not in new:
                    value[name] = None
            if value:
                result[key] = value
            else:
                result.pop(key, None)
            continue
        result[key] = copy.deepcopy(mine) if mine is not MISSING and mine is not None and value_equal(
            key, mine, new) else copy.deepcopy(new)
    return result


def dropin_changes(current, new):
    """The managed keys whose value differs between two versions of the module's drop-in (a ``null`` is a value,
    unlike a missing key)."""
    changed = []
    for key in MANAGED_KEYS:
        old, value = current.get(key, MISSING), new.get(key, MISSING)
        if old is MISSING or value is MISSING or old is None or value is None:
            if (old is MISSING) != (value is MISSING) or (old is None) != (value is None):
                changed.append(key)
            continue
        if isinstance(old, dict) and isinstance(value, dict) and key in MAP_KEYS:
            if set(old) != set(value) or not all(_entry_equal(key, name, old[name], value[name]) for name in value):
                changed.append(key)
        elif not value_equal(key, old, value):
            changed.append(key)
    return changed


def source_of(key, entry, main, dropins, main_path):
    """Which file gives ``key`` (its map entry ``entry``) its value in the merged configuration: the last drop-in
    that sets or removes it, else the main file when it sets it, else the kubelet's default."""
    last = _last_toucher(dropins, key, entry)
    if last is not None:
        return last
    value = main.get(key)
    if value is not None and (entry is None or (isinstance(value, dict) and entry in value)):
        return main_path
    return 'the kubelet default'


def removed_from_dropin(current, new, main, dropins, effective, main_path):
    """What leaves the module's drop-in (a key, or a map entry as ``key.entry``; a ``null`` that goes is not
    reported): [{'key', 'value' (what the drop-in held), 'effective' (what the kubelet runs now, None: its
    default), 'from' (the file that value comes from, or 'the kubelet default')}]."""
    found = []
    for key in MANAGED_KEYS:
        old, value = current.get(key), new.get(key, MISSING)
        if old is None:
            continue
        if key in MAP_KEYS and isinstance(old, dict) and isinstance(value, dict):
            for name in sorted(old):
                if old[name] is not None and value.get(name) is None:
                    found.append({'key': '%s.%s' % (key, name), 'value': copy.deepcopy(old[name]),
                                  'effective': copy.deepcopy(_entry(effective.get(key), name)),
                                  'from': source_of(key, name, main, dropins, main_path)})
        elif value is MISSING or value is None:
            found.append({'key': key, 'value': copy.deepcopy(old), 'effective': copy.deepcopy(effective.get(key)),
                          'from': source_of(key, None, main, dropins, main_path)})
    return found


def unreached(asked, planned, effective, main_path, ours, minor):
    """Refusals for asked values the merged configuration does not reach although no later drop-in touches them:
    kubelet 1.31 decodes the drop-ins over the main file, so a ``null`` in a drop-in does not remove what the main
    file sets."""
    errors = []
    for key in MANAGED_KEYS:
        if key not in asked:
            continue
        mine, theirs = planned.get(key), effective.get(key)
        if key in MAP_KEYS and isinstance(mine, dict) and isinstance(theirs, dict):
            names = sorted(name for name in set(mine) | set(theirs)
                           if not _entry_equal(key, name, theirs.get(name), mine.get(name)))
            for name in names:
                if mine.get(name) is None:
                    errors.append(_unreached_text('%s.%s' % (key, name), theirs.get(name), main_path, ours, minor))
        elif not value_equal(key, theirs, mine) and mine is None:
            errors.append(_unreached_text(key, theirs, main_path, ours, minor))
    return errors


def _unreached_text(name, value, main_path, ours, minor):
    return ('%s sets %s to %s, and kubelet 1.%s does not let a drop-in remove what the main file sets (it decodes '
            'the drop-ins over the main file; a null in %s would be ignored), so the kubelet would keep it. Use '
            'write_to: main for this key, remove it from %s, or keep it (for a reservation: reservations: merge)'
            % (main_path, name, _pretty(value), minor, ours, main_path))
