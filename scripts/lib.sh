#!/usr/bin/env bash
# Shared helpers for scripts/sandbox.sh and scripts/test.sh. Sourced, not run.
# Everything here is idempotent: a second call is cheap.

NUMAOPS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NUMAOPS_CACHE=${NUMAOPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/numaops-colocation}
NUMAOPS_VENV=${NUMAOPS_VENV:-$NUMAOPS_CACHE/venv}
PYTHON=${PYTHON:-python3}

log() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Run a command quietly; on failure show its output (minus pip's noise about local index dirs) and stop.
quiet() {
  local out
  if ! out=$("$@" 2>&1); then
    printf '%s\n' "$out" | grep -v '^WARNING: Location' >&2
    die "command failed: $*"
  fi
}

# Debian packages listed in tests/apt-packages.txt (plus any given as arguments), installed when missing.
ensure_apt() {
  local want=() missing=() p
  mapfile -t want < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$NUMAOPS_ROOT/tests/apt-packages.txt")
  want+=("$@")
  # Debian's own python3 keeps venv/ensurepip in a separate package
  "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || want+=(python3-venv)
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The process holding the package manager's lock (apt, dpkg, unattended-upgrades), or nothing.
apt_lock_holder() {
  local f ino
  for f in /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock; do
    [ -e "$f" ] || continue
    ino=$(stat -c %i "$f")
    # /proc/locks: "1: POSIX  ADVISORY  WRITE <pid> <maj>:<min>:<inode> 0 EOF" (waiters have "->" in field 2)
    awk -v ino="$ino" '$2 != "->" { n = split($6, a, ":"); if (a[n] == ino) print $5 }' /proc/locks 2>/dev/null
  done | head -1
}

# apt-get as root, waiting (NUMAOPS_APT_LOCK_WAIT seconds, default 600) for another package manager's lock and
# saying which process holds it, instead of failing at once with apt's own message.
apt_get() {
  local sudo=() holder waited=0 limit=${NUMAOPS_APT_LOCK_WAIT:-600} what
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  while holder=$(apt_lock_holder) && [ -n "$holder" ]; do
    what="process $holder ($(ps -o args= -p "$holder" 2>/dev/null | cut -c1-120))"
    [ "$waited" -lt "$limit" ] || die "the package manager is still locked by $what after ${limit} s: let it finish \
(or stop it), then run this again; NUMAOPS_APT_LOCK_WAIT sets how long to wait"
    [ "$waited" -gt 0 ] || printf 'waiting for the package manager: %s holds its lock (up to %s s)\n' "$what" "$limit" >&2
    sleep 5; waited=$((waited + 5))
  done
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$limit" "$@"
}

# The virtual environment with ansible 12.3.0 and the test tools; recreated when the requirements change.
ensure_venv() {
  local stamp="$NUMAOPS_VENV/.requirements.sha256" want
  want=$(cat "$NUMAOPS_ROOT/tests/requirements-dev.txt" "$NUMAOPS_ROOT/requirements.txt" | sha256sum | cut -d' ' -f1)
  if [ ! -x "$NUMAOPS_VENV/bin/ansible-playbook" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "creating virtual environment $NUMAOPS_VENV"
    "$PYTHON" -m venv "$NUMAOPS_VENV"
    quiet "$NUMAOPS_VENV/bin/pip" install -q --upgrade pip
    quiet "$NUMAOPS_VENV/bin/pip" install -q -r "$NUMAOPS_ROOT/tests/requirements-dev.txt"
    "$NUMAOPS_VENV/bin/ansible-playbook" --version >/dev/null || die "virtual environment is incomplete"
    echo "$want" > "$stamp"
  fi
  export PATH="$NUMAOPS_VENV/bin:$PATH"
  export VIRTUAL_ENV="$NUMAOPS_VENV"
}

# ansible-test bootstraps pip in its virtual environments with a get-pip script it downloads from
# ci-files.testing.ansible.com, which is not reachable offline. This stand-in, placed where
# ansible-test caches that download, does the same job with what Python ships: ensurepip, then
# `pip install` of the packages ansible-test asked for.
ensure_get_pip_standin() {
  local version cache
  for version in $("$NUMAOPS_VENV/bin/python" "$NUMAOPS_ROOT/scripts/ansible_test_pip_version.py"); do
    cache="$HOME/.ansible/test/cache/get_pip_${version//./_}.py"
    mkdir -p "$(dirname "$cache")"
    cmp -s "$NUMAOPS_ROOT/scripts/get_pip_standin.py" "$cache" || cp "$NUMAOPS_ROOT/scripts/get_pip_standin.py" "$cache"
  done
}

# A temporary ansible_collections/numaops/colocation tree. ansible-test needs the physical path to end
# in ansible_collections/<ns>/<name>, so the files git knows about (tracked or new, not ignored) are copied.
make_collection_tree() {
  local top; top=$(mktemp -d "${TMPDIR:-/tmp}/numaops-coll.XXXXXX")
  local dest="$top/ansible_collections/numaops/colocation"
  mkdir -p "$dest"
  (cd "$NUMAOPS_ROOT" && git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | rsync -a --from0 --files-from=- ./ "$dest/")
  echo "$dest"
}

# A symlinked collection path for ansible-playbook / molecule runs against the working tree.
make_collection_link() {
  local top; top=$(mktemp -d "${TMPDIR:-/tmp}/numaops-link.XXXXXX")
  mkdir -p "$top/ansible_collections/numaops"
  ln -s "$NUMAOPS_ROOT" "$top/ansible_collections/numaops/colocation"
  echo "$top"
}
