#!/bin/sh
# Copy the Redoc standalone bundle (and its licence) from the pinned npm
# package into server/docs/, which the Go binary serves at /docs.
#
# To bump Redoc: change the "redoc" version in tools/npm/package.json, then
#   npm install --prefix tools/npm && tools/npm/vendor-docs.sh
# and commit package.json, package-lock.json and server/docs/.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pkg="$here/node_modules/redoc"
dest="$root/server/docs"

if [ ! -f "$pkg/bundles/redoc.standalone.js" ]; then
	echo "vendor-docs: $pkg/bundles/redoc.standalone.js not found; run: npm ci --prefix tools/npm" >&2
	exit 1
fi

version=$(node -p 'require(process.argv[1]).version' "$pkg/package.json")
mkdir -p "$dest"
# Verbatim copy, so it can be checked against the npm package byte for byte.
cp "$pkg/bundles/redoc.standalone.js" "$dest/redoc.standalone.js"
{
	echo "server/docs/redoc.standalone.js is bundles/redoc.standalone.js from the npm"
	echo "package redoc@$version, copied verbatim by tools/npm/vendor-docs.sh."
	echo "Redoc's licence follows, then the licence notices of the third-party code"
	echo "bundled inside it (the bundle's header points to redoc.standalone.js.LICENSE.txt,"
	echo "whose text is reproduced at the end of this file)."
	echo
	cat "$pkg/LICENSE"
	echo
	echo "----- bundles/redoc.standalone.js.LICENSE.txt -----"
	cat "$pkg/bundles/redoc.standalone.js.LICENSE.txt"
} >"$dest/LICENSE.redoc"

echo "vendor-docs: redoc $version -> $dest/redoc.standalone.js ($(wc -c <"$dest/redoc.standalone.js") bytes)"
