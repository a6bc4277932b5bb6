# contextview — the two commands a new machine needs:
#   make demo   set up, build, and run the CLI on the example session for every provider
#               (then `make serve` opens the inspector page on localhost)
#   make test   every test: native (the library, the integration and corpus suites), the npm
#               package in Node, Chromium and workerd (the integration suite as wasm: test-wasm)
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(HOME)/.cargo/bin:$(PATH)
export WRANGLER_SEND_METRICS := false
# CI builds a clean clone once: incremental caches would only be written, never read (our crate's
# clean native test build, 117 s against 107 s without them).
ifeq ($(CI),true)
export CARGO_INCREMENTAL := 0
endif

PROVIDERS := anthropic openai-chat openai-responses gemini
# The wasm test builds compile nothing with optimisation, dependencies included: 98 s instead of
# 159 s for a clean build on two cores, while the tests run 15 s longer.
WASM_TEST_PROFILE := --config profile.test.opt-level=0

.PHONY: setup setup-wasm-test build demo serve test test-package test-long test-native test-wasm test-wasm-node test-wasm-browser test-js bench fuzz clean

setup:
	scripts/install-tools.sh

# The above, and the wasm-bindgen CLI for its test runner (the wasm integration suite).
setup-wasm-test:
	scripts/install-tools.sh --test-runner

build: setup
	scripts/build.sh

# The demo needs no browser: its set-up leaves Chromium (the tests') uninstalled.
demo: export SKIP_BROWSER := 1
demo: build
	@for p in $(PROVIDERS); do \
	  echo "=== $$p"; \
	  node pkg/cli.mjs build --session examples/session.jsonl --provider $$p \
	    --system examples/system.md --tools examples/tools.json > target/demo-$$p.json; \
	  echo "payload: target/demo-$$p.json ($$(wc -c < target/demo-$$p.json) bytes)"; \
	done
	@echo "=== the inspector: run 'make serve' and open the address it prints"

# The context inspector (www/index.html) over the built package, on http://127.0.0.1:8080/www/
serve: build
	node scripts/serve.mjs

# Two sides at once, each timed step by step (the times are printed at the end, also when a step
# fails): the native tests (the library's, the integration suite's, the corpus suite's), beside the
# tools' install, the package's build and the JS suites (the package in Node, Chromium and
# workerd). On two cores each side fills the gaps the other leaves — the release build's long
# single-threaded link, the test files' waits — where stages one after another left a core idle a
# fifth of the run. The integration suite as wasm is not part of it (`make test-wasm`): it cost a
# clean clone 210 CPU-seconds of the 1,350 (its own build of the core, then the suite run), the
# core is the same code natively, and the wasm the package ships is what the JS suites run in
# each runtime. Their two target directories are made first: on a clean clone, two cargos making
# `target/` and `target/package` at once can race (one renames its new `target/` over the
# directory the other is making its own in).
test:
	@mkdir -p target/package
	@MAKE="$(MAKE)" scripts/stages.sh test-native+test-package

test-package:
	@MAKE="$(MAKE)" scripts/stages.sh build test-js

test-native:
	@# The corpus suite (tests/corpus) prints what it covered, or SKIPPED with every test ignored.
	cargo test --locked

# The properties with ten times the cases (natively): before a release, or after touching the
# renderers, repair, pruning or an importer.
test-long:
	CONTEXTVIEW_LONG=1 cargo test --locked --test it

# The integration tests as WebAssembly (the corpus suite reads files: native only), before a
# release or after touching what differs on wasm32 (sizes, time, panics): `test-wasm` in Node and
# in Chromium side by side, `test-wasm-node` in Node in two halves, `test-wasm-browser` in
# Chromium (scripts/wasm-tests.sh).
test-wasm: setup-wasm-test
	scripts/wasm-tests.sh both $(WASM_TEST_PROFILE)

test-wasm-node: setup-wasm-test
	scripts/wasm-tests.sh node $(WASM_TEST_PROFILE)

test-wasm-browser: setup-wasm-test
	scripts/wasm-tests.sh browser $(WASM_TEST_PROFILE)

# Two test files at a time, the longest first so that no long one is left to run alone at the
# end (seconds each, alone, on this kind of machine: readme 28, service 23, inspector 16, inspector-view 11, cli 10,
# typescript 7, checkpoints 7, the rest under 6). Each file's waits allow for a busy machine.
JS_TESTS := tests/js/readme.test.mjs tests/workerd/service.test.mjs tests/js/inspector.test.mjs tests/js/inspector-view.test.mjs tests/js/cli.test.mjs \
  tests/packaging/typescript.test.mjs tests/js/checkpoints.test.mjs tests/js/declared-types.test.mjs tests/packaging/inspector-element.test.mjs tests/js/arguments.test.mjs \
  tests/packaging/webpack.test.mjs tests/sdk-types/sdk-types.test.mjs tests/packaging/vite.test.mjs tests/packaging/esbuild.test.mjs \
  tests/workerd/miniflare.test.mjs tests/js/storage-browser.test.mjs tests/js/import.test.mjs tests/js/follow.test.mjs tests/js/storage-faults-browser.test.mjs \
  tests/js/unhappy-browser.test.mjs tests/js/browser.test.mjs tests/js/discover-browser.test.mjs tests/js/discover-cli.test.mjs \
  tests/js/consumer.test.mjs tests/workerd/unhappy.test.mjs tests/workerd/lazy.test.mjs tests/workerd/storage.test.mjs \
  tests/js/lazy.test.mjs tests/js/answers.test.mjs tests/js/timeline.test.mjs tests/js/unhappy.test.mjs tests/js/storage.test.mjs \
  tests/js/storage-faults.test.mjs tests/js/discover.test.mjs tests/js/subagents.test.mjs tests/js/storage-mutants.test.mjs \
  tests/js/acp-conformance.test.mjs tests/js/session.test.mjs tests/js/simulate.test.mjs

test-js:
	node_modules/.bin/tsc -p tests/types
	node --test --test-concurrency=2 $(JS_TESTS)
	npm run --silent check:wrangler

bench: build
	node benches/build.bench.mjs
	node benches/memory.bench.mjs
	node benches/open.bench.mjs
	node benches/peers.bench.mjs
	node benches/answer.bench.mjs
	cargo bench --bench answer
	cargo bench --bench import
	cargo bench --bench prune
	cargo bench --bench tokens
	cargo bench --bench session
	node benches/import.bench.mjs
	node benches/follow.bench.mjs
	node benches/discover.bench.mjs
	node benches/inspector.bench.mjs
	RETURNING=1 node benches/inspector.bench.mjs
	node benches/service.bench.mjs

# Not in `make test`: every reader of foreign bytes under libFuzzer for FUZZ_SECONDS each
# (scripts/fuzz.sh; figures in BENCHMARKS.md).
fuzz:
	scripts/fuzz.sh

clean:
	cargo clean
	rm -rf pkg
