#!/bin/sh
# Make sure a Chromium executable is on this machine for the browser tests (tests/console); install Debian's
# `chromium` package if it is missing. Playwright drives this system browser (its own browser download is not used).
set -eu
for exe in chromium chromium-browser; do
    if command -v "$exe" >/dev/null 2>&1; then
        exit 0
    fi
done
echo "Chromium not found: installing chromium from the system packages" >&2
if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
else
    echo "no apt-get here: install Chromium by hand (or set HANOIBOT_CHROMIUM to its path), then run make again" >&2
    exit 1
fi
