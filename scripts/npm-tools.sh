#!/usr/bin/env bash
# Installs the pinned npm tools of tools/npm (Redocly CLI, openapi-typescript)
# when they are missing or the lockfile changed, with a Node.js they support:
# the machine's when it is recent enough, else one fetched from the npm
# registry into tools/npm/.node (scripts/node-bootstrap.sh; no root needed).
# The Makefile puts tools/npm/.node/bin first on PATH for the tools too.
set -euo pipefail
cd "$(dirname "$0")/../tools/npm"

bin=$(../../scripts/node-bootstrap.sh)
export PATH="$bin:$PATH"

stamp=node_modules/.lock-stamp
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
