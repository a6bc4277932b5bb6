// The package's error classes. Their source is crates/js/src/errors.js, which the wasm facade imports
// too; scripts/build.sh writes it here whole, so the package holds one copy. (In the repository
// this file re-exports it, for the tests that import pkg-template/ without a build.)
export * from '../crates/js/src/errors.js';
