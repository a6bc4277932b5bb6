#!/usr/bin/env bash
# Builds the package at a git rev (default: HEAD~1) in a worktree of its own and runs
# benches/ab.bench.mjs: this tree's package (pkg/, from `make build`) beside the rev's, in one
# Node process. The rev's build has its own target directory under /tmp (a first build takes a
# few minutes; later ones of the same worktree are incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD~1}
[ -f pkg/node.mjs ] || { echo "ab.sh: pkg/ missing (run make build)" >&2; exit 1; }
sha=$(git rev-parse --verify "$rev^{commit}")
tree=${AB_WORKTREE:-/tmp/contextview-ab}
# A worktree whose directory was deleted is forgotten first; a directory that is not one of
# this repository's worktrees is not touched.
git worktree prune
if git worktree list --porcelain | grep -qx "worktree $tree"; then
  git -C "$tree" checkout -q -f --detach "$sha"
elif [ -e "$tree" ]; then
  echo "ab.sh: $tree exists and is not a worktree of this repository (set AB_WORKTREE)" >&2
  exit 1
else
  git worktree add -q --detach "$tree" "$sha"
fi
# The rev builds with this tree's tools (wasm-opt from node_modules).
[ -e "$tree/node_modules" ] || ln -s "$PWD/node_modules" "$tree/node_modules"
echo "[ab] building $rev ($sha) in $tree"
# A rev before tools/bindgen builds through the wasm-bindgen CLI, which only --test-runner installs.
grep -q 'contextview-bindgen' "$tree/scripts/build.sh" || scripts/install-tools.sh --test-runner
(cd "$tree" && scripts/build.sh | tail -1)
BASE="$tree/pkg" node benches/ab.bench.mjs
