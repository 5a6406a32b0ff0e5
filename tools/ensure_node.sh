#!/bin/sh
# Make sure Node.js (>= 18) and npm are on PATH; install them from the system's packages if missing.
set -eu
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    exit 0
fi
echo "Node.js not found: installing nodejs and npm from the system packages" >&2
if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q nodejs npm
else
    echo "no apt-get here: install Node.js 18 or newer by hand, then run make again" >&2
    exit 1
fi
