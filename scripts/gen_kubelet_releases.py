# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generate plugins/module_utils/kubelet/release_data.py from the Kubernetes sources of each release.

For every release in the list (the latest patch of each minor), this downloads the source of the Go module
``k8s.io/kubernetes@v1.M.P`` and of the staging modules its kubelet registers feature gates from
(``k8s.io/<staging>@v0.M.P``) with ``go mod download -json``, and reads:

* every feature gate the kubelet's gate registry knows, with its maturity, default and LockToDefault at that
  release: ``pkg/features`` and, following where the registry gets its gates, the staging packages whose
  ``init()`` registers into ``DefaultMutableFeatureGate`` or whose ``AddFeatureGates`` the kubelet calls
  (``cmd/kubelet/app``, ``pkg/kubelet``), plus component-base's ``AllAlpha`` / ``AllBeta``;
* the CPU manager policy options and their maturity, and the gates an alpha / beta option needs
  (``pkg/kubelet/cm/cpumanager/policy_options.go``); the same for the topology manager
  (``pkg/kubelet/cm/topologymanager/policy_options.go``);
* which options maps ``cmd/kubelet/app/server.go`` refuses (any non-nil map) while a gate is off.

Usage::

    python3 scripts/gen_kubelet_releases.py                     # the release list of the committed table
    python3 scripts/gen_kubelet_releases.py 1.31.14 ... 1.38.0  # a new list (a new release = one run)
    python3 scripts/gen_kubelet_releases.py --check             # exit 1 when the committed table is not what the sources say

Only the standard library and the ``go`` command are needed.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, 'plugins', 'module_utils', 'kubelet', 'release_data.py')
KUBERNETES = 'k8s.io/kubernetes'
STAGES = ('PreAlpha', 'Alpha', 'Beta', 'GA', 'Deprecated')


class SourceError(RuntimeError):
    """The source does not have the shape this generator understands (fail loudly, never guess)."""


# --------------------------------------------------------------------------------------------------
# Go source text helpers


def strip_comments(text):
    """Go source without // and /* */ comments (string and rune literals kept)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '/' and i + 1 < n and text[i + 1] == '/':
            j = text.find('\n', i)
            i = n if j < 0 else j
            continue
        if c == '/' and i + 1 < n and text[i + 1] == '*':
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
            out.append(' ')
            continue
        if c in '"\'`':
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == '\\' and c != '`':
                    j += 1
                j += 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def matching_brace(text, start):
    """Index of the brace closing the one at ``start``."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1)
        elif c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise SourceError('unbalanced braces')


def top_level_items(body):
    """Split a composite literal body at its top-level commas."""
    items = []
    depth = 0
    current = []
    in_string = False
    for c in body:
        if in_string:
            current.append(c)
            if c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c in '{([':
            depth += 1
        elif c in '})]':
            depth -= 1
        if c == ',' and depth == 0:
            items.append(''.join(current).strip())
            current = []
            continue
        current.append(c)
    if ''.join(current).strip():
        items.append(''.join(current).strip())
    return [item for item in items if item]


def string_constants(text):
    """``Name Type = "value"`` and ``Name = "value"`` declarations: {Name: value}."""
    found = dict(re.findall(r'(?m)^\s*(?:const\s+|var\s+)?([A-Za-z_]\w*)\s+(?:[\w.]+\s*)?=\s*"([^"\n]*)"', text))
    found.update(re.findall(r'(?m)^\s*(?:const\s+|var\s+)?([A-Za-z_]\w*)\s*=\s*(?:\w+\.)?Feature\(\s*"([^"\n]*)"\s*\)',
                            text))
    return found


def imports(text):
    """{alias: import path} of a Go file (alias = the last path element when not given)."""
    found = {}
    blocks = re.findall(r'(?s)\bimport\s*\((.*?)\)', text) + re.findall(r'(?m)^import\s+((?:\w+\s+)?"[^"]+")', text)
    for block in blocks:
        for alias, path in re.findall(r'(?m)^\s*([\w.]+\s+)?"([^"]+)"', block):
            alias = alias.strip()
            if alias in ('_', '.'):
                continue
            found[alias or path.rstrip('/').split('/')[-1]] = path
    return found


