#!/usr/bin/env bash
# Builds the npm package into pkg/, with its two wasm modules: the first-load one
# (contextview_bg.wasm, crate crates/first: what a build-and-answer loop needs) and the lazy one
# (contextview_lazy_bg.wasm, crate crates/lazy: importers and discovery, loaded on first use),
# both from one cargo run. For each:
#   cargo (release, wasm32) -> wasm-bindgen --target web (pkg/web) and --target nodejs (pkg/node)
#   -> wasm-opt once (npm binaryen 132; never Debian's wasm-opt 108) -> one copy, in pkg/web,
#   which the nodejs glue is pointed at. Then pkg-template/* into pkg/.
# The wasm-bindgen step is tools/bindgen: the CLI's library at the crate's exact version, called
# as the CLI calls it (the same bytes out), compiled here beside the modules in 60 CPU-seconds
# (`cargo install wasm-bindgen-cli` takes about 200: it builds the CLI's test runner too).
# Needs: rust target wasm32-unknown-unknown, node_modules (npm ci); scripts/install-tools.sh
# installs both.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
export PATH="$CARGO_HOME/bin:$PATH"

NAME=contextview
# A target directory of its own: `make test` builds the package while the native tests compile
# (cargo would otherwise make one wait for the other's lock on the shared directory).
TARGET_DIR=target/package
OUT=pkg
WASM_OPT=node_modules/.bin/wasm-opt
# rustc (1.95) marks its output with a target_features section (mutable-globals,
# nontrapping-float-to-int, bulk-memory(-opt), sign-ext, reference-types, multivalue,
# call-indirect-overlong) and wasm-opt 132 enables exactly those when it reads the module, so
# these flags change nothing today; they are the floor should that section ever be missing.
# Checked with the section stripped: without --enable-multivalue validation fails (wasm-bindgen's
# export shims return tuples); reference-types is needed for wasm-bindgen's externref table.
# simd128: the module is built with it (.cargo/config.toml; the estimator's block path).
WASM_OPT_FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-simd
                   --enable-mutable-globals --enable-reference-types --enable-multivalue)

die() { echo "build.sh: $*" >&2; exit 1; }

# The bindgen library must be the wasm-bindgen crate's version exactly (Cargo.lock holds both).
locked() { awk -v n="$1" '$0 == "name = \"" n "\"" {getline; gsub(/[^0-9.]/,""); print; exit}' Cargo.lock; }
want=$(locked wasm-bindgen)
have=$(locked wasm-bindgen-cli-support)
[ -n "$want" ] && [ "$want" = "$have" ] || die "wasm-bindgen-cli-support ${have:-missing} != wasm-bindgen ${want:-missing} in Cargo.lock (tools/bindgen/Cargo.toml pins it)"
[ -x "$WASM_OPT" ] || die "$WASM_OPT missing (run npm ci)"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# One cargo run builds both modules: the core and the JS surface (crates/js) are compiled once
# and linked into each. The lazy module's own crates (crates/lazy, the importers, discovery) are
# built at opt-level "z" by the per-package overrides in Cargo.toml: their code runs once per
# import or discovery, not once per request (BENCHMARKS.md).
# The bindgen tool compiles beside the modules, in a target directory of its own (one cargo would
# wait for the other's lock); unoptimised, as measured: 60 CPU-seconds to compile and 4.5 s for
# the four runs, against 172 and 1.2 at opt-level 1.
TOOL=target/tools/tool/contextview-bindgen
echo "[build] cargo build --profile tool -p $NAME-bindgen --target-dir target/tools (beside the modules)"
cargo build --locked --quiet --profile tool -p "$NAME-bindgen" --target-dir target/tools &
tool_pid=$!
# (If the modules' build fails, the tool's is not left running.)
trap 'kill "$tool_pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
echo "[build] cargo build --profile release --target wasm32-unknown-unknown -p $NAME-first -p $NAME-lazy --target-dir $TARGET_DIR"
cargo build --locked --profile release --target wasm32-unknown-unknown -p "$NAME-first" -p "$NAME-lazy" --target-dir "$TARGET_DIR"
wait "$tool_pid" || die "tools/bindgen did not compile"
for module in first lazy; do
  cp "$TARGET_DIR/wasm32-unknown-unknown/release/${NAME}_$module.wasm" "$tmp/$module.wasm"
done

