#!/bin/sh
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Debian's containerd from another release (trixie: 1.7.x, sid: 2.x), fetched with apt-get from
# deb.debian.org into a cache directory outside the repository and extracted there - never installed.
# The host's apt configuration is not touched (private source list, lists and cache directories).
#   fetch-containerd.sh SUITE CACHE_DIR   -> prints the directory holding containerd and ctr
set -eu
suite=$1
cache=$2/$suite
bin=$cache/root/usr/bin
if [ -x "$bin/containerd" ]; then echo "$bin"; exit 0; fi
mkdir -p "$cache/lists/partial" "$cache/archives/partial" "$cache/debs"
# one fetch per suite at a time (test stages run side by side): a second caller waits, then takes what the first fetched
exec 9>"$cache/fetch.lock"
flock 9
if [ -x "$bin/containerd" ]; then echo "$bin"; exit 0; fi
echo "deb http://deb.debian.org/debian $suite main" >"$cache/sources.list"
set -- -o Dir::Etc::sourcelist="$cache/sources.list" -o Dir::Etc::sourceparts=/nonexistent \
  -o Dir::State::Lists="$cache/lists" -o Dir::Cache="$cache" -o Dir::Cache::archives="$cache/archives" \
  -o APT::Sandbox::User=root
apt-get -qq "$@" update >&2
(cd "$cache/debs" && apt-get -qq "$@" download containerd >&2)
rm -rf "$cache/root.new"
dpkg-deb -x "$cache"/debs/containerd_*.deb "$cache/root.new"
rm -rf "$cache/root"
mv "$cache/root.new" "$cache/root"
"$bin/containerd" --version >&2
echo "$bin"
