#!/usr/bin/env bash
# Generates the Python client of the clients scenario (conformance/clients/README.md) from the spec with
# openapi-python-client (pinned in conformance/requirements.txt, in the project's .venv) into build/clients/python/,
# imports every module it wrote, and type-checks scenario.py against it with mypy --strict (pinned there too). A
# schema the generator cannot model, a module that does not import, or a call the client no longer types fails with
# the generator's, Python's or mypy's own message. CLIENTS_SPEC names another bundle (default: the clients bundle).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
spec="${CLIENTS_SPEC:-$root/generated/openapi/service.clients.json}"
out="$root/build/clients/python"
[ -x "$root/.venv/bin/openapi-python-client" ] || { echo "python: run make clients (it installs .venv first)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
if ! "$root/.venv/bin/openapi-python-client" generate --path "$spec" \
  --config "$root/conformance/clients/python/config.yaml" --output-path "$out/client" --overwrite >"$out/generate.log" 2>&1; then
  cat "$out/generate.log" >&2
  exit 1
fi
# The generator leaves out what it cannot model and exits 0: here that is a failure, with its own words.
if grep -q '^Unable to process\|^Warning' "$out/generate.log"; then
  echo "python: openapi-python-client could not model the whole spec ($spec):" >&2
  cat "$out/generate.log" >&2
  exit 1
fi
# Every module imports (a model the generator named but did not write fails here).
PYTHONPATH="$out/client" "$root/.venv/bin/python" - <<'PY'
import importlib, pkgutil, custom_launch_api_client as package
count = 0
for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    importlib.import_module(module.name)
    count += 1
print(f"python: custom_launch_api_client generated, {count} modules import")
PY
# The scenario against the generated client's types: a spec change that breaks a call it makes fails here.
MYPYPATH="$out/client" "$root/.venv/bin/mypy" --strict --no-error-summary --cache-dir "$root/build/cache/mypy" \
  "$root/conformance/clients/python/scenario.py"
echo "python: scenario.py type-checked (mypy --strict)"
