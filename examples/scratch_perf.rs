use std::time::Instant;
use contextview::request::BuildInput;
use contextview::session::Session;
use contextview::Provider;
use serde_json::json;

fn main() {
    let mut lines = vec![json!({"format":"contextview.session-log","version":1,"sessionId":"bench"}).to_string()];
    let mut seq = 0;
    let ts = "2026-12-01T00:00:00Z";
    let mut push = |lines: &mut Vec<String>, u: serde_json::Value| { seq += 1; lines.push(json!({"seq": seq, "ts": ts, "update": u}).to_string()); };
    for turn in 0..400 {
        push(&mut lines, json!({"sessionUpdate":"user_message_chunk","messageId":format!("u{turn}"),"content":{"type":"text","text":format!("Step {turn}: look at module_{}.rs and tell me what the parse function returns when the input is empty.", turn%37)}}));
        push(&mut lines, json!({"sessionUpdate":"agent_thought_chunk","messageId":format!("t{turn}"),"content":{"type":"text","text":"I should read the file before answering. ".repeat(3)},"_meta":{"contextview":{"provider":"anthropic","model":"claude-sonnet-4-5","signature":format!("{:x<64}", format!("sig{turn}"))}}}));
        push(&mut lines, json!({"sessionUpdate":"agent_message_chunk","messageId":format!("a{turn}"),"content":{"type":"text","text":format!("Reading module_{}.rs.", turn%37)},"_meta":{"contextview":{"provider":"anthropic","model":"claude-sonnet-4-5"}}}));
        let id = format!("toolu_{turn:06}");
        push(&mut lines, json!({"sessionUpdate":"tool_call","toolCallId":id,"title":"Read file","kind":"read","status":"pending","rawInput":{"path":format!("src/module_{}.rs", turn%37)},"_meta":{"contextview":{"toolName":"read_file"}}}));
        let body: Vec<String> = (0..6).map(|i| format!("    let value_{i} = parse_{i}(input)?; // line {i} of turn {turn}")).collect();
        push(&mut lines, json!({"sessionUpdate":"tool_call_update","toolCallId":id,"status":"completed","content":[{"type":"content","content":{"type":"text","text":format!("fn parse(input: &str) -> Result<Ast, Error> {{\n{}\n}}\n", body.join("\n"))}}]}));
    }
    let log = lines.join("\n") + "\n";
    let mut session = Session::from_log(&log);
    let input = BuildInput { system: Some("You are a coding agent.".into()), ..BuildInput::new(Provider::Anthropic) };
    let built = session.build(&input).unwrap();
    println!("items {} body {} bytes", session.items().len(), built.body.len());
    let n = 30;
    let t = Instant::now();
    for _ in 0..n { let _ = session.build(&input).unwrap(); }
    println!("build (replay cached): {:.3} ms", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    let records = session.records().to_vec();
    let t = Instant::now();
    for _ in 0..n { let _ = contextview::update::replay(&records); }
    println!("replay: {:.3} ms", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    let items = session.items().to_vec();
    let t = Instant::now();
    for _ in 0..n { let _: u64 = items.iter().map(|i| contextview::tokens::item_tokens(i, contextview::tokens::Family::Anthropic)).sum(); }
    println!("estimate all items: {:.3} ms", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    let t = Instant::now();
    for _ in 0..n { let _ = contextview::view::repair::repair(&items, &Default::default()); }
    println!("repair: {:.3} ms", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    let refs: Vec<&contextview::Item> = items.iter().collect();
    let opts = input.options();
    let t = Instant::now();
    for _ in 0..n { let _ = contextview::provider::render(Provider::Anthropic, &refs, &opts.render); }
    println!("render: {:.3} ms", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    let (payload, _) = contextview::provider::render(Provider::Anthropic, &refs, &opts.render);
    let t = Instant::now();
    for _ in 0..n { let _ = payload.to_json(); }
    println!("serialize: {:.3} ms", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    let t = Instant::now();
    for _ in 0..n { let _ = payload.validate_sized(&opts.render.limits, 1000); }
    println!("validate: {:.3} ms", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    let t = Instant::now();
    for _ in 0..n { let _ = contextview::view::report::by_source(&refs, None, &[], contextview::tokens::Family::Anthropic); }
    println!("by_source: {:.3} ms", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
}
