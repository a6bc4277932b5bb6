//! The one-call API: a session log (or items) plus options in, a payload plus a report out.
//!
//! This is what the JS facade and the CLI call. It owns option defaults and the serde form of
//! the options, so every runtime builds exactly the same request from the same input.

use contextview_derive::ReadValue;
use serde::Serialize;

use crate::conversation::Item;
use crate::diagnostic::Diagnostic;
use crate::provider::settings::ProviderOptions;
use crate::provider::{CacheConfig, ForeignReasoning, Limits, Provider, Tools};
use crate::update::{parse_log, replay};
use crate::update::ReplayState;
use crate::view::{self, BuildError, BuildOptions, Built, ImageConfig, LedgerConfig, LedgerState, PruningConfig, RepairConfig};

/// Build options as the JS API and the CLI take them (camelCase).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BuildInput {
    pub provider: Provider,
    /// Model name; defaults per provider (see [`default_model`]).
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub system: Option<String>,
    /// The tools, in any shape developers already have (see [`crate::provider::ToolDef`]). A
    /// session records them when they change; left out, a build from a log carries the tools
    /// the log last recorded.
    #[serde(default, deserialize_with = "crate::tool_def::deserialize_tools")]
    pub tools: Tools,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub foreign_reasoning: Option<ForeignReasoning>,
    /// Prompt caching: Anthropic breakpoints, OpenAI's `prompt_cache_key` (a session's own id
    /// when not given).
    #[serde(default)]
    pub cache: Option<CacheConfig>,
    #[serde(default)]
    pub limits: Option<Limits>,
    #[serde(default)]
    pub repair: Option<RepairConfig>,
    #[serde(default)]
    pub pruning: Option<PruningConfig>,
    #[serde(default)]
    pub images: Option<ImageConfig>,
    /// The model's context window (tokens); pruning acts above a share of it.
    #[serde(default)]
    pub context_window: Option<u64>,
    /// The context's size in tokens when the host counts it itself (the ledger's count when absent).
    #[serde(default)]
    pub context_tokens: Option<u64>,
    /// Compaction threshold settings.
    #[serde(default)]
    pub ledger: Option<LedgerConfig>,
    /// Each API's request settings in its own field names (thinking, tool choice, sampling,
    /// structured output, …), a section per API: only the target's is used (see
    /// [`crate::provider::settings`]).
    #[serde(default)]
    pub provider_options: Option<ProviderOptions>,
    /// Price rows to use beside (and before) the built-in ones for the report's forecast of
    /// cache use and cost (see [`crate::cost`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cost_models: Vec<crate::cost::CostModel>,
    /// The host's clock (RFC 3339), stamped on records a session writes during the build
    /// (drained reminders); the last record's time when absent.
    #[serde(default)]
    pub now: Option<String>,
    /// JSON Lines text of a session log (exclusive with `items`).
    #[serde(default)]
    pub log: Option<String>,
    /// Conversation items (exclusive with `log`).
    #[serde(default)]
    pub items: Option<Vec<Item>>,
}

/// The model assumed when none is given.
pub fn default_model(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "claude-sonnet-4-5",
        Provider::OpenAiChat => "gpt-4.1",
        Provider::OpenAiResponses => "gpt-5",
        Provider::Gemini => "gemini-2.5-pro",
    }
}

impl BuildInput {
    /// Input with every option at its default.
    pub fn new(provider: Provider) -> BuildInput {
        BuildInput {
            provider,
            model: None,
            system: None,
            tools: Tools::default(),
            max_tokens: None,
            foreign_reasoning: None,
            cache: None,
            limits: None,
            repair: None,
            pruning: None,
            images: None,
            context_window: None,
            context_tokens: None,
            ledger: None,
            provider_options: None,
            cost_models: Vec::new(),
            now: None,
            log: None,
            items: None,
        }
    }

    /// Options that contradict each other: the reply's budget or OpenAI's cache key given both
    /// as an option of the build and in the target API's `providerOptions`, differently.
    pub fn check(&self) -> Result<(), RequestError> {
        let Some(po) = &self.provider_options else { return Ok(()) };
        let p = self.provider;
        if let (Some(given), Some(set)) = (self.max_tokens, po.budget.get(p)) {
            if given != *set {
                return Err(RequestError::InvalidOptions(format!(
                    "`maxTokens` ({given}) and the reply budget in `providerOptions.{p}` ({set}) disagree: give it once"
                )));
            }
        }
        if let (Some(given), Some(set)) = (self.cache.as_ref().and_then(|c| c.key.as_ref()), po.cache_key.get(p)) {
            if given != set {
                return Err(RequestError::InvalidOptions(format!(
                    "`cache.key` ({given}) and `providerOptions.{p}.prompt_cache_key` ({set}) disagree: give it once"
                )));
            }
        }
        Ok(())
    }

    /// Options for building from a replayed log: the ledger starts from the log's last usage,
    /// the window from its last model switch when the input does not give one, the system
    /// prompt from its last prompt heads when the input does not give one, and OpenAI's
    /// `prompt_cache_key` is the session's id unless the input gives one (one session, one cache).
    pub fn options_for(&self, state: &ReplayState, session_id: Option<&str>) -> BuildOptions {
        let mut options = self.options();
        options.ledger = LedgerState::from_replay(state);
        // The log's last model switch names the model (for its provider, unless the input names
        // one) and gives that model's window.
        if let Some(switch) = state.model.as_ref().filter(|m| self.model.is_none() && m.provider == self.provider.as_str()) {
            options.render.model = switch.model.clone();
        }
        if options.context_window.is_none() {
            options.context_window = state.model.as_ref().filter(|m| m.model == options.render.model).and_then(|m| m.context_window);
        }
        // The tools the log recorded, unless the input gives its own.
        if self.tools.is_empty() {
            if let Some(tools) = &state.tools {
                options.render.tools = tools.clone();
            }
        }
        // The system head recorded in the log, unless the input gives its own.
        if options.render.system.is_none() {
            options.render.system = state.heads.as_ref().map(|h| h.system.clone()).filter(|s| !s.is_empty());
        }
        if options.render.cache.key.is_none() {
            options.render.cache.key = session_id.filter(|id| !id.is_empty()).map(str::to_owned);
        }
        options
    }

