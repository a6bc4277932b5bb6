#!/usr/bin/env bash
# The integration tests as WebAssembly, built once and run in Node (`node`: in two halves side by
# side), in Chromium (`browser`), or in both side by side (`both`): each run is one engine
# executing the suite on one core, so on two cores a pair takes as long as the longer one. The
# library's unit tests are native only (none is a wasm test).
# Usage: scripts/wasm-tests.sh node|browser|both CARGO_ARGS...   (the Makefile passes its wasm
# test profile)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: wasm-tests.sh node|browser|both CARGO_ARGS...}
shift
case $mode in node|browser|both) ;; *) echo "wasm-tests.sh: unknown mode $mode" >&2; exit 2 ;; esac

# The test binary's path, from cargo's JSON messages (the human lines go to stderr).
wasm=$(cargo test --locked "$@" --target wasm32-unknown-unknown --test it --no-run --message-format=json \
  | node -e '
      let path = null;
      for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
        if (!line.startsWith("{")) continue;
        const m = JSON.parse(line);
        if (m.reason === "compiler-artifact" && m.profile?.test && m.target?.name === "it" && m.executable) path = m.executable;
      }
      if (!path) { console.error("wasm-tests.sh: cargo named no test binary for tests/it"); process.exit(1); }
      console.log(path);')

in_node() {
  WASM_BINDGEN_TEST_ONLY_NODE=1 wasm-bindgen-test-runner "$wasm" "$@"
}
# In Node, in two halves side by side (every other test each: one engine runs on one core), each
# half's count checked so that none is left out.
in_node_halves() {
  local names=() i status=0 passed=0 s half n
  mapfile -t names < <(in_node --list | sed -n 's/: test$//p')
  [ "${#names[@]}" -gt 0 ] || { echo "wasm-tests.sh: the runner listed no tests" >&2; return 1; }
  local -a skip0=() skip1=()
  for i in "${!names[@]}"; do
    if (( i % 2 )); then skip0+=(--skip "${names[$i]}"); else skip1+=(--skip "${names[$i]}"); fi
  done
  echo "[wasm] $wasm: ${#names[@]} tests in Node, in two halves side by side"
  in_node --exact "${skip0[@]}" > "$logs/half0.log" 2>&1 &
  local half0=$!
  in_node --exact "${skip1[@]}" > "$logs/half1.log" 2>&1 &
  local half1=$!
  wait "$half0" || status=$?
  wait "$half1" || { s=$?; [ "$status" -ne 0 ] || status=$s; }
  for half in 0 1; do
    echo "=== in Node, half $((half + 1))"
    cat "$logs/half$half.log"
    n=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$logs/half$half.log" | tail -1)
    passed=$(( passed + ${n:-0} ))
  done
  [ "$status" -ne 0 ] || [ "$passed" -eq "${#names[@]}" ] || { echo "wasm-tests.sh: $passed of ${#names[@]} tests passed in the two halves" >&2; status=1; }
  return "$status"
}
# The runner reads the page's output with a script the page answers only between tests that
# yield, and the suite yields seldom (about 40 s unoptimised, sharing the machine with the Node
# run): tests/webdriver.json raises ChromeDriver's script timeout from 30 s (without it, the run
# beside Node's failed with "Timed out receiving message from renderer: 30.000"), and the
# runner's own timeout, 20 s by default, is raised here.
in_chromium() {
  CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_WEBDRIVER_JSON="$PWD/tests/webdriver.json" WASM_BINDGEN_USE_BROWSER=1 \
    WASM_BINDGEN_TEST_TIMEOUT=120 wasm-bindgen-test-runner "$wasm"
}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
case $mode in
  node) in_node_halves; exit ;;
  browser) in_chromium; exit ;;
esac

echo "[wasm] $wasm: in Node and in Chromium, side by side"
in_node > "$logs/node.log" 2>&1 &
node_pid=$!
in_chromium > "$logs/browser.log" 2>&1 &
browser_pid=$!
status=0
wait "$node_pid" || status=$?
echo "=== in Node"
cat "$logs/node.log"
wait "$browser_pid" || { s=$?; [ "$status" -ne 0 ] || status=$s; }
echo "=== in Chromium"
cat "$logs/browser.log"
exit "$status"