# --------------------------------------------------------------------------------------------------
# Feature specs


_SPEC_FIELD = {
    'Default': re.compile(r'\bDefault\s*:\s*(\w+)\b'),
    'PreRelease': re.compile(r'\bPreRelease\s*:\s*(?:\w+\.)?(PreAlpha|Alpha|Beta|GA|Deprecated)\b'),
    'LockToDefault': re.compile(r'\bLockToDefault\s*:\s*(\w+)\b'),
    'Version': re.compile(r'\bVersion\s*:\s*version\.MustParse\(\s*"v?1\.(\d+)(?:\.\d+)?"\s*\)'),
}


def bool_constants(text):
    """``name = true`` / ``name bool = false`` declarations: {name: bool}."""
    return dict((name, value == 'true')
                for name, value in re.findall(r'(?m)^\s*(?:const\s+|var\s+)?(\w+)\s+(?:bool\s*)?=\s*(true|false)\s*$', text))


def parse_spec(text, versioned, bools=None):
    spec = {}
    for field, pattern in _SPEC_FIELD.items():
        match = pattern.search(text)
        if match:
            spec[field] = match.group(1)
    if 'PreRelease' not in spec or (versioned and 'Version' not in spec):
        raise SourceError('feature spec not understood: {%s}' % text.strip())
    flags = []
    for field in ('Default', 'LockToDefault'):
        value = spec.get(field, 'false')
        if value in ('true', 'false'):
            flags.append(value == 'true')
        elif value in (bools or {}):
            flags.append(bools[value])
        else:
            raise SourceError('feature spec field %s: %s is not a boolean this generator can resolve: {%s}'
                              % (field, value, text.strip()))
    return (int(spec['Version']) if versioned else 0, spec['PreRelease'], flags[0], flags[1])


_MAP_RE = re.compile(r'map\[(?:\w+\.)?Feature\](?:\w+\.)?(FeatureSpec|VersionedSpecs)\s*\{')


def feature_maps(text):
    """{name of the var or func holding it: [(key expression, [spec, ...]), ...]} for every feature map literal."""
    maps = {}
    bools = bool_constants(text)
    for match in _MAP_RE.finditer(text):
        versioned = match.group(1) == 'VersionedSpecs'
        head = text[:match.start()]
        owner = re.search(r'(?:\bvar\s+(\w+)\s*=|\bfunc\s+(\w+)\s*\([^)]*\)[^{]*\{\s*return|\b(\w+)\s*:?=)\s*$', head)
        if not owner:
            continue
        name = next(group for group in owner.groups() if group)
        start = match.end() - 1
        body = text[start + 1:matching_brace(text, start)]
        entries = []
        for item in top_level_items(body):
            key, sep, value = item.partition(':')
            value = value.strip()
            if not sep or not value.startswith('{') or not value.endswith('}'):
                raise SourceError('feature map entry not understood: %s' % item[:200])
            inner = value[1:-1]
            if versioned:
                specs = [parse_spec(spec[1:-1], True, bools) for spec in top_level_items(inner)]
            else:
                specs = [parse_spec(inner, False, bools)]
            entries.append((key.strip(), specs))
        maps[name] = entries
    return maps


def spec_at(specs, minor):
    """The spec in force at release 1.minor: (stage, default, locked), or PreAlpha when none applies yet."""
    current = ('PreAlpha', False, False)
    for since, stage, default, locked in sorted(specs, key=lambda spec: spec[0]):
        if since <= minor:
            current = (stage, default, locked)
    return current


# --------------------------------------------------------------------------------------------------
# Packages and the kubelet's gate registry


