# custom-launch-api. `make start` and `make test` install what is missing first.
SHELL := /bin/bash
# better-sqlite3 builds from source here; node-gyp takes the headers from /usr rather than downloading them.
# Given to the install step only: npm warns about the setting on every other npm/npx call.
NODEDIR ?= /usr
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true
NPM_STAMP := node_modules/.install-stamp

.PHONY: install start devnet test generate check-generated lint-spec lint typecheck unit conformance clients bench clean soak client-package
VENV_STAMP := .venv/.install-stamp

# Installs the locked dependencies when node_modules is missing or older than the lock file.
# Not `npm ci`: the registry this project installs from does not carry every platform's optional packages (for
# example biome's Android and musl binaries), so npm leaves them out of the lock and `npm ci` then refuses the lock
# as out of sync. `npm install` installs exactly the locked versions and leaves the lock unchanged.
$(NPM_STAMP): package.json package-lock.json
	@command -v node >/dev/null || { echo "Node.js 20 is required (node not found)"; exit 1; }
	npm_config_nodedir=$(NODEDIR) npm install --no-audit --no-fund
	@touch $(NPM_STAMP)

install: $(NPM_STAMP)

# The conformance tools (Schemathesis, the Python client generator) in a project virtualenv, exact versions.
$(VENV_STAMP): conformance/requirements.txt
	@command -v python3 >/dev/null || { echo "Python 3 is required for make conformance (python3 not found)"; exit 1; }
	python3 -m venv .venv
	.venv/bin/pip install --quiet --disable-pip-version-check -r conformance/requirements.txt
	@touch $(VENV_STAMP)

## Start the server on the embedded default: the local chain-4663 devnet (anvil on DEVNET_PORT, default 8545), the
## base-layer devnet (chain id 1 on BASE_DEVNET_PORT, default 8546) and the SQLite file var/custom-launch.sqlite, on
## 127.0.0.1:8787. CHAIN_4663_RPC_URLS (or CHAIN_1_RPC_URLS with BASE_DEPLOYMENT_PATH) points it at an existing chain.
start: install
	npx tsx scripts/start.ts

## The local devnets alone (chain 4663 and the base layer, chain 1), until Ctrl-C.
devnet: install
	npx tsx scripts/devnet.ts

## Everything CI runs: drift check, spec lint, code lint, type check, schema/example check, the vitest suite,
## and the conformance run against a real server. The four checks run two at a time, the type check (the longest)
## started first; then the vitest suite and the conformance run share the machine (each prints its output when it
## ends), as each leaves most of a core idle alone.
test: install
	@$(MAKE) --no-print-directory -j2 --output-sync=target typecheck check-generated lint-spec lint
	@$(MAKE) --no-print-directory -j2 --output-sync=target unit conformance
	@echo; echo "== summary"; npx tsx scripts/test-summary.ts build/vitest-report.json; cat build/conformance/summary.txt

generate: install
	npm run generate

check-generated: install
	npm run check-generated

lint-spec: install
	npm run lint:spec

## Biome, the import direction and function length (scripts/check-architecture.ts), and the comment rules
## (scripts/check-comments.ts).
lint: install
	npx biome check .
	npx tsx scripts/check-architecture.ts
	npx tsx scripts/check-comments.ts src test conformance scripts

## Incremental: tsc keeps what it checked in build/tsc/ and checks again only what changed and what depends on it
## (about 6 s of 36 on an unchanged tree). `make clean` removes it.
typecheck: install
	npx tsc -p tsconfig.json --noEmit --incremental --tsBuildInfoFile build/tsc/project.tsbuildinfo

## The browser test (test/browser/) drives Debian's Chromium: installed first when missing and we are root with apt-get.
## A failed install fails nothing: the test is then skipped with its reason. The .venv gives test/server/metrics.test.ts
## the Prometheus project's exposition-format parser (prometheus_client).
unit: install $(VENV_STAMP)
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Chromium for test/browser/ (apt-get, log in build/chromium-install.log)"; mkdir -p build; \
	    { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends chromium; } >build/chromium-install.log 2>&1 \
	      || echo "installing Chromium failed (build/chromium-install.log): test/browser/ will be skipped"; \
	  else echo "no /usr/bin/chromium, and not root with apt-get to install it: test/browser/ will be skipped"; fi; \
	fi
	npx tsx scripts/check-schemas.ts
	@rm -f build/vitest-report.json
	npx vitest run; status=$$?; npx tsx scripts/test-summary.ts build/vitest-report.json; exit $$status

## Schemathesis and the generated Python and Go clients against a real server on a fresh SQLite file.
## `make conformance OPERATION=<operationId>`: Schemathesis on that one operation alone (no stateful pass, no clients).
conformance: install $(VENV_STAMP)
	CONFORMANCE_OPERATION='$(OPERATION)' npx tsx conformance/run.ts

## The clients in five languages (docs/clients.md): TypeScript, Python, Go, Java and Rust clients generated from the
## spec with their pinned generators, built, and each driven through the same launch (capabilities, preflight, create
## with an Idempotency-Key, replay, conflict, sources, authorized, a limit=1 list followed to its end, the finalized
## feed) against make start's stack of its own (conformance/clients/run.ts). Needs Go, Java 17 with Maven and cargo;
## Maven's repository and cargo's target folder are kept in build/cache/. CLIENTS_LANGUAGES=go,java runs only those.
clients: install $(VENV_STAMP)
	npx tsx conformance/clients/run.ts

## The npm package of the typed client and the custom-launch CLI (docs/clients.md): compiled JavaScript and
## declarations in packages/client/dist/ (scripts/build-client-package.ts), then `npm pack` writes
## build/client-package/custom-launch-client-<version>.tgz.
client-package: install
	npx tsx scripts/build-client-package.ts
	mkdir -p build/client-package
	cd packages/client && npm pack --pack-destination ../../build/client-package

## Performance figures (not a test; docs/performance.md): every section of scripts/bench/run.ts (the GET and the
## durable create beside the framework floor, the bare read and raw SQLite, the maximal preflight, the scanner beside a
## byte loop, WORKERS, a million rows, RSS under mixed load, start-up), each server its own process, one table and
## build/bench.json. BENCH_SECONDS per load (default 10); BENCH_ONLY=get,create runs only those sections.
bench: install
	npx tsx scripts/bench/run.ts

## Ten minutes (SOAK_SECONDS) of mixed traffic at 32 connections (SOAK_CONNECTIONS) against the `make start` stack on
## its own ports, launches driven through the lifecycle on the devnet; figures in build/soak.json (docs/soak.md).
## Not part of `make test`.
soak: install
	npx tsx scripts/soak.ts

clean:
	rm -rf var build

# The million-row scenario alone (scripts/bench/million.ts): list and finalized-feed page p99 at 1k vs 1M stored.
.PHONY: bench-million
bench-million: install
	npx tsx scripts/bench/million.ts
