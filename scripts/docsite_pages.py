# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Markdown pages of the repository in the docs site (scripts/docsite.sh): README.md, DEVELOPERS.md, docs/*.md
and docs/developer/*.md are copied into the Sphinx source tree at their repository paths, so that their relative
links to each other and to docs/images/ keep working; a link to any other file of the repository becomes a link to
that file in the repository on the web (galaxy.yml's repository, branch main). A link to a file that does not
exist fails the build, naming the page and the link. The site's index.rst lists every page.

    python3 scripts/docsite_pages.py SPHINX_SOURCE_DIR
"""
from __future__ import annotations

import glob
import os
import posixpath
import re
import shutil
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# [text](target "title"), ![alt](target), and reference definitions "[name]: target"
INLINE = re.compile(r'(!?\[(?:[^\]\\]|\\.)*\]\()(<[^>]*>|[^)\s]+)((?:\s+"[^"]*")?\))')
REFDEF = re.compile(r'^( {0,3}\[[^\]]+\]:[ \t]*)(\S+)(.*)$', re.M)
FENCE = re.compile(r'^ {0,3}(```|~~~)')
SCHEME = re.compile(r'^[a-zA-Z][a-zA-Z0-9+.-]*:')
USER_PAGES_FIRST = ['README.md']
DEVELOPER_PAGES_FIRST = ['DEVELOPERS.md', 'docs/developer/README.md']


def pages():
    """(user pages, developer pages): repository paths, in the order of the site's tables of contents."""
    user = USER_PAGES_FIRST + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, 'docs', '*.md')))
    developer = [p for p in DEVELOPER_PAGES_FIRST if os.path.exists(os.path.join(ROOT, p))]
    developer += sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, 'docs', 'developer', '*.md'))
                        if os.path.relpath(p, ROOT) not in developer)
    return [p for p in user if os.path.exists(os.path.join(ROOT, p))], developer


def rewrite_target(page, target, copied, repository, errors, assets):
    """The link ``target`` of ``page`` as it must read in the site."""
    bare = target[1:-1] if target.startswith('<') else target
    if not bare or bare.startswith('#') or SCHEME.match(bare) or bare.startswith('/'):
        return target
    path, _sep, fragment = bare.partition('#')
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
    if resolved in copied:
        return target
    full = os.path.join(ROOT, resolved)
    if resolved.startswith('..') or not os.path.exists(full):
        errors.append('%s: the link %s names %s, which does not exist in the repository' % (page, target, resolved))
        return target
    if resolved.startswith('docs/') and os.path.isfile(full):
        assets.add(resolved)          # an image or file beside the pages: copied into the site
        return target
    kind = 'tree' if os.path.isdir(full) else 'blob'
    return '%s/%s/main/%s%s' % (repository.rstrip('/'), kind, resolved, '#' + fragment if fragment else '')


def rewrite(page, text, copied, repository, errors, assets):
    """``text`` with its links rewritten (rewrite_target); fenced code blocks are left as they are."""
    chunks = [[]]
    fenced = [False]
    fence = None
    for line in text.splitlines(True):
        marker = FENCE.match(line)
        if fence is None and marker:
            fence = marker.group(1)
            chunks.append([line])
            fenced.append(True)
        elif fence is not None:
            chunks[-1].append(line)
            if marker and marker.group(1) == fence:
                fence = None
                chunks.append([])
                fenced.append(False)
        else:
            chunks[-1].append(line)

    def fix(match):
        return match.group(1) + rewrite_target(page, match.group(2), copied, repository, errors, assets) + match.group(3)
    out = []
    for lines, is_code in zip(chunks, fenced):
        chunk = ''.join(lines)
        if not is_code:
            chunk = REFDEF.sub(fix, INLINE.sub(fix, chunk))
        out.append(chunk)
    return ''.join(out)


def toctree(caption, entries, maxdepth=1):
    lines = ['.. toctree::', '   :maxdepth: %d' % maxdepth, '   :caption: %s' % caption, '']
    return '\n'.join(lines + ['   ' + e for e in entries]) + '\n\n'


def main(source):
    with open(os.path.join(ROOT, 'galaxy.yml'), encoding='utf-8') as handle:
        galaxy = yaml.safe_load(handle)
    user, developer = pages()
    copied = set(user + developer)
    errors = []
    assets = set()
    for page in user + developer:
        with open(os.path.join(ROOT, page), encoding='utf-8') as handle:
            text = rewrite(page, handle.read(), copied, galaxy['repository'], errors, assets)
        dest = os.path.join(source, page)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, 'w', encoding='utf-8') as handle:
            handle.write(text)
    if errors:
        sys.exit('broken links in the documentation pages:\n  ' + '\n  '.join(errors))
    for asset in sorted(assets):
        os.makedirs(os.path.join(source, os.path.dirname(asset)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, asset), os.path.join(source, asset))
    title = '%s.%s %s' % (galaxy['namespace'], galaxy['name'], galaxy['version'])
    index = ['.. _docsite_root_index:', '', title, '=' * len(title), '', ' '.join(galaxy['description'].split()), '',
             'The reference (every module, role entry point and filter) is rendered from the documentation the '
             'collection ships, the same text ``ansible-doc`` shows; the guides are the Markdown pages of the '
             'repository.', '', '']
    text = '\n'.join(index)
    text += toctree('Guides', [posixpath.splitext(p)[0] for p in user])
    text += toctree('Reference', ['collections/index'], maxdepth=2)
    text += '.. toctree::\n   :maxdepth: 1\n   :caption: Plugin indexes:\n   :glob:\n\n   collections/index_*\n\n'
    text += toctree('Reference indexes', ['collections/environment_variables'])
    text += toctree('Developer guide', [posixpath.splitext(p)[0] for p in developer])
    with open(os.path.join(source, 'index.rst'), 'w', encoding='utf-8') as handle:
        handle.write(text)
    print('docs site: %d guide pages, %d developer pages, %d files beside them' % (len(user), len(developer),
                                                                                   len(assets)))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
