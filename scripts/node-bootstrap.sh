#!/usr/bin/env bash
# Makes sure the npm tools of tools/npm get a Node.js they support
# (@redocly/cli: >=20.19 <21, or >=22.12) and an npm, and prints the folder
# to put first on PATH for them: tools/npm/.node/bin.
#
# Fast path: the node on PATH, with that folder looked at first, is
# suitable (the machine's own, or one fetched before). Otherwise, as any
# user, it fetches the pinned official Node.js build and npm from the npm
# registry with `go run ./tools/nodeboot` (integrity-checked; see
# tools/nodeboot/pins.go) into tools/npm/.node, which git ignores.
#
# NODE_BOOTSTRAP, when set, is run instead of nodeboot with the install
# folder as its argument (the tests of tools/nodeboot use it). Besides go
# (or that), node and npm it runs only bash builtins, so it works on a PATH
# without coreutils.
set -euo pipefail

src=${BASH_SOURCE[0]}
[[ $src == */* ]] || src=./$src
root=$(cd "${src%/*}/.." && pwd)
dir=$root/tools/npm/.node
export PATH="$dir/bin:$PATH"

# node_ok reports whether a `node --version` (vMAJOR.MINOR.PATCH) is one
# the npm tools support.
node_ok() {
  [[ $1 =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+$ ]] || return 1
  local major=$((10#${BASH_REMATCH[1]})) minor=$((10#${BASH_REMATCH[2]}))
  ((major == 20 && minor >= 19 || major == 22 && minor >= 12 || major >= 23))
}

# suitable reports whether the node and npm on PATH will do.
suitable() {
  local v
  command -v node >/dev/null && command -v npm >/dev/null || return 1
  v=$(node --version 2>/dev/null) || return 1
  node_ok "$v"
}

if ! suitable; then
  have=none
  if command -v node >/dev/null; then
    have=$(node --version 2>/dev/null || echo unknown)
  fi
  echo "node-bootstrap: Node.js on PATH: $have; the npm tools need >=20.19 <21 or >=22.12 with npm: fetching the pinned one into tools/npm/.node" >&2
  if [[ -n ${NODE_BOOTSTRAP:-} ]]; then
    "$NODE_BOOTSTRAP" "$dir"
  else
    (cd "$root" && go run ./tools/nodeboot -dir "$dir")
  fi
  hash -r # forget where node was found before
  if ! suitable; then
    echo "node-bootstrap: still no suitable Node.js on PATH after fetching one into $dir" >&2
    exit 1
  fi
fi
echo "$dir/bin"
