#!/usr/bin/env bash
# Build (or reuse) the upstream Go programs the tests run. See scripts/upstream.py for the commands.
exec "${PYTHON:-python3}" "$(dirname "$0")/upstream.py" "$@"