rm -rf "$OUT"
mkdir -p "$OUT"
echo "[build] wasm-bindgen $have (web, nodejs: tools/bindgen); wasm-opt -Oz ($("$WASM_OPT" --version))"
for module in first lazy; do
  case $module in first) name=$NAME ;; lazy) name=${NAME}_lazy ;; esac
  "$TOOL" "$tmp/$module.wasm" --target web    --out-dir "$OUT/web"  --out-name "$name"
  "$TOOL" "$tmp/$module.wasm" --target nodejs --out-dir "$OUT/node" --out-name "$name"
  cmp -s "$OUT/web/${name}_bg.wasm" "$OUT/node/${name}_bg.wasm" \
    || die "the _bg.wasm differs between targets; optimise each separately"
  # One .wasm per module in the package: the CommonJS glue (Node's `require`, and `import`
  # through node.mjs) reads the web build's copy, the same bytes every other entry point loads.
  rm "$OUT/node/${name}_bg.wasm"
  node_glue="$OUT/node/${name}.js"
  grep -q "^const wasmPath = \`\${__dirname}/${name}_bg.wasm\`;$" "$node_glue" \
    || die "wasm-bindgen's nodejs glue no longer reads the wasm from wasmPath; update build.sh"
  sed -i "s|^const wasmPath = \`\${__dirname}/${name}_bg.wasm\`;$|const wasmPath = \`\${__dirname}/../web/${name}_bg.wasm\`;|" "$node_glue"
done
# Both modules optimised at once: wasm-opt runs on one core (29 s and 19 s here), so on two
# cores the pair takes as long as the larger.
pids=()
for name in "$NAME" "${NAME}_lazy"; do
  "$WASM_OPT" -Oz "${WASM_OPT_FEATURES[@]}" "$OUT/web/${name}_bg.wasm" -o "$tmp/$name.opt.wasm" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || die "wasm-opt failed"; done
for name in "$NAME" "${NAME}_lazy"; do
  cp "$tmp/$name.opt.wasm" "$OUT/web/${name}_bg.wasm"
done

# wasm-bindgen writes a package.json / .gitignore per output dir; the package root owns those.
rm -f "$OUT"/web/package.json "$OUT"/node/package.json "$OUT"/web/.gitignore "$OUT"/node/.gitignore
cp -R pkg-template/. "$OUT/"
# The error classes (crates/js/src/errors.js): one module in the package, errors.mjs (and errors.cjs for
# `require`), shared by every entry point and by both wasm glues, whose copies of the snippet
# become re-exports of it — so an error the wasm throws is an instance of the class a host imports.
cp crates/js/src/errors.js "$OUT/errors.mjs"
node_modules/.bin/esbuild crates/js/src/errors.js --format=cjs --platform=node --target=node20 --outfile="$OUT/errors.cjs" --log-level=warning
for target in web node; do
  # One copy per glue that uses it (both glues may share one snippets directory).
  found=("$OUT/$target"/snippets/*/src/errors.js)
  [ -f "${found[0]}" ] || die "wasm-bindgen's copy of crates/js/src/errors.js is not under $OUT/$target/snippets; update build.sh"
  for copy in "${found[@]}"; do
    case $target in
      web) printf "export * from '../../../../errors.mjs';\n" > "$copy" ;;
      node) printf "module.exports = require('../../../../errors.cjs');\n" > "$copy" ;;
    esac
  done
done
# The inspector's modules, shared with the page in www/: the <contextview-inspector> element
# (inspector.mjs) runs them in its shadow root.
mkdir -p "$OUT/inspector"
cp www/inspector.mjs www/workspace.mjs www/whatif.mjs www/views.mjs www/status.mjs www/markup.mjs www/style.mjs www/chart.mjs www/load.mjs www/request.mjs www/subagents.mjs www/inputs.mjs www/heads.mjs www/imported.mjs www/walk.mjs www/answer.mjs www/view-state.mjs www/follow.mjs www/options.mjs "$OUT/inspector/"
# The nodejs target is CommonJS while the package root is "type": "module".
printf '{"type":"commonjs"}\n' > "$OUT/node/package.json"
chmod +x "$OUT/cli.mjs"
# The Node API as one CommonJS module (index.cjs), which node.mjs re-exports: `require` gets every
# export `import` gets, from the same instances. Its JavaScript modules are bundled in; the wasm
# glue stays a module of its own.
node_modules/.bin/esbuild "$OUT/node-api.mjs" --bundle --platform=node --format=cjs --target=node20 \
  --external:./node/contextview.js --external:./node/contextview_lazy.js --external:./errors.mjs --outfile="$OUT/index.cjs" --log-level=warning
rm "$OUT/node-api.mjs"
# The error classes stay the one module the node glue requires too (errors.cjs).
grep -q 'require("./errors.mjs")' "$OUT/index.cjs" || die "index.cjs does not require ./errors.mjs; update build.sh"
sed -i 's|require("./errors.mjs")|require("./errors.cjs")|g' "$OUT/index.cjs"
# TypeScript's view of the CommonJS entry: the same declarations.
sed -e 's|\./web/contextview\.js|./node/contextview.js|g; s|\./web/contextview_lazy\.js|./node/contextview_lazy.js|g' "$OUT/index.d.ts" > "$OUT/index.d.cts"

for name in "$NAME" "${NAME}_lazy"; do
  raw=$(wc -c < "$OUT/web/${name}_bg.wasm")
  gz=$(gzip -9 -c "$OUT/web/${name}_bg.wasm" | wc -c)
  echo "[build] ${name}_bg.wasm: ${raw} bytes raw, ${gz} bytes gzip -9"
done
