//! Import + replay + build throughput on the largest corpus sessions, natively.
//! `cargo bench --bench import` (run by `make bench`). Prints MB/s of session file per stage
//! (median of runs); skipped with a message when `../shared/corpus` is absent.

use std::path::PathBuf;
use std::time::Instant;

use contextview_import::import;
use contextview::update::replay;
use contextview::view::{build, BuildOptions};
use contextview::Provider;

const RUNS: usize = 15;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let dir = std::env::var_os("CONTEXTVIEW_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
        .join("sessions");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("import bench SKIPPED: no corpus at {}", dir.display());
        return;
    };
    let mut files: Vec<(u64, PathBuf)> = entries.filter_map(|e| e.ok()).map(|e| (e.metadata().map(|m| m.len()).unwrap_or(0), e.path())).collect();
    files.sort();
    files.reverse();
    println!("{:<52} {:>8} {:>10} {:>10} {:>12} {:>10}", "session (largest 4)", "MB", "import", "replay", "build x4", "all");
    for (_, path) in files.into_iter().take(4) {
        let text = std::fs::read_to_string(&path).unwrap();
        let mb = text.len() as f64 / 1e6;
        let (mut ti, mut tr, mut tb) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let t = Instant::now();
            let imported = import(None, &text).unwrap();
            ti.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let mut items = replay(&imported.records).items;
            tr.push(t.elapsed().as_secs_f64());
            items.push(contextview::Item::User(contextview::conversation::UserMessage {
                id: "bench".into(),
                content: vec![contextview::Part::text("continue")],
                synthetic: None,
            }));
            let t = Instant::now();
            for provider in Provider::ALL {
                let built = build(&items, &BuildOptions::new(provider, contextview::request::default_model(provider))).unwrap();
                std::hint::black_box(built.body.len());
            }
            tb.push(t.elapsed().as_secs_f64());
        }
        let (i, r, b) = (median(ti), median(tr), median(tb));
        let name = path.file_name().unwrap().to_string_lossy();
        println!(
            "{:<52} {:>8.3} {:>7.0} MB/s {:>5.0} MB/s {:>7.0} MB/s {:>5.0} MB/s",
            &name[..name.len().min(52)],
            mb,
            mb / i,
            mb / r,
            mb / b,
            mb / (i + r + b)
        );
    }
}
