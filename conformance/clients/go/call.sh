#!/usr/bin/env bash
# Generates the Go client from the spec with oapi-codegen (pinned, from the Go module proxy), builds the caller
# against it and makes one authenticated call; the developer API's client (generated from its own document) reads
# the token list. Needs CONFORMANCE_BASE_URL, CONFORMANCE_API_KEY and CONFORMANCE_DEVELOPERS_URL; never prints the
# key. See ../README.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
export PATH="/usr/local/go/bin:$PATH"
oapi_codegen='github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2'
: "${CONFORMANCE_BASE_URL:?set CONFORMANCE_BASE_URL}" "${CONFORMANCE_API_KEY:?set CONFORMANCE_API_KEY}"
: "${CONFORMANCE_DEVELOPERS_URL:?set CONFORMANCE_DEVELOPERS_URL}"
command -v go >/dev/null || { echo "go client: Go is required (go not found)" >&2; exit 1; }
cd "$here"
rm -rf apiclient devclient caller && mkdir apiclient devclient
# The clients bundle: the contract in forms the generators load; see scripts/client-generator-forms.ts.
go run "$oapi_codegen" -config oapi-codegen.yaml "$root/generated/openapi/service.clients.json"
go run "$oapi_codegen" -config oapi-codegen-developer.yaml "$root/generated/openapi/developer-api.clients.json"
go build -o caller .
./caller
