//! The npm package's first-load module (`contextview_bg.wasm`): what a build-and-answer loop
//! calls — logs, sessions, builds, validators, answers, simulation, prices.
//!
//! Nothing of its own: the library's JS facade, built with its `first-module` feature, is what
//! this cdylib exports (`scripts/build.sh` runs wasm-bindgen and wasm-opt on it).

extern crate contextview;
