//! A long generated session, written as our log: prompts each followed by tool rounds with
//! sizeable outputs, an image every few rounds, a request built after each, and a compaction
//! every 40 rounds (about 1 MB: a 200k window filled by an agent that compacts rather than
//! prunes, as Claude Code does) — what an autonomous run leaves after hours. The opening bench
//! reads it.
//!
//! `cargo run --release --example long_session -- BYTES PATH [CHECKPOINT_EVERY]` writes a log
//! of about BYTES to PATH, with checkpoints after its compactions (and every CHECKPOINT_EVERY
//! bytes when given).

use contextview::session::{Effect, Session};
use contextview::update::Header;
use serde_json::json;

const NOW: &str = "2026-12-05T09:00:00Z";
const SUMMARY: &str = "## Goal\nPort the parser to the new lexer.\n## Constraints\nKeep the public API.\n## Progress\n### Done\nThe modules read so far.\n### In progress\nThe next module.\n### Blocked\nNone\n## Decisions\nNone\n## Next steps\nRead the next module.\n## Files\nsrc/ (read)\n## Pending actions\nNone";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes: usize = args.get(1).and_then(|a| a.parse().ok()).expect("BYTES");
    let path = args.get(2).expect("PATH");
    let every: Option<u64> = args.get(3).and_then(|a| a.parse().ok());
    let mut s = Session::create(Header::new("long-session"));
    s.set_checkpoint_every(every);
    // As a host whose storage reads records back runs it: what storage confirmed, and the
    // results its requests clear or trim, are let go (its checkpoints hold them so).
    s.set_release_stored(true);
    let mut out = String::new();
    let run = |s: &mut Session, command: serde_json::Value, out: &mut String| -> bool {
        let mut p = s.dispatch(serde_json::from_value(command).unwrap(), Some(NOW.into())).unwrap();
        let mut due = false;
        let mut effects = std::mem::take(&mut p.effects);
        while !effects.is_empty() {
            for effect in std::mem::take(&mut effects) {
                // What the command waits for is read back from what was written, which runs it.
                let lines_of = |out: &String, keep: &dyn Fn(u64) -> bool| -> String {
                    out.lines().filter(|l| contextview::update::parse_log(l).records.first().is_some_and(|r| keep(r.seq))).map(|l| format!("{l}\n")).collect()
                };
                let ran = match effect {
                    Effect::Persist { ticket, lines } => {
                        for line in lines {
                            out.push_str(&line);
                            out.push('\n');
                        }
                        s.ack(ticket, contextview::session::PersistOutcome::Committed).unwrap();
                        None
                    }
                    Effect::CompactionDue { .. } => {
                        due = true;
                        None
                    }
                    Effect::Notify { .. } => None,
                    effect @ Effect::RetryAfter { .. } => panic!("no provider answers here: {effect:?}"),
                    Effect::ReadHistory { through, .. } => s.provide_history(lines_of(out, &|seq| seq <= through)).unwrap(),
                    Effect::ReadRecords { seqs, .. } => s.provide_records(&lines_of(out, &|seq| seqs.contains(&seq))).unwrap(),
                };
                if let Some(mut ran) = ran {
                    effects.append(&mut ran.effects);
                    p = ran;
                }
            }
        }
        assert!(p.error.is_none() && p.waiting.is_none(), "{:?} {:?}", p.error, p.waiting);
        due
    };
    run(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}), &mut out);
    // A small picture's bytes, repeated to about 60 KB of base64.
    let image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg".repeat(600);
    let mut round = 0u64;
    while out.len() < bytes {
        if round % 12 == 0 {
            run(&mut s, json!({"type": "userMessage", "text": format!("Task {round}: port module {round} to the new lexer.")}), &mut out);
        }
        let call = format!("c{round}");
        run(&mut s, json!({"type": "assistantResponse", "text": format!("Reading module {round}."),
            "toolCalls": [{"id": call, "name": "read", "input": {"path": format!("src/m{round}.rs")}}],
            "usage": {"inputTokens": 1000 + round % 50_000, "outputTokens": 40}}), &mut out);
        let output = format!("// src/m{round}.rs\n{}", format!("fn item_{round}() -> u32 {{ lexer.next_token()? }}\n").repeat(400));
        let images = if round % 9 == 4 { json!([{"data": image, "mimeType": "image/png"}]) } else { json!([]) };
        let due = run(&mut s, json!({"type": "toolResult", "toolCallId": call, "output": output, "images": images}), &mut out);
        // The agent's next request.
        let due = run(&mut s, json!({"type": "buildRequest", "options": {"provider": "anthropic"}}), &mut out) || due;
        if due || round % 40 == 39 {
            run(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 20000}}), &mut out);
            run(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}), &mut out);
        }
        round += 1;
    }
    run(&mut s, json!({"type": "userMessage", "text": "Continue."}), &mut out);
    let header = serde_json::to_string(s.header().unwrap()).unwrap();
    let text = if out.starts_with(&header) { out } else { format!("{header}\n{out}") };
    std::fs::write(path, text).unwrap();
}
