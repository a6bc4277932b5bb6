//! The cost of a session under a policy: its requests replayed as the agent sent them (the
//! timeline's points, each built by one session after the one before, so each knows what it
//! repeats of the last), each request's input split by a [`Cache`] into what the provider's cache
//! serves, writes and leaves uncached, the answer that followed counted as output, all priced at
//! the model's rates; side by side for several policies (build options such as pruning or the
//! window), so "what would another policy have cost" has an answer.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{model_for, CostModel, Forecaster, RequestCost};
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

/// Seconds since the epoch of an RFC 3339 time (`2026-12-04T10:00:00Z`, `…+01:00`, fractions
/// dropped); `None` when it is not one.
pub fn epoch_seconds(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> { ts.get(r)?.parse().ok() };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, m, d, hh, mm, ss) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let mut rest = &ts[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && matches!(rest.as_bytes()[0], b'+' | b'-') && rest.as_bytes()[3] == b':' => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (rest[1..3].parse::<i64>().ok()? * 3600 + rest[4..6].parse::<i64>().ok()? * 60)
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss - offset)
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn rfc3339_times_read_as_seconds() {
        assert_eq!(epoch_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(epoch_seconds("2026-12-04T10:00:00Z"), Some(1_796_378_400));
        assert_eq!(epoch_seconds("2026-12-04T10:00:05.123Z"), Some(1_796_378_405));
        assert_eq!(epoch_seconds("2026-12-04T11:00:00+01:00"), Some(1_796_378_400));
        assert_eq!(epoch_seconds("2024-02-29T00:00:00Z"), Some(1_709_164_800));
        for bad in ["", "yesterday", "2026-13-01T00:00:00Z", "2026-12-04T10:00:00", "2026-12-04T10:00:00.Z"] {
            assert_eq!(epoch_seconds(bad), None, "{bad}");
        }
    }
}
