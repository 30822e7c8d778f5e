#!/usr/bin/env bash
# Runs the scenario program built by build.sh. Needs CLIENTS_BASE_URL, CLIENTS_API_KEY, CLIENTS_INPUTS.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
bin="$repo/build/cache/cargo-target/release/clients-scenario"
[ -x "$bin" ] || { echo "rust client: $bin is not built (run conformance/clients/rust/build.sh)" >&2; exit 1; }
exec "$bin"
