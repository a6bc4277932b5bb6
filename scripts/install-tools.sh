#!/usr/bin/env bash
# Installs everything the build and the tests need on a fresh machine of this kind.
# Idempotent: each step is skipped when its tool is already present. The network- and
# disk-bound installs (Chromium from Debian, npm ci) run in the background; a failure in any of
# them fails the script. `--test-runner` also installs the wasm-bindgen CLI, whose
# wasm-bindgen-test-runner runs the integration suite as wasm (`make test-wasm`); the package's
# build needs only its bindgen step, which scripts/build.sh compiles itself (tools/bindgen).
set -euo pipefail
cd "$(dirname "$0")/.."
# One install at a time: `make test` runs its two sides at once, and each may call this (a second
# apt-get or cargo install beside the first would fail on their locks); the second waits, then
# finds everything in place.
mkdir -p target
exec 9>target/.install-tools.lock
flock 9
export CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
export PATH="$CARGO_HOME/bin:$PATH"
WBV=0.2.130   # must equal the wasm-bindgen version pinned in Cargo.toml
LOGS=$(mktemp -d)
pids=()
names=()

background() { # name, command...
  local name=$1; shift
  ( "$@" ) >"$LOGS/$name.log" 2>&1 &
  pids+=($!)
  names+=("$name")
}

install_chromium() {
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver
}

if [ "${SKIP_BROWSER:-0}" != 1 ] && { ! command -v chromedriver >/dev/null || ! command -v chromium >/dev/null; }; then
  echo "[install] chromium + chromedriver (Debian), in the background"
  background chromium install_chromium
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[install] npm ci, in the background"
  background npm npm ci --no-audit --no-fund
fi

rustup target add wasm32-unknown-unknown

if [ "${1:-}" = --test-runner ] && [ "$(wasm-bindgen-test-runner --version 2>/dev/null)" != "wasm-bindgen-test-runner $WBV" ]; then
  echo "[install] wasm-bindgen-cli $WBV"
  if ! cargo install wasm-bindgen-cli --version "$WBV" --locked; then
    # The published lockfile pins a webpki-roots version the reachable registry lacks;
    # rebuild from the downloaded .crate with our lockfile (only that pin differs).
    crate=$(ls "$CARGO_HOME"/registry/cache/*/wasm-bindgen-cli-"$WBV".crate | head -1)
    tmp=$(mktemp -d); tar xzf "$crate" -C "$tmp"
    cp .ci/wasm-bindgen-cli-"$WBV".Cargo.lock "$tmp/wasm-bindgen-cli-$WBV/Cargo.lock"
    cargo install --path "$tmp/wasm-bindgen-cli-$WBV" --locked
    rm -rf "$tmp"
  fi
fi

status=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    echo "[install] ${names[$i]}: done"
  else
    echo "[install] ${names[$i]} FAILED:"; tail -40 "$LOGS/${names[$i]}.log"; status=1
  fi
done
rm -rf "$LOGS"
exit $status
