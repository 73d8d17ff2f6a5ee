#!/usr/bin/env bash
# Stops the TiDB server start.sh started: stop.sh PID (empty: nothing to stop).
set -euo pipefail
pid="${1:-}"
[[ -z "$pid" ]] && exit 0
kill "$pid" 2>/dev/null || exit 0
for _ in $(seq 1 40); do
  kill -0 "$pid" 2>/dev/null || exit 0
  sleep 0.25
done
kill -9 "$pid" 2>/dev/null || true