class Tree(object):
    """Go package directories of one release: k8s.io/kubernetes and its staging modules."""

    def __init__(self, version, module_dir):
        self.version = version            # "1.31.14"
        self.module_dir = module_dir      # callable: module path, version -> directory
        self._dirs = {}

    def dir_of(self, package):
        if package == KUBERNETES or package.startswith(KUBERNETES + '/'):
            module, version = KUBERNETES, 'v' + self.version
        else:
            parts = package.split('/')
            if parts[0] != 'k8s.io' or len(parts) < 2:
                return None
            module, version = '/'.join(parts[:2]), 'v0.' + self.version.split('.', 1)[1]
        if module not in self._dirs:
            self._dirs[module] = self.module_dir(module, version)
        root = self._dirs[module]
        return os.path.join(root, package[len(module):].lstrip('/')) if root else None

    def files(self, package):
        directory = self.dir_of(package)
        if not directory or not os.path.isdir(directory):
            return []
        names = sorted(name for name in os.listdir(directory)
                       if name.endswith('.go') and not name.endswith('_test.go'))
        result = []
        for name in names:
            with open(os.path.join(directory, name), encoding='utf-8') as handle:
                text = strip_comments(handle.read())
            if re.search(r'(?m)^//go:build\s+ignore', text):
                continue
            result.append(text)
        return result

    def walk(self, package):
        """Every non-test Go file under a package directory (recursively): [(package, text)]."""
        top = self.dir_of(package)
        found = []
        for directory, dirs, names in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in ('testing', 'testdata'))
            sub = os.path.relpath(directory, top)
            for name in sorted(names):
                if name.endswith('.go') and not name.endswith('_test.go'):
                    with open(os.path.join(directory, name), encoding='utf-8') as handle:
                        found.append((package if sub == '.' else package + '/' + sub.replace(os.sep, '/'),
                                      strip_comments(handle.read())))
        return found


_REGISTER_CALL = re.compile(r'(\w+)\.(AddFeatureGates|AddFeaturesToExistingFeatureGates|'
                            r'AddVersionedFeaturesToExistingFeatureGates)\(')
_ADD_CALL = re.compile(r'\.(?:Add|AddVersioned)\(\s*(?:\w+\()?\s*(\w+)(\(\))?\s*\)?\s*\)')


def kubelet_gates(tree):
    """{gate name: [spec, ...]} of every gate in the kubelet's registry at this release."""
    queue = ['%s/pkg/features' % KUBERNETES]
    # Packages the kubelet's own code asks to register their gates.
    for sub in ('cmd/kubelet', 'pkg/kubelet'):
        for _package, text in tree.walk('%s/%s' % (KUBERNETES, sub)):
            if 'DefaultMutableFeatureGate' not in text:
                continue
            aliases = imports(text)
            for alias, _func in _REGISTER_CALL.findall(text):
                if alias in aliases:
                    queue.append(aliases[alias])
    gates = {}
    seen = set()
    constants = {}
    while queue:
        package = queue.pop(0)
        if package in seen:
            continue
        seen.add(package)
        texts = tree.files(package)
        if not texts:
            raise SourceError('%s@%s: package %s not found' % (KUBERNETES, tree.version, package))
        joined = '\n'.join(texts)
        consts = constants.setdefault(package, string_constants(joined))
        maps = feature_maps(joined)
        registered = set(name for name, _call in _ADD_CALL.findall(joined))
        aliases = {}
        for text in texts:
            aliases.update(imports(text))
        for alias, _func in _REGISTER_CALL.findall(joined):
            if alias in aliases:
                queue.append(aliases[alias])
        # Imported packages whose init() registers gates into the shared registry.
        for alias, path in sorted(aliases.items()):
            if path.startswith('k8s.io/') and path not in seen and re.search(r'\b%s\.\w+' % re.escape(alias), joined):
                if any(re.search(r'(?s)func init\(\)\s*\{[^}]*DefaultMutableFeatureGate\.Add', t)
                       for t in tree.files(path)):
                    queue.append(path)
                # A sibling register package whose init() hands the shared registry to this package
                # (k8s.io/controller-manager/pkg/features/register): the package's maps are registered.
                elif any(re.search(r'(?s)func init\(\)\s*\{[^}]*\w+\.\w+\(\s*utilfeature\.DefaultMutableFeatureGate\s*\)', t)
                         for t in tree.files(path + '/register')):
                    queue.append(path)
        for name in sorted(registered & set(maps)):
            for key, specs in maps[name]:
                if '.' in key:
                    alias, ident = key.split('.', 1)
                    if alias not in aliases:
                        raise SourceError('%s: %s: unknown package %s' % (package, key, alias))
                    other = aliases[alias]
                    if other not in constants:
                        constants[other] = string_constants('\n'.join(tree.files(other)))
                    gate = constants[other].get(ident)
                else:
                    gate = consts.get(key)
                if not gate:
                    raise SourceError('%s: cannot resolve the gate name of %s' % (package, key))
                gates[gate] = specs
    component_base = '\n'.join(tree.files('k8s.io/component-base/featuregate'))
    for special in re.findall(r'\ball(?:Alpha|Beta)Gate\s+Feature\s*=\s*"(\w+)"', component_base):
        gates[special] = None
    if 'AllAlpha' not in gates or 'AllBeta' not in gates:
        raise SourceError('component-base/featuregate: AllAlpha / AllBeta not found')
    return gates


