#!/usr/bin/env bash
# Generates the Go client of the clients scenario (conformance/clients/README.md) from the spec with oapi-codegen
# v2.8.2 (from the Go module proxy) into scenario/launchclient/ (git-ignored): every operation and model. Then builds
# the scenario against it into build/clients/go/scenario. A generator or compiler error fails with its own message.
# CLIENTS_SPEC names another bundle (default: the clients bundle).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
spec="${CLIENTS_SPEC:-$root/generated/openapi/service.clients.json}"
export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "go: Go is required (go not found)" >&2; exit 1; }
cd "$here/scenario"
rm -rf launchclient && mkdir launchclient
go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml "$spec"
mkdir -p "$root/build/clients/go"
go build -o "$root/build/clients/go/scenario" .
echo "go: launchclient generated ($(wc -l <launchclient/client.gen.go) lines), scenario built"
