#!/usr/bin/env bash
# Builds TiDB's server (one process, embedded "unistore" storage: no cluster,
# no container) for the TiDB test tier, and prints the binary's path. The
# binary is cached per TiDB and Go version and rebuilt only when missing.
#
# TiDB comes from the Go module proxy through this folder's own module
# (go.mod, go.sum): its dependencies stay out of the product's go.mod.
set -euo pipefail
cd "$(dirname "$0")"

version=$(sed -n 's/^require github.com\/pingcap\/tidb //p' go.mod)
gover=$(go env GOVERSION)
# The cache key also covers this folder's go.mod, go.sum and this script, so
# a changed replace line or linker flag rebuilds.
key=$(cat go.mod go.sum build.sh | sha256sum | cut -c1-12)
bin="${XDG_CACHE_HOME:-$HOME/.cache}/clarify-tidb/${version}-${gover}-${key}/tidb-server"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

# Why the linker flag: TiDB's pkg/util/hack reaches into the runtime's map
# layout and refuses to start ("The hack package only supports go1.25")
# unless runtime.Version() says go1.25. The map structures it reads are
# unchanged in Go 1.26 (checked on 1.26.8), so the version string is set to
# say so. When Go's version changes, check runtime/map layout against
# pkg/util/hack again (a started server answering the test tier is the check)
# and drop the flag when TiDB supports the new Go.
ldflags=""
case "$gover" in
  go1.25*) ;;
  go1.26.8) ldflags="-X 'runtime.buildVersion=${gover} (go1.25-map-abi)'" ;;
  *) echo "build.sh: TiDB ${version} is checked on Go 1.25 and 1.26.8, not ${gover}: compare runtime's map layout with pkg/util/hack, then add ${gover} here" >&2; exit 1 ;;
esac

# The release this module version is, as `make` would stamp it from git (a
# module download has no git): VERSION() then reads 8.0.11-TiDB-v8.5.6, not
# a placeholder, and bot doctor reports it.
release=v8.5.6
commit=${version##*-}
ldflags="$ldflags -X 'github.com/pingcap/tidb/pkg/parser/mysql.TiDBReleaseVersion=${release}'"
ldflags="$ldflags -X 'github.com/pingcap/tidb/pkg/util/versioninfo.TiDBGitHash=${commit}'"

mkdir -p "$(dirname "$bin")"
echo "building tidb-server ${version} with ${gover} (about 10 minutes and 3.3 GB on two cores the first time)" >&2
go build -trimpath -ldflags "$ldflags" -o "$bin.tmp" github.com/pingcap/tidb/cmd/tidb-server
mv "$bin.tmp" "$bin"
# Older builds (another TiDB, Go or module) are 250 MB each: keep only this one.
find "$(dirname "$(dirname "$bin")")" -mindepth 1 -maxdepth 1 -type d ! -path "$(dirname "$bin")" -exec rm -rf {} +
echo "$bin"
