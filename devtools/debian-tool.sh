#!/usr/bin/env bash
# devtools/debian-tool.sh PATH PACKAGE PURPOSE: make sure the Debian package PACKAGE that puts a
# program at PATH is installed, for PURPOSE (make test's browser tests need chromium, its alerting
# check needs promtool from prometheus). Idempotent and quiet when the program is already there;
# installs the package as root, otherwise says what to install.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

(( $# == 3 )) || die "usage: devtools/debian-tool.sh PATH PACKAGE PURPOSE"
path=$1 pkg=$2 purpose=$3
[[ -x "$path" ]] && exit 0
[[ "$(id -u)" == "0" ]] ||
  die "$purpose need Debian's $pkg at $path: install it (apt-get install $pkg) and run make test again"
command -v apt-get >/dev/null 2>&1 ||
  die "$purpose need $path and apt-get is not available: install $pkg by hand"
say "installing Debian's $pkg package for $purpose (first run only)…"
log=/tmp/$pkg-apt-install.log
rc=0
{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg"; } >"$log" 2>&1 || rc=$?
if (( rc != 0 )) || [[ ! -x "$path" ]]; then
  tail -n 30 "$log" >&2 || true
  die "apt-get install $pkg failed (rc $rc; full log in $log)"
fi
