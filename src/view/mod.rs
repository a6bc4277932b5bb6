//! The request pipeline: conversation items → the view the model gets → a provider payload.
//!
//! Building is a pure function: the same items and options give byte-identical output, and
//! nothing is written back to the log. Stages, in order:
//! 1. [`repair`]: mend structural breaks (dangling calls, orphan or duplicate results, …);
//! 2. [`prune`]: trim and clear old tool results above the context trigger, in steps;
//! 3. [`images`]: keep image bytes within budget and the provider's image limits;
//! 4. render for the chosen provider ([`crate::provider`]);
//! 5. validate the payload against that provider's rules — a payload that breaks one is never
//!    returned (it is a bug in a renderer, reported with the rule's name).
//!
//! [`reminders`] is the queue a session drains into its log before a build (reminders reach
//! the model through replay, so they keep their place in the prefix).

pub mod images;
pub mod ledger;
pub mod prune;
pub mod reminders;
pub mod repair;
pub mod report;

use serde::{Deserialize, Serialize};

use crate::conversation::Item;
use crate::provider::{self, Payload, Provider, RenderOptions, Violation};
pub use images::{ImageConfig, ImageReport};
pub use prune::{ContextUse, PruneReport, PruningConfig};
pub use reminders::{Reminder, ReminderKind, ReminderQueue};
pub use repair::{Repair, RepairConfig, RepairKind};
pub use ledger::{ContextUsage, LedgerConfig, LedgerState, Threshold};
pub use report::{BySource, PrefixReport, Report, TokenReport};

/// Everything a build needs besides the items.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildOptions {
    pub provider: Provider,
    pub render: RenderOptions,
    pub repair: RepairConfig,
    pub pruning: PruningConfig,
    pub images: ImageConfig,
    /// The model's context window in tokens; the model's known window when absent.
    pub context_window: Option<u64>,
    /// Tokens the context holds, when the caller counts them itself; the ledger's count otherwise.
    pub context_tokens: Option<u64>,
    /// The provider's last reported usage, or the overhead a compaction carried (from replay).
    pub ledger: LedgerState,
    pub ledger_config: LedgerConfig,
}

impl BuildOptions {
    pub fn new(provider: Provider, model: impl Into<String>) -> Self {
        BuildOptions {
            provider,
            render: RenderOptions::new(model),
            repair: RepairConfig::default(),
            pruning: PruningConfig::default(),
            images: ImageConfig::default(),
            context_window: None,
            context_tokens: None,
            ledger: LedgerState::default(),
            ledger_config: LedgerConfig::default(),
        }
    }

    /// How full the context of `items` is, as the ledger counts it.
    pub fn usage(&self, items: &[Item]) -> ContextUsage {
        ledger::measure(&ledger::LedgerInput {
            items,
            state: &self.ledger,
            provider: self.provider,
            model: &self.render.model,
            system: self.render.system.as_deref(),
            tools: &self.render.tools,
            window: self.context_window,
            prune_ratio: self.pruning.trigger_ratio,
            config: &self.ledger_config,
            given: self.context_tokens,
        })
    }
}

/// A built request.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    pub payload: Payload,
    /// The payload serialized: the request body exactly as it is sent.
    pub body: String,
    pub report: Report,
}

/// Why a request could not be built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum BuildError {
    /// Nothing model-visible is left to send (no items, or only empty ones).
    EmptyConversation { message: String },
    /// The target does not accept a conversation ending with the assistant (no prefill), and
    /// there is nothing new from the user or a tool to answer.
    EndsWithAssistant { message: String },
    /// The renderer produced a payload its validator rejects: a bug, reported with the rules.
    InvalidPayload { message: String, violations: Vec<Violation> },
}

impl BuildError {
    pub fn code(&self) -> &'static str {
        match self {
            BuildError::EmptyConversation { .. } => "empty_conversation",
            BuildError::EndsWithAssistant { .. } => "ends_with_assistant",
            BuildError::InvalidPayload { .. } => "invalid_payload",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            BuildError::EmptyConversation { message }
            | BuildError::EndsWithAssistant { message }
            | BuildError::InvalidPayload { message, .. } => message,
        }
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for BuildError {}

/// Builds the provider request for `items`.
pub fn build(items: &[Item], options: &BuildOptions) -> Result<Built, BuildError> {
    let (view, repairs) = repair::repair(items, &options.repair);
    if view.is_empty() {
        return Err(BuildError::EmptyConversation {
            message: format!("nothing to send: {} items, none with content the model can see", items.len()),
        });
    }
    let context = options.usage(items);
    let usage = (context.size > 0).then_some(ContextUse { tokens: context.used, window: context.size });
    let (view, pruning) = prune::prune(view, &options.pruning, usage);
    let (view, images) = images::budget(view, &options.images, options.provider, &options.render.limits);
    let refs: Vec<&Item> = view.iter().map(|item| item.as_ref()).collect();
    let (payload, notes) = provider::render(options.provider, &refs, &options.render);
    if let Payload::Anthropic(request) = &payload {
        let ends_with_assistant = request.messages.last().is_some_and(|m| m.role == provider::anthropic::Role::Assistant);
        if ends_with_assistant && !options.render.limits.allow_prefill {
            return Err(BuildError::EndsWithAssistant {
                message: format!(
                    "the conversation ends with an assistant turn and `{}` does not accept prefill; append a user message first",
                    options.render.model
                ),
            });
        }
    }
    let body = payload.to_json();
    let violations = payload.validate_sized(&options.render.limits, body.len());
    if !violations.is_empty() {
        let rules: Vec<&str> = violations.iter().map(|v| v.rule.as_str()).collect();
        return Err(BuildError::InvalidPayload {
            message: format!("the {} renderer produced a payload that breaks {}", options.provider, rules.join(", ")),
            violations,
        });
    }
    let family = crate::tokens::Family::of(options.provider, &options.render.model);
    let (sources, by_source_tokens) = report::by_source(&refs, options.render.system.as_deref(), &options.render.tools, family);
    let report = Report {
        provider: options.provider,
        model: options.render.model.clone(),
        items: items.len(),
        view_items: view.len(),
        bytes: body.len(),
        repairs,
        pruning,
        images,
        reasoning: notes.reasoning,
        id_map: notes.id_map,
        wrapped_inputs: notes.wrapped_inputs,
        moved_images: notes.moved_images,
        sources,
        tokens: TokenReport { request: by_source_tokens.total(), by_source: by_source_tokens, context },
        prefix: None,
    };
    Ok(Built { payload, body, report })
}
