#!/usr/bin/env bash
# Generates the Java client (openapi-generator 7.25.0 through its Maven plugin, java/jersey3) from the clients bundle
# and compiles it with the scenario program. Output: build/clients/java/{generated,target}; Maven cache: build/cache/m2.
# CLIENTS_SPEC overrides the bundle (default generated/openapi/service.clients-openapi-generator.json). Generator and javac messages
# are shown as they are; any failure exits non-zero.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
spec="${CLIENTS_SPEC:-$repo/generated/openapi/service.clients-openapi-generator.json}"
[ -f "$spec" ] || { echo "build.sh: no contract bundle at $spec (run npm run generate)" >&2; exit 1; }
spec="$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")"
# A fresh target each time: no classes or jars left from an earlier contract or dependency set.
rm -rf "$repo/build/clients/java/target"
mvn -B -q -Dstyle.color=never \
  -Dmaven.repo.local="$repo/build/cache/m2" \
  -Dclients.spec="$spec" \
  -f "$here/pom.xml" package
