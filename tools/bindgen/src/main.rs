//! The one step of the wasm-bindgen CLI that `scripts/build.sh` uses, without the rest of the CLI.
//!
//! `contextview-bindgen INPUT.wasm --target web|nodejs --out-dir DIR --out-name NAME` writes
//! what `wasm-bindgen` 0.2.130 writes for the same arguments: the same library
//! (`wasm-bindgen-cli-support`, pinned to the crate's wasm-bindgen version), configured as the
//! CLI configures it when no other flag is given. Why: on a new machine `cargo install
//! wasm-bindgen-cli` compiles the CLI's test runner too (an HTTP client with compression, an HTTP
//! server, an argument parser), which the package's build never runs. `make test-wasm` still
//! installs the whole CLI: its test runner is what runs the integration suite as wasm.

use std::path::PathBuf;
use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

const USAGE: &str =
    "usage: contextview-bindgen INPUT.wasm --target web|nodejs --out-dir DIR --out-name NAME";

/// The arguments, all required.
#[derive(Debug, PartialEq)]
struct Args {
    input: PathBuf,
    target: Target,
    out_dir: PathBuf,
    out_name: String,
}

#[derive(Debug, PartialEq, Clone, Copy)]
enum Target {
    Web,
    Nodejs,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let (mut input, mut target, mut out_dir, mut out_name) = (None, None, None, None);
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--target" => {
                target = Some(match value("--target")?.as_str() {
                    "web" => Target::Web,
                    "nodejs" => Target::Nodejs,
                    other => return Err(format!("unknown target `{other}` (web or nodejs)")),
                })
            }
            "--out-dir" => out_dir = Some(PathBuf::from(value("--out-dir")?)),
            "--out-name" => out_name = Some(value("--out-name")?),
            flag if flag.starts_with("--") => return Err(format!("unknown flag `{flag}`")),
            path if input.is_none() => input = Some(PathBuf::from(path)),
            extra => return Err(format!("a second input `{extra}`")),
        }
    }
    Ok(Args {
        input: input.ok_or("no input .wasm")?,
        target: target.ok_or("no --target")?,
        out_dir: out_dir.ok_or("no --out-dir")?,
        out_name: out_name.ok_or("no --out-name")?,
    })
}

/// The CLI's `rmain` with every flag at its default: each setter it calls is called here with
/// the value the CLI passes when the flag is absent, because some differ from `Bindgen::new()`'s
/// (`omit_default_module_path` is on in the library, off in the CLI; `typescript` the reverse).
#[allow(deprecated)] // reference_types(false): what the CLI passes for its deprecated flag
fn generate(args: &Args) -> anyhow::Result<()> {
    let mut b = Bindgen::new();
    match args.target {
        Target::Web => b.web(true)?,
        Target::Nodejs => b.nodejs(true)?,
    };
    b.input_path(&args.input)
        .debug(false)
        .demangle(true)
        .keep_lld_exports(false)
        .keep_debug(false)
        .split_debug_info(false)
        .remove_name_section(false)
        .remove_producers_section(false)
        .typescript(true)
        .omit_imports(false)
        .omit_default_module_path(false)
        .split_linked_modules(false)
        .js_string_builtins(false)
        .ts_typed_array_buffers(false)
        .reference_types(false)
        .reset_state_function(false)
        .force_enable_abort_handler(false)
        .out_name(&args.out_name);
    b.generate(&args.out_dir)
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("contextview-bindgen: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match generate(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("contextview-bindgen: {err:?}");
            ExitCode::FAILURE
        }
    }
}