def policy_options(tree, package):
    """({option: stage}, {stage: gate}) from a manager's policy_options.go."""
    texts = tree.files('%s/%s' % (KUBERNETES, package))
    text = '\n'.join(texts)
    consts = string_constants(text)
    options = {}
    for stage in ('alpha', 'beta', 'stable'):
        match = re.search(r'\b%sOptions\s*=\s*sets\.(?:New\[string\]|NewString)\(([^)]*)\)' % stage, text)
        if not match:
            raise SourceError('%s: %sOptions not found' % (package, stage))
        for ident in re.findall(r'\w+', match.group(1)):
            if ident not in consts:
                raise SourceError('%s: option constant %s not found' % (package, ident))
            options[consts[ident]] = {'alpha': 'Alpha', 'beta': 'Beta', 'stable': 'GA'}[stage]
    gates = {}
    for stage in ('alpha', 'beta'):
        match = re.search(r'\b%sOptions\.Has\(\w+\)\s*&&\s*!\s*utilfeature\.DefaultFeatureGate\.Enabled\(\w+\.(\w+)\)'
                          % stage, text)
        if not match:
            raise SourceError('%s: the feature gate of %s options not found' % (package, stage))
        gates[stage.capitalize()] = match.group(1)
    return options, gates


def _config_key(field):
    run = re.match(r'[A-Z]+', field).group(0)
    if len(run) == 1 or len(run) == len(field):
        return field[:len(run)].lower() + field[len(run):]
    return field[:len(run) - 1].lower() + field[len(run) - 1:]


def options_map_gates(tree):
    """{config key: gate} for the options maps server.go refuses (when non-nil) while the gate is off."""
    text = '\n'.join(tree.files('%s/cmd/kubelet/app' % KUBERNETES))
    found = {}
    for gate, _target, field in re.findall(
            r'if\s+utilfeature\.DefaultFeatureGate\.Enabled\(features\.(\w+)\)\s*\{\s*(\w+)\s*=\s*s\.(\w+)\s*\}'
            r'\s*else\s+if\s+s\.\3\s*!=\s*nil', text):
        found[_config_key(field)] = gate
    return found


def merge_default_eviction_settings(tree):
    """Whether the release's KubeletConfiguration has mergeDefaultEvictionSettings (1.33+): before it, an
    evictionHard map without memory.available means no hard-eviction memory, whatever the file says."""
    return any(re.search(r'(?m)^\s*MergeDefaultEvictionSettings\s+\*?bool\b', text)
               for text in tree.files('%s/pkg/kubelet/apis/config' % KUBERNETES))


def parse_release(tree):
    minor = int(tree.version.split('.')[1])
    gates = kubelet_gates(tree)
    table = {}
    for name, specs in sorted(gates.items()):
        table[name] = ('Special', False, False) if specs is None else spec_at(specs, minor)
    cpu, cpu_gates = policy_options(tree, 'pkg/kubelet/cm/cpumanager')
    topology, topology_gates = policy_options(tree, 'pkg/kubelet/cm/topologymanager')
    return {
        'version': tree.version,
        'gates': table,
        'cpu_options': cpu,
        'cpu_option_gates': cpu_gates,
        'topology_options': topology,
        'topology_option_gates': topology_gates,
        'options_map_gates': options_map_gates(tree),
        'merge_default_eviction_settings': merge_default_eviction_settings(tree),
    }


# --------------------------------------------------------------------------------------------------
# The data module


def _steps(per_minor, minors):
    """Collapse {minor: value} over consecutive minors into ((first minor, value), ...) change steps."""
    steps = []
    for minor in minors:
        value = per_minor.get(minor)
        if not steps or steps[-1][1] != value:
            steps.append((minor, value))
    return tuple(steps)


