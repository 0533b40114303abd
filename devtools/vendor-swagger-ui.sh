#!/usr/bin/env bash
# devtools/vendor-swagger-ui.sh: refresh the API docs viewer (/api/docs) from the npm registry's
# swagger-ui-dist package (npm pack, no build step) into handlers/rest/openapi/docs/, where it is
# embedded and served: no CDN. Only the bundle and its stylesheet are kept, gzipped (about a
# third of their size in the repository; served as they are to browsers that take gzip,
# inflated for the others), with the package's licence files.
# Usage: devtools/vendor-swagger-ui.sh [version]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

version="${1:-5.35.0}"
dest="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/handlers/rest/openapi/docs"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "swagger-ui-dist@$version" >/dev/null)
tar xzf "$tmp/swagger-ui-dist-$version.tgz" -C "$tmp"
for f in swagger-ui-bundle.js swagger-ui.css; do
  gzip -9 -n -c "$tmp/package/$f" >"$dest/$f.gz"
done
cp "$tmp/package/LICENSE" "$dest/swagger-ui.LICENSE"
cp "$tmp/package/NOTICE" "$dest/swagger-ui.NOTICE"
cp "$tmp/package/swagger-ui-bundle.js.LICENSE.txt" "$dest/swagger-ui-bundle.js.LICENSE.txt"
echo "$version" >"$dest/swagger-ui.VERSION"
say "vendored swagger-ui-dist $version into $dest"
