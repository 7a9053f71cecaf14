# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The built docs site (scripts/docsite.sh) in a real headless Chromium (Debian's chromium, driven through its
chromedriver over the WebDriver protocol, one browser for every page):

- every page of the site loads and has its title;
- every module, every role and every filter of the collection (as ansible-doc lists them) has its page, and the
  page Chromium built shows the plugin's title and an anchor for each of its options (of each role entry point),
  and for each top-level return value of a module;
- every link of every page that points into the site names an existing file, and its #fragment an element of that
  page; a link to a file of the repository on the web (galaxy.yml's repository, branch main) names a file that
  exists in the repository;
- a screenshot of every page is written (PNG, 1280x1400), for a person to look at.

Fails (never skips) when chromium or chromedriver is missing: they are Debian packages of tests/apt-packages.txt.

    python3 tests/docsite/check_site.py --site DIR/html --screenshots DIR/screenshots --root REPOSITORY
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml

FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync']
COLLECTION = 'numaops.colocation'
PAGE_SCRIPT = """
return {
  title: document.title,
  h1: Array.from(document.querySelectorAll('h1')).map(e => e.textContent),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
  links: Array.from(document.querySelectorAll('a[href]')).map(e => e.href),
  images: Array.from(document.images).map(e => [e.src, e.complete && e.naturalWidth > 0]),
  text: document.body ? document.body.innerText.length : 0,
  stylesheets: document.styleSheets.length,
};
"""


def which(*names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    sys.exit('%s is not installed: the docs site is checked in a real browser. Install the Debian packages chromium '
             'and chromium-driver (tests/apt-packages.txt; scripts/lib.sh ensure_apt).' % ' / '.join(names))


class WebDriver:
    """The few WebDriver commands this check needs, over HTTP with the standard library."""

    def __init__(self, profile):
        sock = socket.socket()
        sock.bind(('127.0.0.1', 0))
        self.port = sock.getsockname()[1]
        sock.close()
        self.log = open(os.path.join(profile, 'chromedriver.log'), 'w')
        self.proc = subprocess.Popen([which('chromedriver'), '--port=%d' % self.port], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while True:
            try:
                self.call('GET', '/status')
                break
            except (urllib.error.URLError, ConnectionError):
                if time.time() > deadline or self.proc.poll() is not None:
                    raise RuntimeError('chromedriver did not start (log: %s)' % self.log.name)
                time.sleep(0.2)
        options = {'binary': which('chromium', 'chromium-browser'),
                   'args': FLAGS + ['--user-data-dir=%s' % os.path.join(profile, 'chromium'), '--hide-scrollbars']}
        session = self.call('POST', '/session', {'capabilities': {'alwaysMatch': {
            'browserName': 'chrome', 'goog:chromeOptions': options}}})
        self.session = '/session/%s' % session['sessionId']
        self.call('POST', self.session + '/window/rect', {'width': 1280, 'height': 1400})

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request('http://127.0.0.1:%d%s' % (self.port, path), data=data, method=method,
                                         headers={'Content-Type': 'application/json'})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read().decode()).get('value')
        except urllib.error.HTTPError as error:
            raise RuntimeError('WebDriver %s %s: %s' % (method, path, error.read().decode(errors='replace')[:2000]))

    def page(self, url, screenshot):
        self.call('POST', self.session + '/url', {'url': url})
        info = self.call('POST', self.session + '/execute/sync', {'script': PAGE_SCRIPT, 'args': []})
        with open(screenshot, 'wb') as handle:
            handle.write(base64.b64decode(self.call('GET', self.session + '/screenshot')))
        return info

    def close(self):
        try:
            if getattr(self, 'session', None):
                self.call('DELETE', self.session)
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.log.close()


def plugins(kind):
    out = subprocess.run(['ansible-doc', '--list', '--json', '-t', kind, COLLECTION], check=True,
                         stdout=subprocess.PIPE).stdout
    return sorted(name.split('.')[-1] for name in json.loads(out))


def docs(kind, names):
    out = subprocess.run(['ansible-doc', '--json', '-t', kind] + ['%s.%s' % (COLLECTION, n) for n in names],
                         check=True, stdout=subprocess.PIPE).stdout
    return dict((name.split('.')[-1], value) for name, value in json.loads(out).items())


def expected_pages(root):
    """{page path: (title start, [ids that must be there])} of every module, role and filter."""
    pages = {}
    modules = plugins('module')
    for name, doc in docs('module', modules).items():
        ids = ['parameter-%s' % o for o in (doc['doc'].get('options') or {})]
        ids += ['return-%s' % r for r in (doc.get('return') or {})]
        pages['collections/numaops/colocation/%s_module.html' % name] = ('%s.%s module' % (COLLECTION, name), ids)
    for name in plugins('filter'):
        pages['collections/numaops/colocation/%s_filter.html' % name] = ('%s.%s filter' % (COLLECTION, name), [])
    for name, doc in docs('filter', plugins('filter')).items():
        pages['collections/numaops/colocation/%s_filter.html' % name][1].extend(
            'parameter-%s' % o for o in (doc['doc'].get('options') or {}))
    for name in plugins('role'):
        with open(os.path.join(root, 'roles', name, 'meta', 'argument_specs.yml'), encoding='utf-8') as handle:
            specs = yaml.safe_load(handle)['argument_specs']
        ids = []
        for entry_point, spec in specs.items():
            ids.append('ansible-collections-numaops-colocation-%s-role-entrypoint-%s'
                       % (name.replace('_', '-'), entry_point.replace('_', '-')))
            ids += ['parameter-%s--%s' % (entry_point, o) for o in (spec.get('options') or {})]
        pages['collections/numaops/colocation/%s_role.html' % name] = ('%s.%s role' % (COLLECTION, name), ids)
    return pages, len(modules)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--site', required=True)
    parser.add_argument('--screenshots', required=True)
    parser.add_argument('--root', required=True)
    args = parser.parse_args()
    site = os.path.realpath(args.site)
    with open(os.path.join(args.root, 'galaxy.yml'), encoding='utf-8') as handle:
        repository = yaml.safe_load(handle)['repository'].rstrip('/') + '/'
    expected, module_count = expected_pages(args.root)
    html = sorted(os.path.relpath(os.path.join(d, f), site) for d, _dirs, files in os.walk(site) for f in files
                  if f.endswith('.html') and not os.path.relpath(d, site).startswith(('_static', '_sources')))
    errors = ['%s: no page for %s' % (page, title) for page, (title, _ids) in sorted(expected.items())
              if page not in html]
    os.makedirs(args.screenshots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix='numaops-docsite-chromium.')
    seen = {}
    started = time.time()
    driver = WebDriver(profile)
    try:
        for page in html:
            url = 'file://' + urllib.parse.quote(os.path.join(site, page))
            shot = os.path.join(args.screenshots, page.replace('/', '__')[:-len('.html')] + '.png')
            seen[page] = driver.page(url, shot)
    finally:
        driver.close()
        shutil.rmtree(profile, ignore_errors=True)
    elapsed = time.time() - started
    external = set()
    for page, info in sorted(seen.items()):
        if not info['title'] or not info['h1'] and page not in ('search.html', 'genindex.html'):
            errors.append('%s: no title or heading in what Chromium shows' % page)
        if info['text'] < 200 or not info['stylesheets']:
            errors.append('%s: nearly empty (%d characters) or without its stylesheet' % (page, info['text']))
        for src, loaded in info['images']:
            if not loaded:
                errors.append('%s: the image %s did not load' % (page, src))
        if page in expected:
            title, ids = expected[page]
            if not any(h.startswith(title) for h in info['h1']):
                errors.append('%s: the heading is %r, not %r' % (page, info['h1'], title))
            # a facts module's page shows ansible_facts through its entries (return-ansible_facts/<fact>)
            missing = [i for i in ids if i not in info['ids'] and not any(j.startswith(i + '/') for j in info['ids'])]
            if missing:
                errors.append('%s: no anchor %s (an option, entry point or return value the documentation has)'
                              % (page, ', '.join(missing)))
        for link in info['links']:
            parsed = urllib.parse.urlparse(link)
            if parsed.scheme == 'file':
                target = os.path.realpath(urllib.parse.unquote(parsed.path))
                rel = os.path.relpath(target, site)
                if not os.path.exists(target) or rel.startswith('..'):
                    errors.append('%s: broken link %s' % (page, link))
                elif parsed.fragment and rel in seen and urllib.parse.unquote(parsed.fragment) not in seen[rel]['ids']:
                    errors.append('%s: link %s: no element #%s on %s' % (page, link, parsed.fragment, rel))
            elif link.startswith((repository + 'blob/', repository + 'tree/')):
                path = link[len(repository):].split('#')[0]
                kind, _sep, path = path.partition('/main/')
                if kind not in ('blob', 'tree') or not os.path.exists(os.path.join(args.root, urllib.parse.unquote(path))):
                    errors.append('%s: link %s names no file of the repository' % (page, link))
            elif parsed.scheme in ('http', 'https'):
                external.add(link)
    print('docs site in Chromium: %d pages (%d modules, %d roles, %d filters checked for their options), %d links '
          'to other sites (not fetched: offline), %d screenshots in %s, %.1f s'
          % (len(seen), module_count, sum(p.endswith('_role.html') for p in expected),
             sum(p.endswith('_filter.html') for p in expected), len(external), len(seen), args.screenshots, elapsed))
    if errors:
        print('\n'.join(['docs site check FAILED:'] + ['  ' + e for e in errors]), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
