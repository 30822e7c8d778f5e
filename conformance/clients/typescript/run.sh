#!/usr/bin/env bash
# Runs the clients scenario (conformance/clients/README.md) with openapi-fetch over the generated types. Needs
# CLIENTS_BASE_URL, CLIENTS_API_KEY and CLIENTS_INPUTS; never prints the key.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
exec node --import tsx conformance/clients/typescript/scenario.ts
