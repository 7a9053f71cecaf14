#!/bin/sh
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Start/stop a private containerd for the tests: its own gRPC address, root and state under DIR, not systemd,
# nothing shared with a containerd the host may run (not even /run: see below). Used as containerd_nri_verify's restart_command.
#   containerd-sandbox.sh start DIR BINARY CONFIG
#   containerd-sandbox.sh stop DIR
set -eu
cmd=$1
dir=$2

stop() {
  [ -f "$dir/containerd.pid" ] || return 0
  pid=$(cat "$dir/containerd.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    i=0
    while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/containerd.pid"
}

case "$cmd" in
  stop)
    stop
    ;;
  start)
    stop
    binary=$3
    config=$4
    echo "=== $(date -u +%FT%TZ) starting $binary --config $config" >>"$dir/containerd.log"
    # containerd 2.x creates /run/containerd whatever its config says: give it a private /run (a mount
    # namespace of its own, with DIR/run bound over /run) so the host's /run stays untouched.
    mkdir -p "$dir/run"
    # shellcheck disable=SC2016  # $1 and $@ are expanded by the inner sh, on purpose
    setsid unshare --mount --propagation private sh -c 'mount --bind "$1/run" /run && shift && exec "$@"' \
      sandbox "$dir" "$binary" --config "$config" --address "$dir/containerd.sock" --root "$dir/root" \
      --state "$dir/state" >>"$dir/containerd.log" 2>&1 </dev/null &
    echo $! >"$dir/containerd.pid"
    ;;
  *)
    echo "usage: $0 start DIR BINARY CONFIG | stop DIR" >&2
    exit 2
    ;;
esac