def build_table(releases):
    minors = [int(r['version'].split('.')[1]) for r in releases]
    by_minor = dict(zip(minors, releases))
    gate_names = sorted(set(name for r in releases for name in r['gates']))
    gates = {}
    for name in gate_names:
        gates[name] = _steps(dict((m, by_minor[m]['gates'].get(name)) for m in minors), minors)
    cpu = {}
    for name in sorted(set(o for r in releases for o in r['cpu_options'])):
        cpu[name] = _steps(dict((m, by_minor[m]['cpu_options'].get(name)) for m in minors), minors)
    topology = {}
    for name in sorted(set(o for r in releases for o in r['topology_options'])):
        topology[name] = _steps(dict((m, by_minor[m]['topology_options'].get(name)) for m in minors), minors)
    per_release = {}
    for m in minors:
        per_release[m] = {
            'cpu_option_gates': by_minor[m]['cpu_option_gates'],
            'topology_option_gates': by_minor[m]['topology_option_gates'],
            'options_map_gates': by_minor[m]['options_map_gates'],
            'merge_default_eviction_settings': by_minor[m]['merge_default_eviction_settings'],
        }
    return {
        'RELEASES': tuple(r['version'] for r in releases),
        'FEATURE_GATES': gates,
        'CPU_MANAGER_OPTIONS': cpu,
        'TOPOLOGY_MANAGER_OPTIONS': topology,
        'RELEASE_RULES': per_release,
    }


HEADER = '''# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's feature gates and resource-manager policy options per Kubernetes release (read by releases.py).

GENERATED by scripts/gen_kubelet_releases.py from the sources of k8s.io/kubernetes (and the staging
modules its kubelet registers feature gates from) at the releases in RELEASES. Do not edit by hand:
a new release is one run of the script.

GATES: {gate: "minor:code minor:code ..."}, one step for each minor where the gate changes; code is x when the
kubelet of that minor does not know the gate, else the stage letter (A Alpha, B Beta, G GA, D Deprecated,
P PreAlpha: declared for a later release only, the kubelet refuses to set it; S Special: AllAlpha / AllBeta),
the default (t or f) and L when the gate is locked to its default. "31:Bt 34:GtL 37:x": beta and on by default
from 1.31, GA and locked on from 1.34, unknown from 1.37.
CPU_MANAGER_OPTIONS / TOPOLOGY_MANAGER_OPTIONS: {option: "minor:stage ..."} (x: the release does not know it).
RELEASE_RULES: {minor: {cpu_option_gates / topology_option_gates: {stage: gate an option of that stage needs},
options_map_gates: {config key: gate without which cmd/kubelet/app/server.go refuses any non-nil map},
merge_default_eviction_settings: whether the KubeletConfiguration has mergeDefaultEvictionSettings}}.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

'''

_STAGE_LETTERS = {'Alpha': 'A', 'Beta': 'B', 'GA': 'G', 'Deprecated': 'D', 'PreAlpha': 'P', 'Special': 'S'}


def gate_code(spec):
    """(stage, default, locked) -> 'GtL' (None -> 'x'); the inverse of releases.decode_gate."""
    if spec is None:
        return 'x'
    stage, default, locked = spec
    return '%s%s%s' % (_STAGE_LETTERS[stage], 't' if default else 'f', 'L' if locked else '')


def steps_text(steps, code):
    return ' '.join('%d:%s' % (minor, code(value)) for minor, value in steps)


def compact(table):
    """The table of build_table() in the compact form release_data.py holds (one line per gate or option)."""
    return {
        'RELEASES': table['RELEASES'],
        'GATES': dict((name, steps_text(steps, gate_code)) for name, steps in table['FEATURE_GATES'].items()),
        'CPU_MANAGER_OPTIONS': dict((name, steps_text(steps, lambda stage: stage or 'x'))
                                    for name, steps in table['CPU_MANAGER_OPTIONS'].items()),
        'TOPOLOGY_MANAGER_OPTIONS': dict((name, steps_text(steps, lambda stage: stage or 'x'))
                                         for name, steps in table['TOPOLOGY_MANAGER_OPTIONS'].items()),
        'RELEASE_RULES': table['RELEASE_RULES'],
    }


