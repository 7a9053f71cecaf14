#!/usr/bin/env bash
# The main job on the embedded sandbox node (the README's first command).
#
#   scripts/sandbox.sh
#
# On a fresh Debian/Ubuntu with Python 3.11: makes a virtual environment with only what running the collection
# needs (ansible-core, the kubernetes.core collection of the same ansible release as the test suite's, and
# requirements.txt) at $NUMAOPS_SANDBOX_VENV (default ~/.cache/numaops-colocation/sandbox-venv; python3-venv is
# installed from Debian when missing), copies the node tree examples/sandbox/tree/ to $NUMAOPS_SANDBOX/tree
# (default /tmp/numaops-sandbox, recreated each time), runs playbooks/node_prep.yml against it with --diff, then
# runs it again and fails unless the second run reports changed=0. Nothing outside $NUMAOPS_SANDBOX is changed;
# no service is restarted (the output says so). The test tools stay with scripts/test.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$NUMAOPS_ROOT"

export NUMAOPS_SANDBOX=${NUMAOPS_SANDBOX:-/tmp/numaops-sandbox}
SANDBOX_VENV=${NUMAOPS_SANDBOX_VENV:-$NUMAOPS_CACHE/sandbox-venv}
case "$NUMAOPS_SANDBOX" in
  /|/tmp|/tmp/|"$HOME"|"") die "NUMAOPS_SANDBOX=$NUMAOPS_SANDBOX is not a scratch directory" ;;
esac
if [ -e "$NUMAOPS_SANDBOX" ] && [ ! -e "$NUMAOPS_SANDBOX/.numaops-sandbox" ]; then
  die "$NUMAOPS_SANDBOX exists and is not a sandbox made by this script; remove it or set NUMAOPS_SANDBOX"
fi

# The ansible release is the test suite's (tests/requirements-dev.txt), so both run the same ansible-core.
ANSIBLE_RELEASE=$(sed -n 's/^ansible==\([0-9][0-9.]*\)[[:space:]]*$/\1/p' tests/requirements-dev.txt)
[ -n "$ANSIBLE_RELEASE" ] || die "tests/requirements-dev.txt pins no ansible release (a line ansible==X.Y.Z)"

# ansible-core as the ansible release requires it, and of the release's collections only kubernetes.core (the
# roles' API tasks; the collection's one dependency), taken from the release's wheel on PyPI: about a third of
# the size and time of the whole ansible package. No .pyc compiled at install: Python compiles what it imports.
ensure_sandbox_venv() {
  local stamp="$SANDBOX_VENV/.sandbox.sha256" want wheels core
  want=$( (echo "ansible==$ANSIBLE_RELEASE kubernetes.core"; cat requirements.txt) | sha256sum | cut -d' ' -f1)
  if [ -x "$SANDBOX_VENV/bin/ansible-playbook" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || {
    log "installing python3-venv (Debian's python3 keeps venv and ensurepip apart)"
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends python3-venv >/dev/null
  }
  log "creating the sandbox's virtual environment $SANDBOX_VENV (ansible-core of ansible $ANSIBLE_RELEASE, kubernetes.core, requirements.txt)"
  rm -rf "$SANDBOX_VENV"
  "$PYTHON" -m venv "$SANDBOX_VENV"
  wheels=$(mktemp -d "${TMPDIR:-/tmp}/numaops-wheel.XXXXXX")
  quiet "$SANDBOX_VENV/bin/pip" download -q --disable-pip-version-check --no-deps -d "$wheels" "ansible==$ANSIBLE_RELEASE"
  core=$("$SANDBOX_VENV/bin/python" - "$wheels"/ansible-*.whl "$SANDBOX_VENV/collections" <<'PY'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    meta = next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))
    requires = [line.split(':', 1)[1].strip() for line in z.read(meta).decode().splitlines()
                if line.startswith('Requires-Dist:') and line.split(':', 1)[1].strip().startswith('ansible-core')]
    members = [n for n in z.namelist() if n.startswith('ansible_collections/kubernetes/core/')]
    if not requires or not members:
        sys.exit('%s: no ansible-core requirement or no kubernetes.core collection in it' % wheel)
    z.extractall(dest, members)
print(requires[0].split(';')[0].replace(' ', '').replace('(', '').replace(')', ''))
PY
)
  rm -rf "$wheels"
  quiet "$SANDBOX_VENV/bin/pip" install -q --disable-pip-version-check --no-compile "$core" -r requirements.txt
  "$SANDBOX_VENV/bin/ansible-playbook" --version >/dev/null || die "the sandbox's virtual environment is incomplete"
  echo "$want" > "$stamp"
}

