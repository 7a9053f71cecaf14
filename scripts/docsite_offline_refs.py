# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sphinx extension of the docs site (scripts/docsite.sh): the references the collection's documentation makes to
Ansible's own documentation and to other collections' plugins (M(kubernetes.core.k8s_info), RV(...) of another
module, the "common return values" page) become links to docs.ansible.com, without the intersphinx inventories a
build online would download. A reference to anything of numaops.colocation itself that does not exist, or to a
label this file does not know, stays an error of the build."""
from __future__ import annotations

import re

from docutils import nodes

DOCS = 'https://docs.ansible.com/projects/ansible/devel/'
COLLECTION = 'numaops.colocation'
# the labels of Ansible's own documentation that antsibull-docs' pages refer to
ANSIBLE_LABELS = {
    'ansible_configuration_settings': 'reference_appendices/config.html',
    'common_return_values': 'reference_appendices/common_return_values.html',
    'action_plugins': 'plugins/action.html',
    'module_plugins': 'plugins/module.html',
    'filter_plugins': 'plugins/filter.html',
    'collections_installing': 'collections_guide/collections_installing.html',
    'using_collections': 'collections_guide/index.html',
    'playbooks_reuse_roles': 'playbook_guide/playbooks_reuse_roles.html',
}
PLUGIN = re.compile(r'^ansible_collections\.([a-z0-9_]+)\.([a-z0-9_]+)\.([a-z0-9_]+)_(module|role|filter|lookup|test|'
                    r'inventory|connection|become|callback|cache|cliconf|httpapi|netconf|shell|strategy|vars|'
                    r'keyword|plugin)(?:__(.+))?$')


def external_url(target):
    if target in ANSIBLE_LABELS:
        return DOCS + ANSIBLE_LABELS[target]
    match = PLUGIN.match(target)
    if not match or '%s.%s' % match.group(1, 2) == COLLECTION:
        return None
    namespace, name, plugin, kind, anchor = match.groups()
    return '%scollections/%s/%s/%s_%s.html%s' % (DOCS, namespace, name, plugin, kind, '#' + anchor if anchor else '')


def missing_reference(app, env, node, contnode):
    if node.get('refdomain') != 'std' or node.get('reftype') not in ('ref', 'any'):
        return None
    url = external_url(node.get('reftarget', ''))
    if url is None:
        return None
    reference = nodes.reference('', '', internal=False, refuri=url)
    reference.append(contnode)
    return reference


def setup(app):
    app.connect('missing-reference', missing_reference)
    return {'version': '1.0', 'parallel_read_safe': True, 'parallel_write_safe': True}
