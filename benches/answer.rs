//! Decoding a streamed answer natively, beside parsing its events' JSON with serde_json (the
//! floor of any decoder that reads the JSON): `cargo bench --bench answer` (run by `make bench`).
//! The workload: an Anthropic stream of about 2,000 text deltas, fed in 4 KiB chunks.

use std::time::Instant;

use contextview::answer::Decoder;
use contextview::Provider;

fn stream() -> String {
    let mut out = String::from("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_b\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n");
    out.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    let words = ["the ", "parser ", "drops ", "its ", "last ", "line ", "when ", "input ", "ends "];
    for i in 0..2000 {
        out.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{}\"}}}}\n\n",
            words[i % words.len()]
        ));
    }
    out.push_str("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n");
    out.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2000}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    out
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let text = stream();
    let bytes = text.as_bytes();
    let datas: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
    let (mut decode, mut parse) = (Vec::new(), Vec::new());
    for run in 0..31 {
        let t = Instant::now();
        let mut d = Decoder::new(Provider::Anthropic, "bench");
        let mut updates = 0;
        for chunk in bytes.chunks(4096) {
            updates += d.push(chunk).len();
        }
        let (answer, _, _) = d.finish();
        assert!(updates > 0 && !answer.blocks.is_empty());
        let decoded = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut n = 0;
        for data in &datas {
            n += usize::from(serde_json::from_str::<serde_json::Value>(data).is_ok());
        }
        assert_eq!(n, datas.len());
        let parsed = t.elapsed().as_secs_f64();
        if run > 0 {
            decode.push(decoded);
            parse.push(parsed);
        }
    }
    let (d, p) = (median(decode), median(parse));
    println!(
        "answer (native): {} KiB in {} events — decode {:.2} ms ({:.0} MiB/s), serde_json::Value parse of the events {:.2} ms: {:.2}×",
        bytes.len() / 1024,
        datas.len(),
        d * 1e3,
        bytes.len() as f64 / 1048576.0 / d,
        p * 1e3,
        d / p
    );
}
