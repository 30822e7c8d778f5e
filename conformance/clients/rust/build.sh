#!/usr/bin/env bash
# Generates the Rust client from the clients bundle with openapi-generator 7.25.0 (`rust`, reqwest blocking; see
# pom.xml) into build/clients/rust/generated and builds the scenario program against it. Everything it writes is
# under build/. CLIENTS_SPEC overrides the bundle (default generated/openapi/service.clients-openapi-generator.json).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
spec="${CLIENTS_SPEC:-$repo/generated/openapi/service.clients-openapi-generator.json}"
case "$spec" in /*) ;; *) spec="$PWD/$spec" ;; esac
[ -f "$spec" ] || { echo "rust client: no bundle at $spec" >&2; exit 1; }

mkdir -p "$repo/build/cache"
# The template change (docs/clients.md): openapi-generator's rust/reqwest/api.mustache, taken from the pinned
# generator's own jar, with the one line that sends a raw (binary) body given the operation's media type as its
# Content-Type (the generator sends none; the source-file PUT needs application/octet-stream). The pom reads the
# templates from build/clients/rust/templates. A generator whose template lacks that line fails here, not silently.
version="$(sed -n 's|.*<openapi-generator.version>\(.*\)</openapi-generator.version>.*|\1|p' "$here/pom.xml")"
jar="$repo/build/cache/m2/org/openapitools/openapi-generator/$version/openapi-generator-$version.jar"
if [ ! -f "$jar" ]; then
  mvn -B -q -Dstyle.color=never -Dmaven.repo.local="$repo/build/cache/m2" \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get \
    -Dartifact="org.openapitools:openapi-generator:$version" -Dtransitive=false
fi
templates="$repo/build/clients/rust/templates"
rm -rf "$templates" && mkdir -p "$templates/reqwest"
(cd "$templates" && jar xf "$jar" rust/reqwest/api.mustache)
body='    req_builder = req_builder.body({{{vendorExtensions.x-rust-param-identifier}}});'
typed='    req_builder = req_builder.header(reqwest::header::CONTENT_TYPE, "{{#consumes}}{{#-first}}{{{mediaType}}}{{/-first}}{{/consumes}}").body({{{vendorExtensions.x-rust-param-identifier}}});'
grep -qxF "$body" "$templates/rust/reqwest/api.mustache" || {
  echo "rust client: openapi-generator $version's rust/reqwest/api.mustache has no line '$body' to change" >&2
  exit 1
}
awk -v body="$body" -v typed="$typed" '$0 == body { print typed; next } { print }' \
  "$templates/rust/reqwest/api.mustache" >"$templates/reqwest/api.mustache"
# Generate. -q keeps a passing run quiet; the generator's own errors reach stdout/stderr unchanged. Only its
# "Thanks for using OpenAPI Generator" banner (lines of '#') is dropped from stdout.
staging="$repo/build/clients/rust/staging"
out="$repo/build/clients/rust/generated"
mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dmaven.repo.local="$repo/build/cache/m2" -Dclients.spec="$spec" \
  -Dclients.out="$staging" generate-sources |
  { grep -v -E $'^(\e\\[[0-9;]*m)*(#|$)' || true; }
# Copy into the crate only the files that changed, so cargo's fingerprints keep an unchanged client compiled.
mkdir -p "$out"
(cd "$staging" && find . -type f) | while IFS= read -r f; do
  if ! cmp -s "$staging/$f" "$out/$f"; then mkdir -p "$(dirname "$out/$f")"; cp "$staging/$f" "$out/$f"; fi
done
(cd "$out" && find . -type f) | while IFS= read -r f; do [ -e "$staging/$f" ] || rm -f "$out/$f"; done
# Compile the generated crate and the scenario with the committed Cargo.lock.
CARGO_TARGET_DIR="$repo/build/cache/cargo-target" \
  cargo build -q --release --locked --manifest-path "$here/scenario/Cargo.toml"
