#!/usr/bin/env bash
# Makes sure the server binaries the test suite starts are installed:
# PostgreSQL (initdb, pg_ctl) and Redis (redis-server), from Debian's packages.
# The tests start and stop the servers themselves, on loopback, in temp dirs.
# Also Debian's Chromium (/usr/bin/chromium), which the viewer's browser tests
# drive through Playwright (never `playwright install`: no downloaded browsers).
set -euo pipefail

need=()
find_pg() {
  command -v initdb >/dev/null 2>&1 && return 0
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1
}
find_pg || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ -x /usr/bin/chromium ] || need+=(chromium)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

echo "installing missing test servers: ${need[*]}"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
# Debian starts the packaged services on install; the tests run their own.
$SUDO service redis-server stop >/dev/null 2>&1 || true
$SUDO service postgresql stop >/dev/null 2>&1 || true
