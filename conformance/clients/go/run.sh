#!/usr/bin/env bash
# Runs the clients scenario (conformance/clients/README.md) with the Go client build.sh generated and built. Needs
# CLIENTS_BASE_URL, CLIENTS_API_KEY and CLIENTS_INPUTS; never prints the key.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
exec "$root/build/clients/go/scenario"
