//! The cost of a session under a policy: its requests replayed as the agent sent them (the
//! timeline's points, each built by one session after the one before, so each knows what it
//! repeats of the last), each request's input split by a [`Cache`](crate::cost::Cache) into what the provider's cache
//! serves, writes and leaves uncached, the answer that followed counted as output, all priced at
//! the model's rates; side by side for several policies (build options such as pruning or the
//! window), so "what would another policy have cost" has an answer.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cost::{epoch_seconds, model_for, CostModel, Forecaster, RequestCost};
use crate::request::BuildInput;
use crate::session::Session;
use crate::tokens::{item_size, Family};
use crate::update::{parse_log, request_points, Replayer};

/// A policy: build options laid over the simulation's own (a name, and e.g. `{"pruning": …}`).
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Policy {
    pub name: String,
    /// Build options (as `buildRequest` takes them) that differ from the simulation's.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Partial<BuildInput>"))]
    pub options: Map<String, Value>,
}

/// What to simulate.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SimulateInput {
    /// The session log (JSON Lines text).
    pub log: String,
    /// Build options every policy starts from (`provider` required; `model`, `contextWindow`, …).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "BuildInput"))]
    pub options: Map<String, Value>,
    /// The policies to compare; none is the options as given (`default`).
    #[serde(default)]
    pub policies: Vec<Policy>,
    /// Prices and caching rules to use instead of (or beside) the built-in ones.
    #[serde(default)]
    pub cost_models: Vec<CostModel>,
}

/// One request under one policy.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
    /// Tokens it repeats of the request before it.
    pub shared_tokens: u64,
    /// Its share of the context window.
    pub window_share: f64,
    #[serde(flatten)]
    pub cost: RequestCost,
}

/// A policy's requests and totals.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyResult {
    pub name: String,
    pub requests: Vec<SimulatedRequest>,
    pub totals: Totals,
    /// Why requests could not be built (a build the options refuse), with their index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

/// A whole simulation: the model's row used and each policy's result.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Simulation {
    pub provider: crate::provider::Provider,
    pub model: String,
    pub window: u64,
    pub cost_model: CostModel,
    pub policies: Vec<PolicyResult>,
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
            SimulateError::InvalidOptions(_) => "invalid_options",
            SimulateError::UnknownModel(_) => "unknown_model",
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
    let model = base.model.clone().unwrap_or_else(|| crate::request::default_model(provider).to_owned());
    let row = model_for(provider, &model, &input.cost_models)
        .ok_or_else(|| SimulateError::UnknownModel(format!("no prices for {provider} `{model}`: pass a row for it in `costModels`")))?;
    let window = base.context_window.or_else(|| crate::view::ledger::model_window(&model)).unwrap_or(0);
    let default = [Policy { name: "default".to_owned(), options: Map::new() }];
    let policies = if input.policies.is_empty() { &default[..] } else { &input.policies[..] };
    let walk = Walk::new(&input.log, Family::of(provider, &model));
    let mut results = Vec::with_capacity(policies.len());
    for policy in policies {
        let mut options = input.options.clone();
        options.extend(policy.options.clone());
        options.insert("model".to_owned(), Value::String(model.clone()));
        let options: BuildInput =
            crate::diagnostic::from_value(Value::Object(options)).map_err(|e| SimulateError::InvalidOptions(format!("policy `{}`: {e}", policy.name)))?;
        results.push(walk.run(&policy.name, &options, &row, window));
    }
    Ok(Simulation { provider, model, window, cost_model: row, policies: results })
}

/// A log's requests, ready to be built under any options.
struct Walk<'a> {
    lines: Vec<&'a str>,
    points: Vec<crate::update::RequestPoint>,
    /// Line numbers the log reader refused (not appended).
    refused: std::collections::HashSet<usize>,
    /// Per request: when it was sent, and the output tokens of the answer that followed.
    at: Vec<Option<String>>,
    output: Vec<u64>,
}

impl<'a> Walk<'a> {
    fn new(text: &'a str, family: Family) -> Walk<'a> {
        let log = parse_log(text);
        let lines: Vec<&str> = text.split('\n').collect();
        let points = request_points(&log, lines.len());
        let refused = log.diagnostics.iter().filter(|d| d.severity == crate::diagnostic::Severity::Error || d.code == crate::update::codes::LOG_TORN_TAIL.code).filter_map(|d| d.line).collect();
        // When each request went out: the time of the last record before its point.
        let at = points
            .iter()
            .map(|p| log.records.iter().zip(&log.lines).filter(|(_, &line)| line < p.line).last().map(|(r, _)| r.ts.clone()).filter(|ts| !ts.is_empty()))
            .collect();
        // The answer to each request: the model's items between it and the next one.
        let mut replayer = Replayer::new(&[]);
        let mut output = vec![0u64; points.len()];
        let mut next = 0;
        for (record, &line) in log.records.iter().zip(&log.lines) {
            while next < points.len() && !points[next].next && points[next].line <= line {
                next += 1;
            }
            let before = replayer.items().len();
            replayer.push(record);
            if next > 0 {
                let added: u64 = replayer.items()[before.min(replayer.items().len())..]
                    .iter()
                    .filter(|item| item.is_assistant_side())
                    .map(|item| item_size(item, family).tokens)
                    .sum();
                output[next - 1] += added;
            }
        }
        Walk { lines, points, refused, at, output }
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

    fn run(&self, name: &str, options: &BuildInput, row: &CostModel, window: u64) -> PolicyResult {
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
            let tokens = report.tokens.request;
            let at = self.at[index].as_deref().and_then(epoch_seconds);
            let cache_config = options.cache.clone().unwrap_or_default();
            // A request rebuilt from its log alone shares nothing with the one before.
            if !appended {
                forecaster = Forecaster::default();
            }
            let Some((_, cache_use)) = forecaster.forecast(&report, &cache_config, std::slice::from_ref(row), at) else { continue };
            let shared = forecaster.last_shared();
            let cost = RequestCost::of(cache_use, self.output[index], &row.prices);
            let window_share = if window > 0 { tokens as f64 / window as f64 } else { 0.0 };
            requests.push(SimulatedRequest { index, at: self.at[index].clone(), tokens, bytes: report.bytes, shared_tokens: shared, window_share, cost });
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
        PolicyResult { name: name.to_owned(), requests, totals, errors }
    }
}
