#!/usr/bin/env bash
# devtools/vendor-htmx.sh: refresh the web UI's vendored htmx and its SSE extension from the npm
# registry (npm pack, no build step) into handlers/web/static/, where they are embedded and served
# from /static/ — the pages never load a script from a CDN. Usage: devtools/vendor-htmx.sh [htmx-version] [sse-version]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

htmx="${1:-2.0.11}" sse="${2:-2.2.4}"
dest="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/handlers/web/static"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "htmx.org@$htmx" "htmx-ext-sse@$sse" >/dev/null)
tar xzf "$tmp/htmx.org-$htmx.tgz" -C "$tmp" && mv "$tmp/package" "$tmp/htmx"
tar xzf "$tmp/htmx-ext-sse-$sse.tgz" -C "$tmp" && mv "$tmp/package" "$tmp/sse"
cp "$tmp/htmx/dist/htmx.min.js" "$tmp/htmx/dist/htmx.min.js.gz" "$dest/"
cp "$tmp/sse/dist/sse.min.js" "$tmp/sse/dist/sse.min.js.gz" "$dest/"
cp "$tmp/htmx/LICENSE" "$dest/htmx.LICENSE"
cp "$tmp/sse/LICENSE" "$dest/sse.LICENSE"
say "vendored htmx $htmx and htmx-ext-sse $sse into $dest"
