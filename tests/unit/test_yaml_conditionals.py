# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every conditional in the collection's YAML (roles, playbooks, molecule scenarios, integration targets, bench)
is a string or a boolean once YAML has read it.

A plain scalar with ': ' in it (``- x is search('Rolled back: restored')``) is read by YAML as a mapping, and
ansible-core 2.19 refuses it only when the task runs ("Conditional expressions must be strings"). ansible-lint
does not see it; the vm scenario found one after 15 minutes. This test finds them all in a second."""
from __future__ import annotations

import os

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
TREES = ('roles', 'playbooks', 'extensions', os.path.join('tests', 'integration'), 'bench')
CONDITIONAL_KEYS = ('when', 'that', 'failed_when', 'changed_when', 'until')
SKIP_DIRS = {'.git', '.cache', 'node_modules', '__pycache__', 'templates'}


class _AnyTagLoader(yaml.SafeLoader):
    """SafeLoader that reads Ansible's own tags (!unsafe, !vault, ...) as their plain value."""


def _any_tag(loader, suffix, node):  # pylint: disable=unused-argument
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


_AnyTagLoader.add_multi_constructor('!', _any_tag)


def _yaml_files():
    for tree in TREES:
        top = os.path.join(ROOT, tree)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                if name.endswith(('.yml', '.yaml')):
                    yield os.path.join(dirpath, name)


def _bad_conditionals(node, where):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in CONDITIONAL_KEYS:
                for item in value if isinstance(value, list) else [value]:
                    if not isinstance(item, (str, bool)):
                        yield '%s: %s: %r' % (where, key, item)
            yield from _bad_conditionals(value, where)
    elif isinstance(node, list):
        for item in node:
            yield from _bad_conditionals(item, where)


def test_the_trees_hold_yaml():
    assert len(list(_yaml_files())) > 50


@pytest.mark.parametrize('path', list(_yaml_files()), ids=lambda p: os.path.relpath(p, ROOT))
def test_every_conditional_is_a_string(path):
    with open(path, encoding='utf-8') as handle:
        try:
            documents = list(yaml.load_all(handle, Loader=_AnyTagLoader))  # nosec B506 - SafeLoader subclass
        except yaml.YAMLError as exc:
            # a Jinja template is no YAML file: it belongs under templates/ (left out above)
            pytest.fail('%s is not YAML: %s' % (os.path.relpath(path, ROOT), exc))
    where = os.path.relpath(path, ROOT)
    bad = [line for doc in documents for line in _bad_conditionals(doc, where)]
    assert not bad, 'conditionals YAML read as something else than a string (quote or fold them):\n' + '\n'.join(bad)
