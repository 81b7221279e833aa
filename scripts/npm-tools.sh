#!/usr/bin/env bash
# Installs the pinned npm tools of tools/npm (Redocly CLI, openapi-typescript)
# when they are missing or the lockfile changed. Installs Node.js from
# Debian's packages when it is missing and we are root on Debian.
set -euo pipefail
cd "$(dirname "$0")/../tools/npm"

if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null; then
    echo "npm-tools: installing Node.js and npm from Debian's packages" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm >&2 ||
      { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm >&2; }
  else
    echo "npm-tools: Node.js 20.19+ with npm is needed for the spec lint; install it and run again" >&2
    exit 1
  fi
fi

stamp=node_modules/.lock-stamp
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
