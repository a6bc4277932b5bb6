//! The simulator's figures checked by hand: logs written here, each request's token count read
//! from a build of the log as it stood when the request went out (`build_request`, not the
//! simulator), each answer's output from the usage the log records, and the cache's split, the
//! money, the shares and the counts worked out in the test from the price rows of
//! `src/cost/prices.rs` (copied here as numbers). Also: the policies known by name, and the model
//! each request of a log that switched models is priced at.

use contextview::request::{build_request, BuildInput};
use contextview::session::{Command, Session};
use contextview::simulate::{simulate, Policy, PolicyChoice, PolicyName, SimulateInput, Simulation};
use contextview::tokens::{item_size, Family};
use contextview::update::Header;
use contextview::Item;
use pretty_assertions::assert_eq;
use serde_json::{json, Map, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A log written command by command; `send()` keeps the log as it stands, where a request goes out.
struct Script {
    session: Session,
    /// The log as it stood at each request.
    sent: Vec<String>,
}

impl Script {
    fn new(id: &str) -> Script {
        Script { session: Session::create(Header::new(id)), sent: Vec::new() }
    }

    fn run(&mut self, at: &str, command: Value) -> &mut Script {
        let p = self.session.dispatch(serde_json::from_value::<Command>(command.clone()).unwrap(), Some(at.to_owned())).unwrap();
        assert_eq!(p.error, None, "{command}");
        self
    }

    fn send(&mut self) -> &mut Script {
        self.sent.push(self.text());
        self
    }

    fn text(&self) -> String {
        let records: String = self.session.records().iter().map(|r| r.to_line() + "\n").collect();
        format!("{}\n{records}", self.session.header().unwrap().to_line())
    }
}

fn object(value: Value) -> Map<String, Value> {
    serde_json::from_value(value).unwrap()
}

/// The input tokens of the request built from `log` with `options` (a build of its own).
fn tokens_of(log: &str, options: Value) -> u64 {
    let mut input: BuildInput = serde_json::from_value(options).unwrap();
    input.log = Some(log.to_owned());
    build_request(&input).unwrap().built.report.tokens.request
}

fn run(log: &str, options: Value, policies: Vec<PolicyChoice>) -> Simulation {
    simulate(&SimulateInput { log: log.to_owned(), options: object(options), policies, cost_models: Vec::new() }).unwrap()
}

fn close(actual: f64, expected: f64, what: &str) {
    assert!((actual - expected).abs() < 1e-12, "{what}: {actual} != {expected}");
}

const LONG: &str = "The parser drops the last line of every file that does not end with a newline. ";

#[test]
fn the_policies_known_by_name_are_default_eager_and_off_and_any_other_name_is_refused_with_them() {
    assert_eq!(PolicyName::ALL.map(PolicyName::as_str), ["default", "eager", "off"]);
    // What each lays over the simulation's options, written out here.
    assert_eq!(Value::Object(PolicyName::Default.options()), json!({}));
    assert_eq!(Value::Object(PolicyName::Eager.options()), json!({"pruning": {"stepTurns": 1, "keepSteps": 2, "batchSteps": 1, "hardClearSteps": 2}}));
    assert_eq!(Value::Object(PolicyName::Off.options()), json!({"pruning": {"enabled": false}}));
    for name in PolicyName::ALL {
        assert_eq!(name.as_str().parse::<PolicyName>(), Ok(name));
        let policy = name.policy();
        assert_eq!((policy.name.as_str(), policy.options), (name.as_str(), name.options()));
        assert!(!policy.summary.is_empty(), "{name} says what it does");
    }
    // The names the CLI and the inspector used before are refused, with the names there are.
    for old in ["no-pruning", "prune-every-turn", "Eager", ""] {
        let e = old.parse::<PolicyName>().unwrap_err();
        assert_eq!(e.to_string(), format!("unknown policy `{old}`: the policies known by name are `default`, `eager`, `off`"));
    }
    // `simulate` takes a name or a policy of one's own.
    let input: SimulateInput = serde_json::from_value(json!({
        "log": "", "options": {"provider": "anthropic"}, "policies": ["off", {"name": "mine", "options": {"pruning": {"keepSteps": 4}}}],
    }))
    .unwrap();
    assert_eq!(input.policies, [PolicyChoice::Named(PolicyName::Off), Policy::new("mine", object(json!({"pruning": {"keepSteps": 4}}))).into()]);
    let refused = |policies: Value| contextview::diagnostic::from_value::<SimulateInput>(json!({"log": "", "options": {"provider": "anthropic"}, "policies": policies})).unwrap_err();
    let e = refused(json!(["off", "sometimes"]));
    assert!(e.contains("unknown policy `sometimes`: the policies known by name are `default`, `eager`, `off`"), "{e}");
    let e = refused(json!([{"name": "mine", "option": {}}]));
    assert!(e.contains("unknown field `option`"), "{e}");
}

/// Three prompts, each answered after a tool round whose result is long: a session pruning acts
/// on once the window is small.
fn tool_rounds() -> String {
    let mut s = Script::new("rounds");
    for (turn, minute) in ["10", "11", "12"].iter().enumerate() {
        let at = |second: u32| format!("2026-12-04T10:{minute}:{second:02}Z");
        let call = format!("c{turn}");
        s.run(&at(0), json!({"type": "userMessage", "text": format!("Look at part {turn} of the parser.")}));
        s.run(&at(5), json!({"type": "assistantResponse", "text": "Reading.", "toolCalls": [{"id": call, "name": "read", "input": {"path": "parse.rs"}}]}));
        s.run(&at(10), json!({"type": "toolResult", "toolCallId": call, "output": LONG.repeat(60)}));
        s.run(&at(15), json!({"type": "assistantResponse", "text": "Done with this part."}));
    }
    s.run("2026-12-04T10:13:00Z", json!({"type": "userMessage", "text": "Sum it up."}));
    s.text()
}

#[test]
fn a_policy_named_is_the_policy_written_out() {
    let log = tool_rounds();
    let options = json!({"provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 4000});
    let written_out = |name: &str, options: Value| PolicyChoice::from(Policy::new(name, object(options)));
    let named = run(&log, options.clone(), vec![PolicyName::Default.into(), PolicyName::Eager.into(), PolicyName::Off.into()]);
    let by_hand = run(
        &log,
        options,
        vec![
            written_out("default", json!({})),
            written_out("eager", json!({"pruning": {"stepTurns": 1, "keepSteps": 2, "batchSteps": 1, "hardClearSteps": 2}})),
            written_out("off", json!({"pruning": {"enabled": false}})),
        ],
    );
    assert_eq!(named.policies, by_hand.policies);
    let [default, eager, off] = &named.policies[..] else { panic!("{named:?}") };
    // Over a 4,000-token window, eager pruning sends less than none, and the default no more than none.
    assert!(eager.totals.tokens < off.totals.tokens, "{} < {}", eager.totals.tokens, off.totals.tokens);
    assert!(default.totals.tokens <= off.totals.tokens);
    assert_eq!((default.requests.len(), eager.requests.len(), off.requests.len()), (7, 7, 7));
}

/// Anthropic (claude-sonnet-4-5: $3 in, $15 out, $0.30 read, $3.75 written per million; cached
/// from 1,024 tokens; entries live five minutes): a long prompt, a tool round five seconds
/// later, and ten minutes on another long prompt.
#[test]
fn totals_and_shares_are_the_arithmetic_of_the_requests_and_the_price_row() {
    let mut s = Script::new("by-hand");
    s.run("2026-12-04T10:00:00Z", json!({"type": "userMessage", "text": LONG.repeat(80)})).send();
    let usage = |output: u64| json!({"provider": "anthropic", "model": "claude-sonnet-4-5", "inputTokens": 100, "outputTokens": output});
    s.run("2026-12-04T10:00:05Z", json!({"type": "assistantResponse", "text": "Reading it.", "toolCalls": [{"id": "c1", "name": "read", "input": {"path": "parse.rs"}}], "usage": usage(400)}));
    s.run("2026-12-04T10:00:10Z", json!({"type": "toolResult", "toolCallId": "c1", "output": "fn parse(s: &str) -> Vec<&str> { s.split('\\n').collect() }"})).send();
    s.run("2026-12-04T10:00:15Z", json!({"type": "assistantResponse", "text": "Found it.", "usage": usage(250)}));
    s.run("2026-12-04T10:10:15Z", json!({"type": "userMessage", "text": LONG.repeat(60)})).send();
    let options = json!({"provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 2000});
    let t: Vec<u64> = s.sent.iter().map(|log| tokens_of(log, json!({"provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 2000, "pruning": {"enabled": false}}))).collect();
    // What the arithmetic below assumes of the counts: the first is cacheable, only the last is
    // over the 2,000-token window.
    assert!(t[0] >= 1024 && t[0] < t[1] && t[1] <= 2000 && t[2] > 2000, "{t:?}");

    let sim = run(&s.text(), options, vec![PolicyName::Off.into()]);
    let p = &sim.policies[0];
    assert_eq!(p.errors, Vec::<String>::new());
    let r = &p.requests;
    assert_eq!(r.iter().map(|x| x.tokens).collect::<Vec<_>>(), t);
    // Request 0: nothing cached, all written. Request 1 (10 s on) extends it: its t0 tokens
    // read, the rest written. Request 2, ten minutes after the entries were last used (five
    // minutes' life): nothing read, all written.
    let split: Vec<(u64, u64, u64)> = r.iter().map(|x| (x.cost.cache.read, x.cost.cache.written, x.cost.cache.uncached)).collect();
    assert_eq!(split, [(0, t[0], 0), (t[0], t[1] - t[0], 0), (0, t[2], 0)]);
    // Output: the provider's counts the log records, 400 and 250; the last request has no answer.
    assert_eq!(r.iter().map(|x| x.cost.output).collect::<Vec<_>>(), [400, 250, 0]);
    let (t0, t1, t2) = (t[0] as f64, t[1] as f64, t[2] as f64);
    let dollars = [
        (t0 * 3.75 + 400.0 * 15.0) / 1e6,                      // written at $3.75, 400 out at $15
        (t0 * 0.30 + (t1 - t0) * 3.75 + 250.0 * 15.0) / 1e6, // t0 read at $0.30, the rest written
        (t2 * 3.75) / 1e6,                                     // all written again, no output
    ];
    for (x, d) in r.iter().zip(dollars) {
        close(x.cost.dollars, d, &format!("request {}", x.index));
    }
    for (x, share) in r.iter().zip([t0 / 2000.0, t1 / 2000.0, t2 / 2000.0]) {
        close(x.window_share, share, "window share");
    }
    let totals = &p.totals;
    assert_eq!(
        (totals.requests, totals.tokens, totals.read, totals.written, totals.uncached, totals.output, totals.over_window),
        // tokens t0+t1+t2; read t0; written t0 + (t1-t0) + t2 = t1+t2; nothing uncached;
        // output 400 + 250 = 650; one request (the last) over the window.
        (3, t[0] + t[1] + t[2], t[0], t[1] + t[2], 0, 650, 1),
    );
    close(totals.cached_share, t0 / (t0 + t1 + t2), "cached share");
    close(totals.max_window_share, t2 / 2000.0, "largest share");
    close(totals.dollars, dollars.iter().sum(), "total");
    // Regrouped: t0 + (t1 - t0) + t2 = t1 + t2 tokens written at $3.75, t0 read at $0.30.
    close(totals.dollars, (t0 * 0.30 + (t1 + t2) * 3.75 + 650.0 * 15.0) / 1e6, "total, regrouped");
}

/// OpenAI Chat Completions (gpt-4.1: $2 in, $8 out, $0.50 read per million, writes free;
/// cached from 1,024 tokens in steps of 128), and a policy whose limits refuse the requests that
/// carry a tool call's long id.
#[test]
fn openai_reads_in_128_token_steps_and_requests_a_policy_cannot_build_are_its_errors() {
    let mut s = Script::new("openai");
    let usage = |output: u64| json!({"provider": "openai-chat", "model": "gpt-4.1", "inputTokens": 100, "outputTokens": output});
    s.run("2026-12-04T10:00:00Z", json!({"type": "userMessage", "text": LONG.repeat(90)})).send();
    let id = "call_0123456789abcdefghijklmnop";
    s.run("2026-12-04T10:00:05Z", json!({"type": "assistantResponse", "text": "Reading it.", "toolCalls": [{"id": id, "name": "read", "input": {"path": "parse.rs"}}], "usage": usage(300)}));
    s.run("2026-12-04T10:00:10Z", json!({"type": "toolResult", "toolCallId": id, "output": "fn parse() {}"})).send();
    s.run("2026-12-04T10:00:15Z", json!({"type": "assistantResponse", "text": "Found it.", "usage": usage(200)}));
    s.run("2026-12-04T10:00:20Z", json!({"type": "userMessage", "text": "Fix it."})).send();
    let options = json!({"provider": "openai-chat", "model": "gpt-4.1"});
    let t: Vec<u64> = s.sent.iter().map(|log| tokens_of(log, options.clone())).collect();
    assert!(t[0] >= 1024 && t[0] < t[1] && t[1] < t[2], "{t:?}");
    // A cached prefix of n tokens is read as 1,024 + whole steps of 128 beyond it.
    let stepped = |n: u64| 1024 + (n - 1024) / 128 * 128;

    let limited = Policy::new("8-character ids", object(json!({"limits": {"openaiChatMaxCallId": 8}})));
    let sim = run(&s.text(), options, vec![PolicyName::Default.into(), limited.into()]);
    let [default, limited] = &sim.policies[..] else { panic!("{sim:?}") };
    let r = &default.requests;
    let split: Vec<(u64, u64, u64)> = r.iter().map(|x| (x.cost.cache.read, x.cost.cache.written, x.cost.cache.uncached)).collect();
    assert_eq!(split, [(0, t[0], 0), (stepped(t[0]), t[1] - stepped(t[0]), 0), (stepped(t[1]), t[2] - stepped(t[1]), 0)]);
    let (t0, t1, t2) = (t[0] as f64, t[1] as f64, t[2] as f64);
    let (s0, s1) = (stepped(t[0]) as f64, stepped(t[1]) as f64);
    let dollars = [
        (t0 * 2.0 + 300.0 * 8.0) / 1e6,                     // a free write is billed as input
        (s0 * 0.5 + (t1 - s0) * 2.0 + 200.0 * 8.0) / 1e6, // the stepped prefix read at $0.50
        (s1 * 0.5 + (t2 - s1) * 2.0) / 1e6,
    ];
    for (x, d) in r.iter().zip(dollars) {
        close(x.cost.dollars, d, &format!("request {}", x.index));
    }
    // Read: the two stepped prefixes; written: what each request did not read, t0 + (t1 - s0) +
    // (t2 - s1); output 300 + 200.
    let (read, written) = (stepped(t[0]) + stepped(t[1]), t[0] + (t[1] - stepped(t[0])) + (t[2] - stepped(t[1])));
    assert_eq!((default.totals.read, default.totals.written, default.totals.uncached, default.totals.output), (read, written, 0, 500));
    close(default.totals.cached_share, (s0 + s1) / (t0 + t1 + t2), "cached share");
    // gpt-4.1's window is 1,047,576 tokens: nothing near it.
    close(default.totals.max_window_share, t2 / 1_047_576.0, "largest share");
    assert_eq!(default.errors, Vec::<String>::new());

    // Under 8-character ids the two requests after the call cannot be built; the first is
    // priced as it is under the default.
    assert_eq!(limited.errors.len(), 2, "{:?}", limited.errors);
    for (e, index) in limited.errors.iter().zip([1, 2]) {
        assert!(e.starts_with(&format!("request {index}: invalid_payload")) && e.contains("openai_chat.tool_call_id_length"), "{e}");
    }
    assert_eq!(limited.requests.iter().map(|x| x.index).collect::<Vec<_>>(), [0]);
    let totals = &limited.totals;
    assert_eq!((totals.requests, totals.tokens, totals.read, totals.written, totals.uncached, totals.output), (1, t[0], 0, t[0], 0, 300));
    close(totals.dollars, dollars[0], "the one request built");
}

/// A session that began on Claude and moved to Gemini 3 Pro: the requests after the switch go to
/// gemini-3-pro-preview and are priced at its row ($2 in, $12 out per million; cached from
/// 4,096 tokens, so none of these small requests is), the one before it at gemini-2.5-pro's
/// ($1.25 in, $10 out; cached from 2,048): the provider's default, since the model the log
/// named then is Anthropic's.
fn switched() -> Script {
    let mut s = Script::new("switched");
    s.run("2026-12-04T10:00:00Z", json!({"type": "switchModel", "provider": "anthropic", "model": "claude-opus-4-6"}));
    s.run("2026-12-04T10:00:01Z", json!({"type": "userMessage", "text": "Where is the parser?"})).send();
    s.run("2026-12-04T10:00:05Z", json!({"type": "assistantResponse", "text": "In src/parse.rs.", "usage": {"provider": "anthropic", "model": "claude-opus-4-6", "inputTokens": 50, "outputTokens": 120}}));
    s.run("2026-12-04T10:01:00Z", json!({"type": "switchModel", "provider": "gemini", "model": "gemini-3-pro-preview"}));
    let usage = |output: u64| json!({"provider": "gemini", "model": "gemini-3-pro-preview", "inputTokens": 80, "outputTokens": output});
    s.run("2026-12-04T10:01:01Z", json!({"type": "userMessage", "text": "Read it."})).send();
    s.run("2026-12-04T10:01:05Z", json!({"type": "assistantResponse", "text": "Reading.", "toolCalls": [{"id": "c1", "name": "read", "input": {"path": "src/parse.rs"}}], "usage": usage(700)}));
    s.run("2026-12-04T10:01:10Z", json!({"type": "toolResult", "toolCallId": "c1", "output": "fn parse() {}"})).send();
    s.run("2026-12-04T10:01:15Z", json!({"type": "assistantResponse", "text": "It splits on newlines.", "usage": usage(900)}));
    s.run("2026-12-04T10:01:20Z", json!({"type": "userMessage", "text": "Thanks."})).send();
    s
}

#[test]
fn each_request_is_priced_at_the_model_the_log_had_switched_to_and_an_explicit_model_wins() {
    let s = switched();
    let log = s.text();
    let sim = run(&log, json!({"provider": "gemini"}), vec![]);
    let r = &sim.policies[0].requests;
    let models: Vec<(&str, &str)> = r.iter().map(|x| (x.model.as_str(), x.priced_as.as_str())).collect();
    assert_eq!(models, [("gemini-2.5-pro", "gemini-2.5-pro"), ("gemini-3-pro-preview", "gemini-3-pro"), ("gemini-3-pro-preview", "gemini-3-pro"), ("gemini-3-pro-preview", "gemini-3-pro")]);
    assert_eq!((sim.model.as_str(), sim.cost_model.model_prefix.as_str(), sim.window), ("gemini-3-pro-preview", "gemini-3-pro", 1_048_576));
    let t: Vec<u64> = s.sent.iter().map(|log| tokens_of(log, json!({"provider": "gemini"}))).collect();
    assert!(t.iter().all(|&n| n < 2048), "below every cache minimum: {t:?}");
    assert_eq!(r.iter().map(|x| x.tokens).collect::<Vec<_>>(), t);
    assert!(r.iter().all(|x| x.cost.cache.read == 0 && x.cost.cache.written == 0 && x.cost.cache.uncached == x.tokens), "{r:?}");
    // The first answer's count is Claude's, not Gemini's: its output is the estimate of its text
    // in Gemini's count. The others are Gemini's own counts.
    let answer = Item::Assistant(contextview::conversation::AssistantText { id: "a".into(), text: String::from("In src/parse.rs.").into(), origin: None, signature: None, annotations: None });
    let o0 = item_size(&answer, Family::Gemini).tokens;
    assert_eq!(r.iter().map(|x| x.cost.output).collect::<Vec<_>>(), [o0, 700, 900, 0]);
    let t: Vec<f64> = t.iter().map(|&n| n as f64).collect();
    let dollars = [
        (t[0] * 1.25 + o0 as f64 * 10.0) / 1e6, // gemini-2.5-pro
        (t[1] * 2.0 + 700.0 * 12.0) / 1e6,      // gemini-3-pro from here on
        (t[2] * 2.0 + 900.0 * 12.0) / 1e6,
        (t[3] * 2.0) / 1e6,
    ];
    for (x, d) in r.iter().zip(dollars) {
        close(x.cost.dollars, d, &format!("request {}", x.index));
    }
    close(sim.policies[0].totals.dollars, dollars.iter().sum(), "total");

    // A model given is every request's: gemini-2.5-flash ($0.30 in, $2.50 out), and Gemini's
    // counts of the answers are its family's.
    let flash = run(&log, json!({"provider": "gemini", "model": "gemini-2.5-flash"}), vec![]);
    let r = &flash.policies[0].requests;
    assert!(r.iter().all(|x| x.model == "gemini-2.5-flash" && x.priced_as == "gemini-2.5-flash"), "{r:?}");
    let t: Vec<f64> = s.sent.iter().map(|log| tokens_of(log, json!({"provider": "gemini", "model": "gemini-2.5-flash"})) as f64).collect();
    let dollars = [(t[0] * 0.3 + o0 as f64 * 2.5) / 1e6, (t[1] * 0.3 + 700.0 * 2.5) / 1e6, (t[2] * 0.3 + 900.0 * 2.5) / 1e6, (t[3] * 0.3) / 1e6];
    for (x, d) in r.iter().zip(dollars) {
        close(x.cost.dollars, d, &format!("flash request {}", x.index));
    }

    // Simulated at Anthropic, the first request goes to the Claude model the log named; after the
    // switch to Gemini the log names no Anthropic model, and a build takes the provider's
    // default, as `buildRequest` and the timeline do.
    let claude = run(&log, json!({"provider": "anthropic"}), vec![]);
    let models: Vec<&str> = claude.policies[0].requests.iter().map(|x| x.priced_as.as_str()).collect();
    assert_eq!(models, ["claude-opus-4-6", "claude-sonnet-4", "claude-sonnet-4", "claude-sonnet-4"]);
    assert_eq!(claude.policies[0].requests[0].cost.output, 120, "Claude's own count of its answer");
}

#[test]
fn a_model_the_log_switched_to_without_a_price_row_is_refused_and_a_hosts_row_prices_it() {
    let mut s = Script::new("unpriced");
    s.run("2026-12-04T10:00:00Z", json!({"type": "switchModel", "provider": "anthropic", "model": "mistral-large"}));
    s.run("2026-12-04T10:00:01Z", json!({"type": "userMessage", "text": "Hello."}));
    let log = s.text();
    let mut input = SimulateInput { log: log.clone(), options: object(json!({"provider": "anthropic"})), policies: Vec::new(), cost_models: Vec::new() };
    let e = simulate(&input).unwrap_err();
    assert_eq!(e.code(), "unknown_model");
    assert!(e.message().contains("`mistral-large`"), "{}", e.message());
    let mut row = contextview::cost::model_for(contextview::Provider::Anthropic, "claude-sonnet-4-5", &[]).unwrap();
    row.model_prefix = "mistral".into();
    row.prices.input = 1.0;
    input.cost_models = vec![row];
    let sim = simulate(&input).unwrap();
    let r = &sim.policies[0].requests;
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].model.as_str(), r[0].priced_as.as_str()), ("mistral-large", "mistral"));
    // Below the 1,024-token minimum: every token fresh input at the host's $1 a million.
    let t0 = tokens_of(&log, json!({"provider": "anthropic"}));
    assert!(t0 < 1024, "{t0}");
    close(r[0].cost.dollars, t0 as f64 * 1.0 / 1e6, "priced at the host's row");
}
