//! The cost of a session under a policy: its requests replayed as the agent sent them (the
//! timeline's points, each built by one session after the one before, so each knows what it
//! repeats of the last), each request's input split by a [`Cache`](crate::cost::Cache) into what the provider's cache
//! serves, writes and leaves uncached, the answer that followed counted as output, all priced at
//! the rates of the model the request was built for; side by side for several policies (build
//! options such as pruning or the window), so "what would another policy have cost" has an answer.
//!
//! Each request goes to the model a build of the log as it stood would name: the options' model
//! when given, else the one the log last switched to for the simulated provider (a log that moved
//! from one model to another is priced at each in turn), else the provider's default. An answer's
//! output is the provider's own count where the log records it for the same model family (hidden
//! reasoning included), never less than the estimate of what it shows.
//!
//! The policies known by name ([`PolicyName`]: `default`, `eager`, `off`) are defined here once,
//! for the CLI's `--policy`, `simulate()`, the inspector's pruning choice and Rust callers.

use contextview_derive::ReadValue;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cost::{epoch_seconds, model_for, CostModel, Forecaster, RequestCost};
use crate::request::BuildInput;
use crate::session::Session;
use crate::tokens::{item_size, Family};
use crate::update::{parse_log, request_points, Replayer};

/// A policy: build options laid over the simulation's own (a name, and e.g. `{"pruning": …}`).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Policy {
    pub name: String,
    /// What it does, in a line (each policy known by name says; yours may).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// Build options (as `buildRequest` takes them) that differ from the simulation's.
    #[serde(default)]
    pub options: Map<String, Value>,
}

impl Policy {
    /// A policy of your own: `options` laid over the simulation's.
    pub fn new(name: impl Into<String>, options: Map<String, Value>) -> Policy {
        Policy { name: name.into(), summary: String::new(), options }
    }
}

/// The policies known by name. A policy is a choice of how to prune: these three are the
/// package's defaults, the other end of the trade between a small request and a cached prefix,
/// and none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyName {
    /// The options as given: pruning at the package's defaults (above half the window, deep and
    /// in batches, so the prefix the provider cached lasts).
    Default,
    /// Pruning as early and as often as its rules allow: both boundaries move every turn and
    /// every step, the last 2 steps kept, results 2 steps old cleared.
    Eager,
    /// No pruning: every tool result stays whole.
    Off,
}

impl PolicyName {
    /// Every policy known by name, in the order the CLI and the inspector list them.
    pub const ALL: [PolicyName; 3] = [PolicyName::Default, PolicyName::Eager, PolicyName::Off];

    pub fn as_str(self) -> &'static str {
        match self {
            PolicyName::Default => "default",
            PolicyName::Eager => "eager",
            PolicyName::Off => "off",
        }
    }

    /// What it does, in a line.
    pub fn summary(self) -> &'static str {
        match self {
            PolicyName::Default => "the package's pruning: above half the window, deep and in batches, so the cached prefix lasts",
            PolicyName::Eager => "pruning every turn and every step: the last 2 steps kept, results 2 steps old cleared",
            PolicyName::Off => "no pruning: every tool result stays whole",
        }
    }

    /// The build options it lays over the simulation's.
    pub fn options(self) -> Map<String, Value> {
        let pruning = match self {
            PolicyName::Default => return Map::new(),
            PolicyName::Eager => serde_json::json!({"stepTurns": 1, "keepSteps": 2, "batchSteps": 1, "hardClearSteps": 2}),
            PolicyName::Off => serde_json::json!({"enabled": false}),
        };
        Map::from_iter([("pruning".to_owned(), pruning)])
    }

    pub fn policy(self) -> Policy {
        Policy { name: self.as_str().to_owned(), summary: self.summary().to_owned(), options: self.options() }
    }
}

impl std::fmt::Display for PolicyName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name no policy has; its message lists the names there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPolicy(pub String);

impl std::fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = PolicyName::ALL.iter().map(|p| format!("`{p}`")).collect();
        write!(f, "unknown policy `{}`: the policies known by name are {}", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownPolicy {}

impl std::str::FromStr for PolicyName {
    type Err = UnknownPolicy;

    fn from_str(name: &str) -> Result<PolicyName, UnknownPolicy> {
        PolicyName::ALL.into_iter().find(|p| p.as_str() == name).ok_or_else(|| UnknownPolicy(name.to_owned()))
    }
}

impl<'de> Deserialize<'de> for PolicyName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<PolicyName, D::Error> {
        String::deserialize(deserializer)?.parse().map_err(serde::de::Error::custom)
    }
}

