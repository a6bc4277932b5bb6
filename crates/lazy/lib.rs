//! The npm package's lazy module (`contextview_lazy_bg.wasm`), loaded on first use: the
//! importers of other agents' sessions and the discovery engine, with YAML, globs and ignore
//! files.
//!
//! Nothing of its own: the library's JS facade, built with its `lazy-module` feature, is what
//! this cdylib exports (`scripts/build.sh` runs wasm-bindgen and wasm-opt on it, after cargo
//! builds it with the `release-lazy` profile, at `opt-level = "z"`).

extern crate contextview;
