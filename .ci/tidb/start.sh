#!/usr/bin/env bash
# Starts a TiDB server for tests (building it first if needed, see build.sh)
# with its embedded storage, in memory, and waits until it answers. Prints
#   TIDB_TEST_DSN=root@tcp(127.0.0.1:PORT)/
#   TIDB_PID=PID
# for `eval`; stop it with `kill $TIDB_PID` (stop.sh). When a TiDB already
# answers on the port, it is reused and TIDB_PID is empty: it is not ours to stop.
# TIDB_PORT (4000) and TIDB_STATUS_PORT (10080) choose the ports.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
port="${TIDB_PORT:-4000}"
status="${TIDB_STATUS_PORT:-10080}"

answers() { mysql --protocol=tcp -h127.0.0.1 -P"$port" -uroot -N -e 'select version()' 2>/dev/null; }

if v=$(answers) && [[ "$v" == *TiDB* ]]; then
  echo "TIDB_TEST_DSN='root@tcp(127.0.0.1:${port})/'"
  echo "TIDB_PID="
  exit 0
fi

bin=$("$here/build.sh")
# Every file the server writes goes to this folder (its slow-query log
# otherwise lands in the working directory, the checkout).
dir=$(mktemp -d "${TMPDIR:-/tmp}/clarify-tidb.XXXXXX")
"$bin" -store unistore -path "" -host 127.0.0.1 -P "$port" -status "$status" \
  -status-host 127.0.0.1 \
  -log-file "$dir/tidb.log" -log-slow-query "$dir/tidb-slow.log" -temp-dir "$dir/tmp" \
  >"$dir/stdout.log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  if v=$(answers) && [[ "$v" == *TiDB* ]]; then
    echo "TiDB ${v} on 127.0.0.1:${port}, pid ${pid}, logs in ${dir}" >&2
    echo "TIDB_TEST_DSN='root@tcp(127.0.0.1:${port})/'"
    echo "TIDB_PID=${pid}"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "tidb-server exited; its output:" >&2
    tail -n 30 "$dir/stdout.log" "$dir/tidb.log" >&2 || true
    exit 1
  fi
  sleep 0.5
done
echo "tidb-server did not answer on port ${port} within 60 s; stopping it (logs in ${dir})" >&2
kill "$pid" 2>/dev/null || true
exit 1