/// A policy as `simulate` takes it: a name it knows, or a name and options of your own.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PolicyChoice {
    Named(PolicyName),
    Custom(Policy),
}

impl PolicyChoice {
    pub fn policy(&self) -> Policy {
        match self {
            PolicyChoice::Named(name) => name.policy(),
            PolicyChoice::Custom(policy) => policy.clone(),
        }
    }
}

impl From<PolicyName> for PolicyChoice {
    fn from(name: PolicyName) -> PolicyChoice {
        PolicyChoice::Named(name)
    }
}

impl From<Policy> for PolicyChoice {
    fn from(policy: Policy) -> PolicyChoice {
        PolicyChoice::Custom(policy)
    }
}

/// A string is a name (refused with the names there are when it is none); anything else is read
/// as a [`Policy`], its errors worded as serde words them.
impl<'de> Deserialize<'de> for PolicyChoice {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<PolicyChoice, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(name) => name.parse().map(PolicyChoice::Named).map_err(serde::de::Error::custom),
            other => Policy::deserialize(other).map(PolicyChoice::Custom).map_err(serde::de::Error::custom),
        }
    }
}

/// What to simulate.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SimulateInput {
    /// The session log (JSON Lines text).
    pub log: String,
    /// Build options every policy starts from (`provider` required; `model`, `contextWindow`, …).
    /// A `model` given here is every request's; left out, each request goes to the model the log
    /// had switched to by then (for this provider), else the provider's default.
    pub options: Map<String, Value>,
    /// The policies to compare, by name or your own; none is the options as given (`default`).
    #[serde(default)]
    pub policies: Vec<PolicyChoice>,
    /// Prices and caching rules to use instead of (or beside) the built-in ones.
    #[serde(default)]
    pub cost_models: Vec<CostModel>,
}

/// One request under one policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimulatedRequest {
    pub index: usize,
    /// When it was sent (the time of the log's last record before it), when the log says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// Input tokens (the estimator's count of the request).
    pub tokens: u64,
    pub bytes: usize,
    /// The model it was built for and priced at, and the price row's model prefix.
    pub model: String,
    pub priced_as: String,
    /// Tokens it repeats of the request before it.
    pub shared_tokens: u64,
    /// Its share of the context window its build assumed (0 when the window is unknown).
    pub window_share: f64,
    #[serde(flatten)]
    pub cost: RequestCost,
}

/// A policy's requests and totals.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct PolicyResult {
    pub name: String,
    pub requests: Vec<SimulatedRequest>,
    pub totals: Totals,
    /// Why requests could not be built (a build the options refuse), with their index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub requests: usize,
    /// Input tokens sent, summed over the requests.
    pub tokens: u64,
    pub read: u64,
    pub written: u64,
    pub uncached: u64,
    pub output: u64,
    pub dollars: f64,
    /// Of the input, the share the cache served.
    pub cached_share: f64,
    /// The largest request's share of the window, and how many went over it.
    pub max_window_share: f64,
    pub over_window: usize,
}

/// A whole simulation: each policy's result, and the model the session is at when its log ends
/// (the options' model, else the one the log last switched to for this provider, else the
/// provider's default) with its window and price row; each request names its own.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Simulation {
    pub provider: crate::provider::Provider,
    pub model: String,
    pub window: u64,
    pub cost_model: CostModel,
    pub policies: Vec<PolicyResult>,
    /// The subagents the log started and what their requests used, as each reported at its end,
    /// priced at each one's model (its own price row, else the session's): their share beside the
    /// policies' prices of the session's own requests (no policy changes theirs).
    #[serde(default, skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub subagents: Option<SubagentShare>,
}

/// The subagents' share of a session's cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentShare {
    pub started: usize,
    pub spent: crate::update::record::Spent,
    /// Their requests' input, cache and output at list prices, in dollars.
    pub dollars: f64,
}

impl SubagentShare {
    fn of(links: &[crate::update::replay::SubagentLink], provider: crate::provider::Provider, session_row: &CostModel, rows: &[CostModel]) -> Option<SubagentShare> {
        if links.is_empty() {
            return None;
        }
        let mut share = SubagentShare { started: links.len(), spent: Default::default(), dollars: 0.0 };
        for link in links {
            let Some(spent) = &link.usage else { continue };
            share.spent.add(spent);
            let row = link.model.as_deref().and_then(|m| model_for(provider, m, rows)).unwrap_or_else(|| session_row.clone());
            let p = &row.prices;
            share.dollars += (spent.input_tokens as f64 * p.input
                + spent.output_tokens as f64 * p.output
                + spent.cache_read_tokens as f64 * p.cache_read
                + spent.cache_write_tokens as f64 * p.cache_write)
                / 1e6;
        }
        Some(share)
    }
}