def python_literal(value, indent=0, used=0, width=120):
    """``value`` as Python source in a pep8 hanging-indent layout: one line when it fits, else one entry a line.

    ``indent``: the indentation of the line the value starts on; ``used``: the characters already on that line.
    """
    flat = _flat(value)
    if used + len(flat) + 1 <= width or not isinstance(value, (dict, tuple)) or not value:
        return flat
    inner = ' ' * (indent + 4)
    if isinstance(value, dict):
        items = []
        for key in sorted(value):
            head = '%s%r: ' % (inner, key)
            items.append('%s%s,' % (head, python_literal(value[key], indent + 4, len(head), width)))
        return '{\n%s\n%s}' % ('\n'.join(items), ' ' * indent)
    items = ['%s%s,' % (inner, python_literal(item, indent + 4, len(inner), width)) for item in value]
    return '(\n%s\n%s)' % ('\n'.join(items), ' ' * indent)


def _flat(value):
    if isinstance(value, dict):
        return '{%s}' % ', '.join('%r: %s' % (key, _flat(value[key])) for key in sorted(value))
    if isinstance(value, tuple):
        return '(%s%s)' % (', '.join(_flat(item) for item in value), ',' if len(value) == 1 else '')
    return repr(value)


def render(table):
    out = [HEADER]
    data = compact(table)
    for name in ('RELEASES', 'GATES', 'CPU_MANAGER_OPTIONS', 'TOPOLOGY_MANAGER_OPTIONS', 'RELEASE_RULES'):
        out.append('%s = %s\n' % (name, python_literal(data[name], 0, len(name) + 3)))
    return '\n'.join(out)


def go_module_dir(module, version):
    """Download a module with the go command and return its source directory (None when it does not exist)."""
    proc = subprocess.run(['go', 'mod', 'download', '-json', '%s@%s' % (module, version)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
    try:
        info = json.loads(proc.stdout)
    except ValueError:
        raise SourceError('go mod download %s@%s failed: %s' % (module, version, proc.stderr.strip()))
    if info.get('Error'):
        if module != KUBERNETES:
            return None
        raise SourceError('go mod download %s@%s: %s' % (module, version, info['Error']))
    return info['Dir']


def committed_releases(path=OUTPUT):
    with open(path, encoding='utf-8') as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', None) == 'RELEASES':
            return list(ast.literal_eval(node.value))
    raise SourceError('%s has no RELEASES' % path)


RELEASE_RE = re.compile(r'^1\.(\d+)\.(\d+)(?:-(alpha|beta|rc)\.(\d+))?$')


def release_key(release):
    """Sort key of '1.M.P' or '1.M.P-beta.N' (a pre-release before its release)."""
    match = RELEASE_RE.match(release)
    pre = (('alpha', 'beta', 'rc').index(match.group(3)), int(match.group(4))) if match.group(3) else (3, 0)
    return (int(match.group(1)), int(match.group(2))) + pre


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('releases', nargs='*', help='releases as 1.M.P (default: the list of the committed table)')
    parser.add_argument('--output', default=OUTPUT)
    parser.add_argument('--check', action='store_true', help='do not write; exit 1 if the output would change')
    args = parser.parse_args(argv)
    releases = args.releases or committed_releases(args.output)
    for release in releases:
        if not RELEASE_RE.match(release):
            parser.error('%s is not a release like 1.31.14 or 1.38.0-beta.0' % release)
    releases = sorted(releases, key=release_key)
    parsed = []
    for release in releases:
        print('reading k8s.io/kubernetes v%s' % release, file=sys.stderr)
        parsed.append(parse_release(Tree(release, go_module_dir)))
    text = render(build_table(parsed))
    if args.check:
        with open(args.output, encoding='utf-8') as handle:
            if handle.read() != text:
                print('%s is not what the sources of %s say; run %s' % (args.output, ', '.join(releases), sys.argv[0]),
                      file=sys.stderr)
                return 1
        return 0
    with open(args.output, 'w', encoding='utf-8') as handle:
        handle.write(text)
    print('wrote %s for %s' % (args.output, ', '.join(releases)), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
