#!/usr/bin/env bash
# Generates the Python client from the spec (openapi-python-client, pinned in conformance/requirements.txt) and
# makes one authenticated call with it; then the developer API's client, which reads the token list. Needs
# CONFORMANCE_BASE_URL, CONFORMANCE_API_KEY and CONFORMANCE_DEVELOPERS_URL; never prints the key.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="$root/build/conformance/clients/python"
: "${CONFORMANCE_BASE_URL:?set CONFORMANCE_BASE_URL}" "${CONFORMANCE_API_KEY:?set CONFORMANCE_API_KEY}"
: "${CONFORMANCE_DEVELOPERS_URL:?set CONFORMANCE_DEVELOPERS_URL}"
rm -rf "$out" && mkdir -p "$out"
# The clients bundle: the contract in forms the generators load; see scripts/client-generator-forms.ts.
"$root/.venv/bin/openapi-python-client" generate \
  --path "$root/generated/openapi/service.clients.json" \
  --config "$root/conformance/clients/python/config.yaml" \
  --output-path "$out/client" --overwrite > "$out/generate.log" 2>&1 || { cat "$out/generate.log" >&2; exit 1; }
# Schemas the generator cannot model are reported in generate.log; none is used by the call below.
grep -A1 '^Unable to process schema' "$out/generate.log" | grep '^/' | sed 's/^/python generator skipped: /' >&2 || true
PYTHONPATH="$out/client" "$root/.venv/bin/python" "$root/conformance/clients/python/call.py"

# The developer API document, generated into its own package.
"$root/.venv/bin/openapi-python-client" generate \
  --path "$root/generated/openapi/developer-api.clients.json" \
  --config "$root/conformance/clients/python/config-developer.yaml" \
  --output-path "$out/developer-client" --overwrite > "$out/generate-developer.log" 2>&1 || {
  cat "$out/generate-developer.log" >&2
  exit 1
}
grep -A1 '^Unable to process schema' "$out/generate-developer.log" | grep '^/' | sed 's/^/python generator skipped: /' >&2 || true
PYTHONPATH="$out/developer-client" "$root/.venv/bin/python" "$root/conformance/clients/python/call_developer.py"