/// Why a simulation could not run.
#[derive(Debug, Clone, PartialEq)]
pub enum SimulateError {
    InvalidOptions(String),
    /// No price row for the model: pass one in `costModels`.
    UnknownModel(String),
}

impl SimulateError {
    pub fn code(&self) -> &'static str {
        match self {
            SimulateError::InvalidOptions(_) => crate::error_codes::INVALID_OPTIONS,
            SimulateError::UnknownModel(_) => crate::error_codes::UNKNOWN_MODEL,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            SimulateError::InvalidOptions(m) | SimulateError::UnknownModel(m) => m,
        }
    }
}


/// Runs the simulation.
pub fn simulate(input: &SimulateInput) -> Result<Simulation, SimulateError> {
    let base: BuildInput = crate::diagnostic::from_value(Value::Object(input.options.clone())).map_err(SimulateError::InvalidOptions)?;
    let provider = base.provider;
    let walk = Walk::new(&input.log);
    // The model and window the session is at when the log ends, as a build of the whole log
    // would name them.
    let at_end = base.options_for(walk.end.state(), None);
    let model = at_end.render.model.clone();
    let row = price_row(provider, &model, &input.cost_models)?;
    let window = at_end.context_window.or_else(|| crate::view::ledger::model_window(&model)).unwrap_or(0);
    let default = [PolicyChoice::Named(PolicyName::Default)];
    let policies = if input.policies.is_empty() { &default[..] } else { &input.policies[..] };
    let mut results = Vec::with_capacity(policies.len());
    for policy in policies.iter().map(PolicyChoice::policy) {
        let mut options = input.options.clone();
        options.extend(policy.options.clone());
        let options: BuildInput =
            crate::diagnostic::from_value(Value::Object(options)).map_err(|e| SimulateError::InvalidOptions(format!("policy `{}`: {e}", policy.name)))?;
        results.push(walk.run(&policy.name, &options, &input.cost_models)?);
    }
    let subagents = SubagentShare::of(&walk.end.state().subagents, provider, &row, &input.cost_models);
    Ok(Simulation { provider, model, window, cost_model: row, policies: results, subagents })
}

/// The price row for a model: the host's rows first, then the built-in ones.
fn price_row(provider: crate::provider::Provider, model: &str, rows: &[CostModel]) -> Result<CostModel, SimulateError> {
    model_for(provider, model, rows).ok_or_else(|| SimulateError::UnknownModel(format!("no prices for {provider} `{model}`: pass a row for it in `costModels`")))
}

/// The answer to one request, as the log holds it.
#[derive(Default)]
struct Answer {
    /// Its items (text, reasoning, calls), whose estimate is its least output.
    items: Vec<crate::conversation::Item>,
    /// The output tokens the provider reported for it, by the family of the model that counted.
    reported: Vec<(Family, u64)>,
}

impl Answer {
    /// Output tokens in `family`'s count: the provider's, when a model of that family reported
    /// it, but never less than the estimate of what the answer shows (some agents log a count
    /// taken mid-stream).
    fn output(&self, family: Family) -> u64 {
        let estimate: u64 = self.items.iter().map(|item| item_size(item, family).tokens).sum();
        let reported: u64 = self.reported.iter().filter(|(f, _)| *f == family).map(|(_, n)| n).sum();
        estimate.max(reported)
    }
}

/// A log's requests, ready to be built under any options.
struct Walk<'a> {
    lines: Vec<&'a str>,
    points: Vec<crate::update::RequestPoint>,
    /// Line numbers the log reader refused (not appended).
    refused: std::collections::HashSet<usize>,
    /// Per request: when it was sent, and the answer that followed.
    at: Vec<Option<String>>,
    answers: Vec<Answer>,
    /// The whole log replayed (its rewinds applied).
    end: Replayer,
}

