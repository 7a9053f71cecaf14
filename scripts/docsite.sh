#!/usr/bin/env bash
# The documentation site of numaops.colocation: antsibull-docs renders every module, role (each entry point) and
# filter from the collection's own documentation, the Markdown pages (README.md, DEVELOPERS.md, docs/*.md,
# docs/developer/*.md) join them through myst-parser, and Sphinx builds the HTML.
#
#   scripts/docsite.sh            build into $NUMAOPS_DOCSITE (default tests/output/docsite): html/index.html
#   scripts/docsite.sh --check    build, then open every page in a real headless Chromium (tests/docsite/check_site.py):
#                                 each module, role entry point and filter renders, every internal link and anchor
#                                 resolves; a screenshot of every page goes to $NUMAOPS_DOCSITE/screenshots/
#
# Offline: nothing is fetched (no intersphinx inventories). Warnings are errors (sphinx-build -W), and
# antsibull-docs fails on any documentation it cannot parse (--fail-on-error).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$NUMAOPS_ROOT"

CHECK=0
[ "${1:-}" != --check ] || CHECK=1
OUT=${NUMAOPS_DOCSITE:-$NUMAOPS_ROOT/tests/output/docsite}
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
[ -n "${VIRTUAL_ENV:-}" ] || ensure_venv
VERSION=$(sed -n 's/^version: *//p' galaxy.yml)
HOMEPAGE=$(sed -n 's/^homepage: *//p' galaxy.yml)

LINK_TOP=$(make_collection_link)
trap 'rm -rf "$LINK_TOP"' EXIT
export ANSIBLE_COLLECTIONS_PATH="$LINK_TOP"

log "antsibull-docs: the Sphinx configuration and the pages of numaops.colocation $VERSION"
rm -rf "$OUT"
mkdir -p "$OUT/src"
quiet antsibull-docs sphinx-init --use-current --dest-dir "$OUT/src" --fail-on-error --no-add-antsibull-docs-version \
  --project numaops.colocation --copyright 'numaops.colocation contributors' \
  --title "numaops.colocation $VERSION" --html-short-title "numaops.colocation $VERSION" \
  --extra-html-theme-options "documentation_home_url=$HOMEPAGE" numaops.colocation
# offline, and Markdown pages beside the generated reStructuredText
cat >>"$OUT/src/conf.py" <<EOF

# added by scripts/docsite.sh: nothing is fetched (references to docs.ansible.com and to other collections are
# resolved by scripts/docsite_offline_refs.py); the Markdown pages of the repository are read by myst-parser
import sys
sys.path.insert(0, '$NUMAOPS_ROOT/scripts')
intersphinx_mapping = {}
extensions += ['myst_parser', 'docsite_offline_refs']
source_suffix = {'.rst': 'restructuredtext', '.md': 'markdown'}
html_theme_options['topbar_links'] = {'Repository': '$HOMEPAGE', 'Issues': '$(sed -n 's/^issues: *//p' galaxy.yml)'}
myst_heading_anchors = 4
myst_enable_extensions = ['colon_fence']
EOF
mkdir -p "$OUT/src/rst"
chmod og-w "$OUT/src/rst"   # antsibull-docs wants that directory only writable by itself
antsibull-docs --config-file "$OUT/src/antsibull-docs.cfg" collection --use-current --fail-on-error \
  --no-add-antsibull-docs-version --cleanup everything --dest-dir "$OUT/src/rst" numaops.colocation
python3 scripts/docsite_pages.py "$OUT/src/rst"

log "sphinx-build (warnings are errors)"
sphinx-build -q -W --keep-going -b html -c "$OUT/src" -d "$OUT/doctrees" "$OUT/src/rst" "$OUT/html"
log "docs site: $OUT/html/index.html"

if [ "$CHECK" = 1 ]; then
  log "every page in a real headless Chromium (tests/docsite/check_site.py)"
  python3 tests/docsite/check_site.py --site "$OUT/html" --screenshots "$OUT/screenshots" --root "$NUMAOPS_ROOT"
fi
