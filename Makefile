# Coalescing Lab. Quick start: `make serve`, then `make test`.
# Every target installs what it needs when it is missing, so a fresh machine works.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/node_modules/.bin:$(PATH)

TRUNK_VERSION := 0.21.14
# wasm-bindgen-cli must be exactly the wasm-bindgen crate's version in Cargo.lock.
WASM_BINDGEN_VERSION := $(shell sed -n '/^name = "wasm-bindgen"$$/{n;s/^version = "\(.*\)"/\1/p;}' Cargo.lock)
# wasm-split-cli (crate wasm_split_cli_support): splits the wasm by panel (tools/split.mjs).
WASM_SPLIT_VERSION := 0.2.4
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: serve build cli test bench sizes tools browsers lint native-test browser-test

## serve: build and serve the app on http://127.0.0.1:8080
serve: tools
	@# No autoreload: its injected inline script would break the strict CSP.
	trunk serve --release --offline --address 127.0.0.1 --port 8080 --no-autoreload --disable-address-lookup

## build: the release site in dist/, with relative asset paths
build: tools
	trunk build --release --offline

## cli: the command line, target/release/coalescing-lab-cli (see docs/cli.md)
cli:
	cargo build --release --bin coalescing-lab-cli

## test: formatting, clippy, native tests, then browser tests against the release build
test: tools browsers lint native-test build browser-test

## bench: the budget table
bench: tools browsers build
	node tests/browser/bench.mjs

## sizes: twiggy's top, dominators and monos reports for the main module (the first load)
TWIGGY_VERSION := 0.8.0
sizes: tools build
	@command -v twiggy >/dev/null || cargo install --locked twiggy --version $(TWIGGY_VERSION)
	node tools/sizes.mjs

lint:
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --release --target wasm32-unknown-unknown -- -D warnings
	@# The CUDA worker as Trunk builds it: the model without the `ui` feature.
	cargo clippy --release --target wasm32-unknown-unknown --no-default-features --bin cuda-worker -- -D warnings
	@# The first-result module as Trunk builds it: the model alone, on the page's thread.
	cargo clippy --release --target wasm32-unknown-unknown --no-default-features --features lean-floats --bin first-result -- -D warnings

native-test:
	cargo test

browser-test:
	node --test --test-concurrency=1 tests/browser/

## tools: the Rust target, Trunk, wasm-bindgen-cli, wasm-split-cli and wasm-opt, installed only when missing
tools: node_modules/.installed
	@rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
	@trunk --version 2>/dev/null | grep -qF "$(TRUNK_VERSION)" || cargo install --locked trunk --version $(TRUNK_VERSION)
	@# Not --locked: wasm-bindgen-cli's lock file names a crate version the registry lacks.
	@wasm-bindgen --version 2>/dev/null | grep -qF "$(WASM_BINDGEN_VERSION)" || cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION)
	@# Trunk's post-build hook (tools/split.mjs) cuts the wasm into per-panel chunks with it.
	@cargo install --list | grep -qF "wasm_split_cli_support v$(WASM_SPLIT_VERSION)" || cargo install --locked wasm_split_cli_support --version $(WASM_SPLIT_VERSION) --features build-binary

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

## browsers: Debian's headless Chromium and the matching chromedriver
browsers:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
		$(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver; }
