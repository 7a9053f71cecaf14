#!/usr/bin/env bash
# The main job on the embedded sandbox node (README's first set-up command).
#
#   scripts/sandbox.sh
#
# On a fresh Debian/Ubuntu with Python 3.11: installs what is needed (Debian packages from
# tests/apt-packages.txt, a virtual environment with ansible under ~/.cache/numaops-colocation/), copies the
# node tree examples/sandbox/tree/ to $NUMAOPS_SANDBOX/tree (default /tmp/numaops-sandbox, recreated each
# time), runs playbooks/node_prep.yml against it with --diff, then runs it again and fails unless the second
# run reports changed=0. Nothing outside $NUMAOPS_SANDBOX is changed; no service is restarted (the output says so).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$NUMAOPS_ROOT"

export NUMAOPS_SANDBOX=${NUMAOPS_SANDBOX:-/tmp/numaops-sandbox}
case "$NUMAOPS_SANDBOX" in
  /|/tmp|/tmp/|"$HOME"|"") die "NUMAOPS_SANDBOX=$NUMAOPS_SANDBOX is not a scratch directory" ;;
esac
if [ -e "$NUMAOPS_SANDBOX" ] && [ ! -e "$NUMAOPS_SANDBOX/.numaops-sandbox" ]; then
  die "$NUMAOPS_SANDBOX exists and is not a sandbox made by this script; remove it or set NUMAOPS_SANDBOX"
fi

ensure_apt
ensure_venv

log "fresh copy of examples/sandbox/tree in $NUMAOPS_SANDBOX/tree"
rm -rf "$NUMAOPS_SANDBOX"
mkdir -p "$NUMAOPS_SANDBOX"
touch "$NUMAOPS_SANDBOX/.numaops-sandbox"
cp -a examples/sandbox/tree "$NUMAOPS_SANDBOX/tree"

LINK_TOP=$(make_collection_link)
trap 'rm -rf "$LINK_TOP"' EXIT
export ANSIBLE_COLLECTIONS_PATH="$LINK_TOP"
export ANSIBLE_FORCE_COLOR=${ANSIBLE_FORCE_COLOR:-1}
PLAY=(ansible-playbook -i examples/sandbox/inventory.yml playbooks/node_prep.yml)

# The recap line of the sandbox host: "sandbox-node-1 : ok=N changed=N unreachable=0 failed=0 ..."
changed_count() { sed -e 's/\x1b\[[0-9;]*m//g' "$1" | sed -n 's/^sandbox-node-1 *:.* changed=\([0-9]*\).*/\1/p' | tail -1; }
failed_count() { sed -e 's/\x1b\[[0-9;]*m//g' "$1" | sed -n 's/^sandbox-node-1 *:.* failed=\([0-9]*\).*/\1/p' | tail -1; }

log "first run: ${PLAY[*]} --diff"
"${PLAY[@]}" --diff | tee "$NUMAOPS_SANDBOX/first-run.log"
first=$(changed_count "$NUMAOPS_SANDBOX/first-run.log")
[ "$(failed_count "$NUMAOPS_SANDBOX/first-run.log")" = 0 ] || die "the first run failed (log: $NUMAOPS_SANDBOX/first-run.log)"
if [ -z "$first" ] || [ "$first" -eq 0 ]; then
  die "the first run changed nothing on a fresh copy of the tree (changed=${first:-?})"
fi

log "second run: must report changed=0"
"${PLAY[@]}" --diff | tee "$NUMAOPS_SANDBOX/second-run.log"
second=$(changed_count "$NUMAOPS_SANDBOX/second-run.log")
[ "$(failed_count "$NUMAOPS_SANDBOX/second-run.log")" = 0 ] || die "the second run failed (log: $NUMAOPS_SANDBOX/second-run.log)"
[ "$second" = 0 ] || die "NOT IDEMPOTENT: the second run reported changed=${second:-?} (log: $NUMAOPS_SANDBOX/second-run.log)"

log "sandbox OK: first run changed=$first, second run changed=0; the changed node files are in $NUMAOPS_SANDBOX/tree (backups in $NUMAOPS_SANDBOX/tree/var/backups/numaops-colocation)"
