//! The simulator on a session of our own: each request's cache reads and writes follow from the
//! one before (computed here from the requests' own token counts), entries expire with time, and
//! policies compare side by side.

use contextview::simulate::{simulate, Policy, PolicyChoice, PolicyName, SimulateInput};
use contextview::cost::{model_for, RequestCost};
use contextview::session::{Command, Session};
use contextview::update::Header;
use contextview::Provider;
use pretty_assertions::assert_eq;
use serde_json::{json, Map, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn run(s: &mut Session, at: &str, command: Value) {
    let p = s.dispatch(serde_json::from_value::<Command>(command).unwrap(), Some(at.to_owned())).unwrap();
    assert_eq!(p.error, None);
}

/// A prompt long enough to cache, a tool round ten seconds later, then — ten minutes on, past a
/// five-minute cache — another prompt: three requests.
fn log() -> String {
    let mut s = Session::create(Header::new("sim"));
    let long = "The parser drops the last line of every file that does not end with a newline. ".repeat(80);
    run(&mut s, "2026-12-04T10:00:00Z", json!({"type": "userMessage", "text": long}));
    run(&mut s, "2026-12-04T10:00:05Z", json!({"type": "assistantResponse", "text": "Reading it.", "toolCalls": [{"id": "c1", "name": "read", "input": {"path": "parser.rs"}}]}));
    run(&mut s, "2026-12-04T10:00:10Z", json!({"type": "toolResult", "toolCallId": "c1", "output": "fn parse(s: &str) -> Vec<&str> { s.split('\\n').collect() }"}));
    run(&mut s, "2026-12-04T10:00:15Z", json!({"type": "assistantResponse", "text": "Found it: split keeps an empty last piece."}));
    run(&mut s, "2026-12-04T10:10:15Z", json!({"type": "userMessage", "text": "Fix it."}));
    let header = s.header().unwrap().to_line();
    let records: String = s.records().iter().map(|r| r.to_line() + "\n").collect();
    format!("{header}\n{records}")
}

fn input(provider: &str, model: &str, policies: Vec<PolicyChoice>) -> SimulateInput {
    let options: Map<String, Value> = serde_json::from_value(json!({"provider": provider, "model": model, "contextWindow": 200000})).unwrap();
    SimulateInput { log: log(), options, policies, cost_models: Vec::new() }
}

#[test]
fn anthropic_reads_what_the_request_before_wrote_until_it_expires() {
    let sim = simulate(&input("anthropic", "claude-sonnet-4-5", vec![])).unwrap();
    assert_eq!(sim.cost_model.model_prefix, "claude-sonnet-4");
    let r = &sim.policies[0].requests;
    assert_eq!(r.len(), 3);
    let t: Vec<u64> = r.iter().map(|x| x.tokens).collect();
    assert!(t[0] >= 1024, "the first request is cacheable: {t:?}");
    // 1: nothing cached yet, everything written. 2: ten seconds on, it extends the first: that
    // is read, the rest written. 3: ten minutes on, the five-minute entries are gone.
    let cache: Vec<(u64, u64, u64)> = r.iter().map(|x| (x.cost.cache.read, x.cost.cache.written, x.cost.cache.uncached)).collect();
    assert_eq!(cache, [(0, t[0], 0), (t[0], t[1] - t[0], 0), (0, t[2], 0)]);
    assert_eq!(r[1].shared_tokens, t[0]);
    // Priced at Sonnet's rates: $3 in, $0.30 read, $3.75 written, $15 out, per million.
    let p = &sim.cost_model.prices;
    for x in r {
        let expected = (x.cost.cache.uncached as f64 * 3.0 + x.cost.cache.read as f64 * 0.3 + x.cost.cache.written as f64 * 3.75 + x.cost.output as f64 * 15.0) / 1e6;
        assert!((x.cost.dollars - expected).abs() < 1e-12, "{x:?}");
        assert_eq!(RequestCost::of(x.cost.cache, x.cost.output, p).dollars, x.cost.dollars);
    }
    // The answers that followed the first two requests are their output; the last has none yet.
    assert!(r[0].cost.output > 0 && r[1].cost.output > 0);
    assert_eq!(r[2].cost.output, 0);
    let totals = &sim.policies[0].totals;
    assert_eq!((totals.requests, totals.tokens, totals.read), (3, t.iter().sum(), t[0]));
    assert_eq!(r.iter().map(|x| x.at.clone().unwrap()).collect::<Vec<_>>(), ["2026-12-04T10:00:00Z", "2026-12-04T10:00:10Z", "2026-12-04T10:10:15Z"]);
}

#[test]
fn openai_reads_in_steps_and_policies_compare_side_by_side() {
    let no_cache = Policy::new("no cache", serde_json::from_value(json!({"cache": {"enabled": false}})).unwrap());
    let sim = simulate(&input("openai-responses", "gpt-5", vec![PolicyName::Default.into(), no_cache.into()])).unwrap();
    assert_eq!(sim.policies.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["default", "no cache"]);
    let r = &sim.policies[0].requests;
    let t0 = r[0].tokens;
    // The second request reads the first's tokens rounded down to a multiple of 128.
    assert_eq!(r[1].cost.cache.read, t0 / 128 * 128);
    assert_eq!(r[2].cost.cache.read, 0, "ten minutes idle: gone");
    // OpenAI caches without being asked: the same reads with `cache.enabled: false` (it only
    // drops the prompt_cache_key), at gpt-5's rates (reads $0.125, writes free).
    assert_eq!(sim.policies[1].requests[1].cost.cache.read, r[1].cost.cache.read);
    let read_saving = r[1].cost.cache.read as f64 * (1.25 - 0.125) / 1e6;
    let full = |x: &contextview::simulate::SimulatedRequest| (x.tokens as f64 * 1.25 + x.cost.output as f64 * 10.0) / 1e6;
    assert!((r[1].cost.dollars - (full(&r[1]) - read_saving)).abs() < 1e-12);
}

#[test]
fn a_model_without_prices_is_refused_and_a_hosts_row_prices_it() {
    let e = simulate(&input("anthropic", "mistral-large", vec![])).unwrap_err();
    assert_eq!(e.code(), "unknown_model");
    let mut row = model_for(Provider::Anthropic, "claude-sonnet-4-5", &[]).unwrap();
    row.model_prefix = "mistral".into();
    let mut with_row = input("anthropic", "mistral-large", vec![]);
    with_row.cost_models = vec![row];
    assert_eq!(simulate(&with_row).unwrap().policies[0].requests.len(), 3);
}

#[test]
fn a_sessions_reports_forecast_what_its_earlier_requests_cached() {
    let mut s = Session::create(Header::new("forecast"));
    let long = "The parser drops the last line of every file that does not end with a newline. ".repeat(80);
    let options = json!({"provider": "anthropic", "model": "claude-sonnet-4-5"});
    let build = |s: &mut Session, at: &str| match s.dispatch(serde_json::from_value(json!({"type": "buildRequest", "options": options})).unwrap(), Some(at.to_owned())).unwrap().reply {
        Some(contextview::session::Reply::Built { report, .. }) => report,
        other => panic!("{other:?}"),
    };
    run(&mut s, "2026-12-04T10:00:00Z", json!({"type": "userMessage", "text": long}));
    let first = build(&mut s, "2026-12-04T10:00:00Z");
    let f = first.forecast.clone().unwrap();
    assert_eq!((f.cache_read, f.cache_written, f.uncached, f.priced_as.as_str()), (0, first.tokens.request, 0, "claude-sonnet-4"));
    // Written at $3.75 a million.
    assert!((f.input_dollars - first.tokens.request as f64 * 3.75 / 1e6).abs() < 1e-12);
    run(&mut s, "2026-12-04T10:00:05Z", json!({"type": "assistantResponse", "text": "Reading.", "toolCalls": [{"id": "c1", "name": "read", "input": {}}]}));
    run(&mut s, "2026-12-04T10:00:10Z", json!({"type": "toolResult", "toolCallId": "c1", "output": "fn main() {}"}));
    let second = build(&mut s, "2026-12-04T10:00:10Z");
    let f = second.forecast.clone().unwrap();
    assert_eq!((f.cache_read, f.cache_written), (first.tokens.request, second.tokens.request - first.tokens.request));
    // Built on its own, the same request has nothing cached before it.
    let log: String = format!("{}\n{}", s.header().unwrap().to_line(), s.records().iter().map(|r| r.to_line() + "\n").collect::<String>());
    let input = serde_json::from_value(json!({"provider": "anthropic", "model": "claude-sonnet-4-5", "log": log})).unwrap();
    let alone = contextview::request::build_request(&input).unwrap().built.report.forecast.unwrap();
    assert_eq!((alone.cache_read, alone.cache_written), (0, second.tokens.request));
}
