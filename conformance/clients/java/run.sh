#!/usr/bin/env bash
# Runs the built scenario (build.sh first). Needs CLIENTS_BASE_URL, CLIENTS_API_KEY, CLIENTS_INPUTS; exit status is
# the program's (0: all nine steps passed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
target="$repo/build/clients/java/target"
[ -d "$target/classes/conformance" ] || { echo "run.sh: not built: run conformance/clients/java/build.sh" >&2; exit 1; }
exec java -cp "$target/classes:$target/lib/*" conformance.Scenario