    pub fn options(&self) -> BuildOptions {
        let mut options =
            BuildOptions::new(self.provider, self.model.clone().unwrap_or_else(|| default_model(self.provider).to_owned()));
        options.render.system = self.system.clone();
        options.render.tools = Tools::clone(&self.tools);
        let po = self.provider_options.as_ref();
        options.render.max_tokens = self.max_tokens.or_else(|| po.and_then(|po| po.budget.get(self.provider).copied()));
        if let Some(po) = po {
            options.render.settings = po.settings.clone();
        }
        if let Some(fr) = self.foreign_reasoning {
            options.render.foreign_reasoning = fr;
        }
        if let Some(cache) = &self.cache {
            options.render.cache = cache.clone();
        }
        if options.render.cache.key.is_none() {
            options.render.cache.key = po.and_then(|po| po.cache_key.get(self.provider).cloned());
        }
        if let Some(limits) = &self.limits {
            options.render.limits = limits.clone();
        }
        if let Some(repair) = &self.repair {
            options.repair = repair.clone();
        }
        if let Some(pruning) = &self.pruning {
            options.pruning = pruning.clone();
        }
        if let Some(images) = &self.images {
            options.images = images.clone();
        }
        options.context_window = self.context_window;
        options.context_tokens = self.context_tokens;
        if let Some(ledger) = &self.ledger {
            options.ledger_config = ledger.clone();
        }
        options
    }
}

/// A built request with the diagnostics of reading its log.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildOutput {
    pub built: Built,
    pub diagnostics: Vec<Diagnostic>,
}

/// Why [`build_request`] failed.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestError {
    /// Options are missing or contradictory.
    InvalidOptions(String),
    Build(BuildError),
    /// The provider refused the last request (the model, its filter, or a blocked prompt) and
    /// nothing changed since: the same request would be refused again.
    InputRefused(String),
}

impl RequestError {
    pub fn code(&self) -> &'static str {
        match self {
            RequestError::InvalidOptions(_) => crate::error_codes::INVALID_OPTIONS,
            RequestError::Build(e) => e.code(),
            RequestError::InputRefused(_) => crate::error_codes::INPUT_REFUSED,
        }
    }
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::InvalidOptions(m) => write!(f, "invalid_options: {m}"),
            RequestError::Build(e) => e.fmt(f),
            RequestError::InputRefused(m) => write!(f, "input_refused: {m}"),
        }
    }
}

impl std::error::Error for RequestError {}

/// Builds a request from a log's text or from items.
pub fn build_request(input: &BuildInput) -> Result<BuildOutput, RequestError> {
    input.check()?;
    match (&input.log, &input.items) {
        (Some(text), None) => {
            let log = parse_log(text);
            let replayed = replay(&log.records);
            let mut diagnostics = log.diagnostics;
            diagnostics.extend(replayed.diagnostics);
            let session_id = log.header.as_ref().map(|h| h.session_id.as_str());
            let options = input.options_for(&replayed.state, session_id);
            let mut built = view::build(&replayed.items, &options).map_err(RequestError::Build)?;
            complete_report(&mut built.report, Some(&replayed.state), &mut crate::cost::Forecaster::default(), &options, input, at(input));
            Ok(BuildOutput { built, diagnostics })
        }
        (None, Some(items)) => {
            let options = input.options();
            let mut built = view::build(items, &options).map_err(RequestError::Build)?;
            complete_report(&mut built.report, None, &mut crate::cost::Forecaster::default(), &options, input, at(input));
            Ok(BuildOutput { built, diagnostics: Vec::new() })
        }
        (Some(_), Some(_)) => Err(RequestError::InvalidOptions("give either `log` or `items`, not both".to_owned())),
        (None, None) => Err(RequestError::InvalidOptions("give `log` (JSON Lines text) or `items`".to_owned())),
    }
}

/// When a build on its own is made: its input's clock.
fn at(input: &BuildInput) -> Option<i64> {
    input.now.as_deref().and_then(crate::cost::epoch_seconds)
}

/// Fills what a report says beyond the view's own figures, in one place for every build (a
/// session's, one from a log, one from items): the subagents the log started and the cuts its
/// heads took, before any the build made itself (from `state`, when the build has a log), and
/// what the provider's cache should serve of this request after the ones `forecaster` saw (a
/// fresh one: nothing cached before it).
pub(crate) fn complete_report(
    report: &mut view::Report,
    state: Option<&ReplayState>,
    forecaster: &mut crate::cost::Forecaster,
    options: &BuildOptions,
    input: &BuildInput,
    at: Option<i64>,
) {
    if let Some(state) = state {
        report.subagents = view::SubagentsReport::of(&state.subagents);
        let mut cuts = state.heads.as_ref().map(|h| h.cuts.clone()).unwrap_or_default();
        cuts.append(&mut report.head_cuts);
        report.head_cuts = cuts;
    }
    report.forecast = forecaster.forecast(report, &options.render.cache, &input.cost_models, at).map(|(f, _)| f);
}
