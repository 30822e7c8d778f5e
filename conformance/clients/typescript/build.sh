#!/usr/bin/env bash
# Generates the TypeScript client of the clients scenario (conformance/clients/README.md): openapi-typescript (pinned
# in package-lock.json) writes the spec's types with the options of `make generate` (the same file as
# generated/types/service.ts, which CI keeps equal to the spec), and openapi-fetch is the runtime. The types go to
# build/clients/typescript/generated/types/service.ts with a copy of scenario.ts beside them at the same relative
# path, and tsc type-checks the scenario against them: a spec change that breaks a call fails with tsc's message.
# CLIENTS_SPEC names another bundle (default: the exact bundle, generated/openapi/service.bundled.json).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
spec="${CLIENTS_SPEC:-$root/generated/openapi/service.bundled.json}"
out="$root/build/clients/typescript"
cd "$root"
rm -rf "$out" && mkdir -p "$out/generated/types" "$out/conformance/clients/typescript"
# From the output folder: in the repository's root, openapi-typescript would read redocly.yaml's APIs instead.
(cd "$out" && "$root/node_modules/.bin/openapi-typescript" "$spec" --output generated/types/service.ts --export-type \
  --alphabetize --root-types --root-types-no-schema-prefix --root-types-keep-casing --silent)
cp conformance/clients/typescript/scenario.ts "$out/conformance/clients/typescript/scenario.ts"
cat >"$out/tsconfig.json" <<JSON
{
  "extends": "$root/tsconfig.json",
  "compilerOptions": { "noEmit": true, "rootDir": "$out", "typeRoots": ["$root/node_modules/@types"] },
  "include": ["conformance/clients/typescript/scenario.ts"]
}
JSON
npx tsc -p "$out/tsconfig.json"
echo "typescript: types generated ($(wc -l <"$out/generated/types/service.ts") lines), scenario type-checked"