ensure_sandbox_venv
export PATH="$SANDBOX_VENV/bin:$PATH"

log "fresh copy of examples/sandbox/tree in $NUMAOPS_SANDBOX/tree"
rm -rf "$NUMAOPS_SANDBOX"
mkdir -p "$NUMAOPS_SANDBOX"
touch "$NUMAOPS_SANDBOX/.numaops-sandbox"
cp -a examples/sandbox/tree "$NUMAOPS_SANDBOX/tree"

LINK_TOP=$(make_collection_link)
trap 'rm -rf "$LINK_TOP"' EXIT
export ANSIBLE_COLLECTIONS_PATH="$LINK_TOP:$SANDBOX_VENV/collections"
export ANSIBLE_FORCE_COLOR=${ANSIBLE_FORCE_COLOR:-1}
# the default output, but a failure printed once with its cause first (examples/sandbox/callback_plugins)
export ANSIBLE_CALLBACK_PLUGINS="$NUMAOPS_ROOT/examples/sandbox/callback_plugins"
export ANSIBLE_STDOUT_CALLBACK=sandbox_output
PLAY=(ansible-playbook -i examples/sandbox/inventory.yml playbooks/node_prep.yml)

plain() { sed -e 's/\x1b\[[0-9;]*m//g' "$1"; }
# The recap line of the sandbox host: "sandbox-node-1 : ok=N changed=N unreachable=0 failed=0 ..."
recap() { plain "$1" | sed -n "s/^sandbox-node-1 *:.* $2=\([0-9]*\).*/\1/p" | tail -1; }
# The task of the first failure (its message is on its "fatal:" line, printed once by the sandbox_output callback).
first_failure() { plain "$1" | awk '/^TASK \[/ { task = $0 } /^fatal: / { sub(/^TASK \[/, "", task); sub(/\] \**$/, "", task); print task; exit }'; }

run() {
  local which=$1 log="$NUMAOPS_SANDBOX/$1-run.log" rc=0
  "${PLAY[@]}" --diff 2>&1 | tee "$log" || rc=$?
  if [ "$rc" -ne 0 ] || [ "$(recap "$log" failed)" != 0 ]; then
    die "the $which run failed; the cause is the first \"fatal:\" line above, in the task \"$(first_failure "$log")\" (whole output: $log)"
  fi
}

log "first run: ${PLAY[*]} --diff"
run first
first=$(recap "$NUMAOPS_SANDBOX/first-run.log" changed)
if [ -z "$first" ] || [ "$first" -eq 0 ]; then
  die "the first run changed nothing on a fresh copy of the tree (changed=${first:-?})"
fi

log "second run: must report changed=0"
run second
second=$(recap "$NUMAOPS_SANDBOX/second-run.log" changed)
[ "$second" = 0 ] || die "NOT IDEMPOTENT: the second run reported changed=${second:-?} (log: $NUMAOPS_SANDBOX/second-run.log)"

log "sandbox OK: first run changed=$first, second run changed=0; the changed node files are in $NUMAOPS_SANDBOX/tree (backups in $NUMAOPS_SANDBOX/tree/var/backups/numaops-colocation)"