impl<'a> Walk<'a> {
    fn new(text: &'a str) -> Walk<'a> {
        let log = parse_log(text);
        let lines: Vec<&str> = text.split('\n').collect();
        let points = request_points(&log, lines.len());
        let refused = log.diagnostics.iter().filter(|d| d.severity == crate::diagnostic::Severity::Error || d.code == crate::update::codes::LOG_TORN_TAIL.code).filter_map(|d| d.line).collect();
        // When each request went out: the time of the last record before its point.
        let at = points
            .iter()
            .map(|p| log.records.iter().zip(&log.lines).filter(|(_, &line)| line < p.line).last().map(|(r, _)| r.ts.clone()).filter(|ts| !ts.is_empty()))
            .collect();
        // The answer to each request: the model's items between it and the next one, and the
        // usage reported for them (a refusal's anchor counts no output: it is not an answer's).
        let mut replayer = Replayer::new(&[]);
        let mut answers: Vec<Answer> = points.iter().map(|_| Answer::default()).collect();
        let mut next = 0;
        for (record, &line) in log.records.iter().zip(&log.lines) {
            while next < points.len() && !points[next].next && points[next].line <= line {
                next += 1;
            }
            let before = replayer.items().len();
            replayer.push(record);
            let Some(answer) = next.checked_sub(1).map(|i| &mut answers[i]) else { continue };
            let added = &replayer.items()[before.min(replayer.items().len())..];
            answer.items.extend(added.iter().filter(|item| item.is_assistant_side()).cloned());
            if let crate::update::RecordBody::Event(crate::update::Event::UsageAnchor(usage)) = &record.body {
                if usage.output_tokens > 0 && (usage.provider.is_some() || usage.model.is_some()) {
                    answer.reported.push((Family::of_names(usage.provider.as_deref(), usage.model.as_deref()), usage.output_tokens));
                }
            }
        }
        Walk { lines, points, refused, at, answers, end: Replayer::new(&log.records) }
    }

    /// The log's text as it stood at request `index`.
    fn text_at(&self, index: usize) -> String {
        let p = &self.points[index];
        if p.next {
            return self.lines.join("\n");
        }
        let mut text = self.lines[..p.line.saturating_sub(1)].join("\n");
        text.push('\n');
        text
    }

    /// Every request built under `options` and priced at its model's row (`rows` before the
    /// built-in ones); a model no row prices is refused.
    fn run(&self, name: &str, options: &BuildInput, rows: &[CostModel]) -> Result<PolicyResult, SimulateError> {
        let mut requests = Vec::with_capacity(self.points.len());
        let mut errors = Vec::new();
        let mut forecaster = Forecaster::default();
        let mut session = None::<Session>;
        for (index, point) in self.points.iter().enumerate() {
            // Append what came since the request before; a line the session refuses means a fresh
            // load of the log as it stood.
            let appended = match (&mut session, index) {
                (Some(s), i) if i > 0 => {
                    let from = self.points[i - 1].line.saturating_sub(1);
                    let to = if point.next { self.lines.len() } else { point.line.saturating_sub(1) };
                    (from..to).all(|l| self.lines[l].trim().is_empty() || self.refused.contains(&(l + 1)) || s.append_line(self.lines[l]).is_ok())
                }
                _ => false,
            };
            if !appended {
                session = Some(Session::from_log(&self.text_at(index)));
            }
            let Some(s) = session.as_mut() else { continue };
            let (_, report) = match s.build_body(options) {
                Ok(built) => built,
                Err(e) => {
                    errors.push(format!("request {index}: {e}"));
                    continue;
                }
            };
            let row = price_row(report.provider, &report.model, rows)?;
            let tokens = report.tokens.request;
            let at = self.at[index].as_deref().and_then(epoch_seconds);
            let cache_config = options.cache.clone().unwrap_or_default();
            // A request rebuilt from its log alone shares nothing with the one before.
            if !appended {
                forecaster = Forecaster::default();
            }
            // The row found above is the only one offered, so the forecast is priced by it.
            let Some((_, cache_use)) = forecaster.forecast(&report, &cache_config, std::slice::from_ref(&row), at) else { continue };
            let shared = forecaster.last_shared();
            let output = self.answers[index].output(Family::of(report.provider, &report.model));
            let cost = RequestCost::of(cache_use, output, &row.prices);
            let window = report.tokens.context.size;
            let window_share = if window > 0 { tokens as f64 / window as f64 } else { 0.0 };
            requests.push(SimulatedRequest {
                index,
                at: self.at[index].clone(),
                tokens,
                bytes: report.bytes,
                model: report.model.clone(),
                priced_as: row.model_prefix.clone(),
                shared_tokens: shared,
                window_share,
                cost,
            });
        }
        let mut totals = Totals { requests: requests.len(), ..Totals::default() };
        for r in &requests {
            totals.tokens += r.tokens;
            totals.read += r.cost.cache.read;
            totals.written += r.cost.cache.written;
            totals.uncached += r.cost.cache.uncached;
            totals.output += r.cost.output;
            totals.dollars += r.cost.dollars;
            totals.max_window_share = totals.max_window_share.max(r.window_share);
            totals.over_window += usize::from(r.window_share > 1.0);
        }
        totals.cached_share = if totals.tokens > 0 { totals.read as f64 / totals.tokens as f64 } else { 0.0 };
        Ok(PolicyResult { name: name.to_owned(), requests, totals, errors })
    }
}
