#!/usr/bin/env bash
# A release of numaops.colocation (the version of galaxy.yml) and the check of its artifact.
#
#   scripts/release.sh changelog [--commit]
#       antsibull-changelog lint, then antsibull-changelog release: CHANGELOG.md and changelogs/changelog.yaml get
#       the release of galaxy.yml's version, and the fragments under changelogs/fragments/ are consumed (removed).
#       One of them must carry the release_summary. With --commit, exactly those changes are committed.
#   scripts/release.sh check
#       ansible-galaxy collection build, then the tarball installed into a clean environment - a virtual
#       environment of its own with only ansible and the collection's requirements.txt, and a collections
#       directory with nothing but the tarball - and the sandbox node (examples/sandbox, as scripts/sandbox.sh
#       runs it) prepared by the INSTALLED collection's playbook numaops.colocation.node_prep, twice: the first
#       run must change the node, the second must report changed=0. This is the `release` stage of scripts/test.sh.
#
# The clean environment is cached in $NUMAOPS_CACHE/release-venv and made again when requirements.txt or the
# ansible version of tests/requirements-dev.txt changes; the collection is installed afresh on every run.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$NUMAOPS_ROOT"

VERSION=$(sed -n 's/^version: *//p' galaxy.yml)

release_changelog() {
  local commit=0
  [ "${1:-}" != --commit ] || commit=1
  [ -n "${VIRTUAL_ENV:-}" ] || ensure_venv
  if [ "$commit" = 1 ] && [ -n "$(git status --porcelain -- changelogs CHANGELOG.md)" ]; then
    die "changelogs/ or CHANGELOG.md has uncommitted changes; commit or remove them first (git status)"
  fi
  grep -lq '^release_summary:' changelogs/fragments/*.yml 2>/dev/null \
    || die "no fragment under changelogs/fragments/ has a release_summary for $VERSION"
  if python3 -c 'import sys, yaml; sys.exit(0 if sys.argv[1] in (yaml.safe_load(open("changelogs/changelog.yaml"))["releases"] or {}) else 1)' "$VERSION"; then
    die "changelogs/changelog.yaml already has release $VERSION; raise version in galaxy.yml first"
  fi
  local link; link=$(make_collection_link)
  # shellcheck disable=SC2064
  trap "rm -rf '$link'" RETURN
  log "antsibull-changelog lint and release $VERSION ($(find changelogs/fragments -name '*.yml' | wc -l) fragments)"
  ANSIBLE_COLLECTIONS_PATH="$link" antsibull-changelog lint
  ANSIBLE_COLLECTIONS_PATH="$link" antsibull-changelog release
  grep -q "^## v${VERSION//./\\\\.}\$" CHANGELOG.md || die "CHANGELOG.md has no section for v$VERSION after the release"
  ! ls changelogs/fragments/*.yml >/dev/null 2>&1 || die "fragments left after the release: $(ls changelogs/fragments/*.yml)"
  rm -f changelogs/.plugin-cache.yaml
  git status --short -- changelogs CHANGELOG.md | sed 's/^/  /'
  if [ "$commit" = 1 ]; then
    git add -A -- changelogs CHANGELOG.md
    git commit -q -m "Release $VERSION: CHANGELOG.md and changelogs/changelog.yaml from the fragments (antsibull-changelog release)"
    log "committed the release $VERSION: $(git log -1 --format='%h %s')"
  else
    log "release $VERSION written (not committed): CHANGELOG.md, changelogs/changelog.yaml, fragments removed"
  fi
}

# A virtual environment with only ansible (the version the tests use) and the collection's requirements.txt.
clean_venv() {
  local venv="$NUMAOPS_CACHE/release-venv" ansible want
  ansible=$(grep -E '^ansible==' tests/requirements-dev.txt) || die "tests/requirements-dev.txt pins no ansible version"
  want=$( (echo "$ansible"; cat requirements.txt) | sha256sum | cut -d' ' -f1)
  if [ ! -x "$venv/bin/ansible-playbook" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
    log "clean environment $venv: $ansible and requirements.txt only" >&2
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    quiet "$venv/bin/pip" install -q --upgrade pip
    quiet "$venv/bin/pip" install -q "$ansible" -r requirements.txt
    echo "$want" > "$venv/.requirements.sha256"
  fi
  echo "$venv"
}

# The recap line of the sandbox host: "sandbox-node-1 : ok=N changed=N unreachable=0 failed=0 ..."
recap() { sed -e 's/\x1b\[[0-9;]*m//g' "$2" | sed -n "s/^sandbox-node-1 *:.* $1=\\([0-9]*\\).*/\\1/p" | tail -1; }

release_check() {
  local venv work coll tarball first second
  venv=$(clean_venv)
  work=$(mktemp -d "${TMPDIR:-/tmp}/numaops-release.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" RETURN
  # nothing of the test environment: its virtual environment, its collection path, its settings
  local run=(env -u VIRTUAL_ENV -u PYTHONPATH -u ANSIBLE_COLLECTIONS_PATH -u ANSIBLE_CONFIG
             PATH="$venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
             ANSIBLE_COLLECTIONS_PATH="$work/collections" ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_FORCE_COLOR=0)
  log "ansible-galaxy collection build ($VERSION), install of the tarball into a clean environment"
  "${run[@]}" ansible-galaxy collection build --output-path "$work" . >/dev/null
  tarball="$work/numaops-colocation-$VERSION.tar.gz"
  [ -f "$tarball" ] || die "ansible-galaxy collection build wrote no $tarball"
  # kubernetes.core (galaxy.yml's dependency) comes with the ansible package; nothing is downloaded
  (cd "$work" && "${run[@]}" ansible-galaxy collection install --offline "$tarball" -p "$work/collections")
  coll="$work/collections/ansible_collections/numaops/colocation"
  "${run[@]}" ansible-galaxy collection list numaops.colocation -p "$work/collections" | grep -q "numaops.colocation *$VERSION" \
    || die "numaops.colocation $VERSION is not listed after the install"
  mkdir -p "$work/sandbox"
  touch "$work/sandbox/.numaops-sandbox"
  cp -a "$coll/examples/sandbox/tree" "$work/sandbox/tree"
  local play=("${run[@]}" NUMAOPS_SANDBOX="$work/sandbox" ansible-playbook -i "$coll/examples/sandbox/inventory.yml"
              numaops.colocation.node_prep --diff)
  log "the installed collection's playbook numaops.colocation.node_prep on the sandbox node: first run"
  (cd "$work" && "${play[@]}") >"$work/first-run.log" 2>&1 || { cat "$work/first-run.log"; die "the first run failed"; }
  first=$(recap changed "$work/first-run.log")
  if [ "$(recap failed "$work/first-run.log")" != 0 ] || [ -z "$first" ] || [ "$first" -eq 0 ]; then
    cat "$work/first-run.log"; die "the first run changed nothing or failed (changed=${first:-?})"
  fi
  grep -E '^sandbox-node-1 *:' "$work/first-run.log"
  log "second run: must report changed=0"
  (cd "$work" && "${play[@]}") >"$work/second-run.log" 2>&1 || { cat "$work/second-run.log"; die "the second run failed"; }
  second=$(recap changed "$work/second-run.log")
  if [ "$(recap failed "$work/second-run.log")" != 0 ] || [ "$second" != 0 ]; then
    cat "$work/second-run.log"; die "NOT IDEMPOTENT from the installed collection: second run changed=${second:-?}"
  fi
  grep -E '^sandbox-node-1 *:' "$work/second-run.log"
  log "release check OK: numaops-colocation-$VERSION.tar.gz installed in a clean environment ($(basename "$venv"): $("$venv/bin/ansible" --version | sed -n 1p)); sandbox first run changed=$first, second run changed=0"
}

case "${1:-}" in
  changelog) shift; release_changelog "$@" ;;
  check) release_check ;;
  *) die "usage: scripts/release.sh changelog [--commit] | check" ;;
esac
