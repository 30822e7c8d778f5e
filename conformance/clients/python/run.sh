#!/usr/bin/env bash
# Runs the clients scenario (conformance/clients/README.md) with the Python client build.sh generated. Needs
# CLIENTS_BASE_URL, CLIENTS_API_KEY and CLIENTS_INPUTS; never prints the key.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PYTHONPATH="$root/build/clients/python/client" exec "$root/.venv/bin/python" "$root/conformance/clients/python/scenario.py"
