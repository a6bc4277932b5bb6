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

pub mod codes;
pub mod images;
mod incremental;
pub mod ledger;
pub mod prune;
pub mod reminders;
pub mod repair;
pub mod report;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::conversation::Item;
use crate::provider::{self, Payload, Provider, RenderOptions, Violation};
use crate::tokens::{item_size, Family, ItemSize};
pub use images::{ImageConfig, ImageReport};
pub use ledger::{ContextUsage, LedgerConfig, LedgerState, Threshold};
pub use prune::{ContextUse, PruneReport, PruningConfig};
pub use reminders::{Reminder, ReminderKind, ReminderQueue};
pub use repair::{Repair, RepairConfig, RepairKind};
pub use report::{BySource, Continued, ContinuedReason, Forecast, PrefixReport, Report, ReuseReport, RewriteCause, SubagentsReport, TokenReport};
pub use reminders::TAG as REMINDER_TAG;

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

    /// How full the request built from `items` now would be, as the ledger counts it.
    pub fn usage(&self, items: &[Item]) -> ContextUsage {
        self.usage_followed(items, &mut ViewCache::default())
    }

    /// How full the request built from `items` now would be: the ledger's count following the
    /// view ([`ContextUsage::follow_view`]) — what the last view (a build's, or one made here)
    /// left out, while it still holds ([`Followed`]), else the view made again (without
    /// rendering it).
    pub fn usage_followed(&self, items: &[Item], cache: &mut ViewCache) -> ContextUsage {
        let mut context = self.usage_cached(items, cache);
        let plan = self.pruning_plan(items, &context, cache);
        if let Some(followed) = [&cache.built, &cache.followed].into_iter().flatten().find(|f| f.holds(self, plan, items)) {
            context.follow_view(&self.ledger, &followed.rewrites);
            return context;
        }
        let (view, _) = repair::repair(items, &self.repair);
        let (view, _) = prune::prune(view, &self.pruning, plan);
        let (view, _) = images::budget(view, &self.images, self.provider, &self.render.limits);
        let refs: Vec<&Item> = view.iter().map(|item| item.as_ref()).collect();
        let rewrites = ledger::rewrites(items, &refs, &cache.sizes, self.family());
        context.follow_view(&self.ledger, &rewrites);
        cache.followed = Some(Followed { options: self.clone(), plan, items: items.len(), rewrites });
        context
    }

    /// [`BuildOptions::usage`] with the estimates a session's cache keeps (items, heads).
    pub fn usage_cached(&self, items: &[Item], cache: &mut ViewCache) -> ContextUsage {
        let family = self.family();
        let heads = cache.head_tokens(self.render.system.as_deref(), &self.render.tools, family);
        let sizes = cache.sizes(items, family);
        self.usage_estimated(items, Some(sizes), Some(heads))
    }

    /// What pruning does to `items` (the session's, before repair), decided on their sizes and
    /// the heads' as the cache measured them (see [`prune::plan`]).
    pub fn pruning_plan(&self, items: &[Item], context: &ContextUsage, cache: &mut ViewCache) -> prune::Plan {
        let family = self.family();
        let heads = cache.head_tokens(self.render.system.as_deref(), &self.render.tools, family);
        let sizes = cache.sizes(items, family);
        let full = heads + sizes.iter().map(|s| s.tokens).sum::<u64>();
        prune::plan(items, &self.pruning, context.as_use(), full, &|i| sizes.get(i).copied().unwrap_or_default())
    }

    fn family(&self) -> Family {
        Family::of(self.provider, &self.render.model)
    }

    fn usage_estimated(&self, items: &[Item], sizes: Option<&[ItemSize]>, heads: Option<u64>) -> ContextUsage {
        ledger::measure(&ledger::LedgerInput {
            sizes,
            heads,
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

/// Refuses a request that would leave out what its API must get back: an Anthropic
/// server-side compaction block (context management's `compact_20260112`), which "you must pass
/// back to the API on subsequent requests" and which only the compaction beta takes — a request
/// this package builds does not ask for it. Another API's request leaves the block out, as any
/// API's own blocks (the history it summarised is still in the log, and in that request).
pub(crate) fn unsendable(provider: Provider, unknown: &[String]) -> Result<(), BuildError> {
    if provider != Provider::Anthropic || !unknown.iter().any(|k| k == "compaction") {
        return Ok(());
    }
    let rule = crate::provider::rules::ANTHROPIC_COMPACTION_BLOCK_PASSED_BACK;
    Err(BuildError::InvalidPayload {
        message: format!(
            "the conversation holds a server-side compaction block, which Anthropic requires back in every later request and \
             which only its compaction beta takes; this build sends no beta. Rewind to before it, build for another provider, \
             or compact the session (`prepareCompaction`) instead (rule {rule})"
        ),
        violations: vec![Violation::new(rule, "messages", "You must pass the `compaction` block back to the API on subsequent requests")],
    })
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
#[serde(tag = "code", rename_all = "snake_case")]
pub enum BuildError {
    /// Nothing model-visible is left to send (no items, or only empty ones).
    EmptyConversation { message: String },
    /// The target does not accept a conversation ending with the assistant (no prefill), and
    /// there is nothing new from the user or a tool to answer.
    EndsWithAssistant { message: String },
    /// The renderer produced a payload its validator rejects: a bug, reported with the rules.
    InvalidPayload { message: String, violations: Vec<Violation> },
    /// The request settings break the target API's rules (a thinking budget over `max_tokens`,
    /// a tool choice naming no tool, …): each rule broken, with the provider's own words.
    InvalidOptions { message: String, violations: Vec<Violation> },
    /// The request sends text the session let go (tool results its earlier requests cleared
    /// or trimmed, which these options do not): their records are read back first.
    HistoryNeeded {
        message: String,
        /// The tool results' item ids.
        released: Vec<String>,
    },
}

impl BuildError {
    pub fn code(&self) -> &'static str {
        match self {
            BuildError::EmptyConversation { .. } => crate::error_codes::EMPTY_CONVERSATION,
            BuildError::EndsWithAssistant { .. } => crate::error_codes::ENDS_WITH_ASSISTANT,
            BuildError::InvalidPayload { .. } => crate::error_codes::INVALID_PAYLOAD,
            BuildError::InvalidOptions { .. } => crate::error_codes::INVALID_OPTIONS,
            BuildError::HistoryNeeded { .. } => crate::error_codes::HISTORY_NEEDED,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            BuildError::EmptyConversation { message }
            | BuildError::EndsWithAssistant { message }
            | BuildError::InvalidPayload { message, .. }
            | BuildError::InvalidOptions { message, .. }
            | BuildError::HistoryNeeded { message, .. } => message,
        }
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for BuildError {}

/// What a session keeps between builds so that a build after an append redoes little: each
/// item's measured size, and the last payload with the body it was sent as (each entry's JSON
/// in place) and what its validation left.
#[derive(Debug, Clone, Default)]
pub struct ViewCache {
    family: Option<Family>,
    sizes: Vec<ItemSize>,
    last: Option<Kept>,
    /// The last build, for the append fast path ([`incremental`]).
    last_build: Option<incremental::LastBuild>,
    /// What the last full build's view left out (an append leaves it as it is).
    built: Option<Followed>,
    /// What a view made for the ledger between builds left out (its options may not be the
    /// builds': a session counts with the options it last built with, a host may build with others).
    followed: Option<Followed>,
    /// Lowest item index changed since the last build.
    dirty_from: usize,
    /// The last heads measured (system prompt, tool definitions) and their tokens: a session is
    /// built with the same ones request after request, and comparing them costs less than
    /// estimating them again.
    heads: Option<Heads>,
}

/// What a view left out of the logged items ([`ledger::rewrites`]), for the ledger: made by
/// each full build and, between builds, by [`BuildOptions::usage_followed`]. It holds while the options and the pruning plan are the
/// same, no item before its end changed ([`ViewCache::invalidate_from`] drops it), and nothing
/// but items without images was appended since (only pruning and image eviction rewrite what
/// repair left).
#[derive(Debug, Clone)]
struct Followed {
    options: BuildOptions,
    plan: prune::Plan,
    items: usize,
    rewrites: Vec<(usize, i64)>,
}

impl Followed {
    fn holds(&self, options: &BuildOptions, plan: prune::Plan, items: &[Item]) -> bool {
        self.plan == plan
            && incremental::same_shape(&self.options, options)
            && items.len() >= self.items
            && !items[self.items..].iter().any(|item| crate::tokens::item_images(item).next().is_some())
    }
}

#[derive(Debug, Clone)]
struct Heads {
    family: Family,
    system: Option<String>,
    tools: crate::provider::Tools,
    tokens: u64,
}

impl ViewCache {
    /// Items from `index` on have changed (as [`crate::update::Replayer::take_changed_from`] says).
    pub fn invalidate_from(&mut self, index: usize) {
        self.sizes.truncate(index);
        self.dirty_from = self.dirty_from.min(index);
        for slot in [&mut self.built, &mut self.followed] {
            if slot.as_ref().is_some_and(|f| index < f.items) {
                *slot = None;
            }
        }
    }

    /// [`ledger::head_tokens`], measured again only when the heads changed.
    pub fn head_tokens(&mut self, system: Option<&str>, tools: &crate::provider::Tools, family: Family) -> u64 {
        match &self.heads {
            Some(h) if h.family == family && h.system.as_deref() == system && h.tools == *tools => h.tokens,
            _ => {
                let tokens = ledger::head_tokens(system, tools, family);
                self.heads = Some(Heads { family, system: system.map(str::to_owned), tools: crate::provider::Tools::clone(tools), tokens });
                tokens
            }
        }
    }

    /// Sizes of `items` (tokens and bytes), measuring only those not held.
    pub fn sizes(&mut self, items: &[Item], family: Family) -> &[ItemSize] {
        if self.family != Some(family) {
            self.family = Some(family);
            self.sizes.clear();
        }
        self.sizes.truncate(items.len());
        let from = self.sizes.len();
        self.sizes.extend(items[from..].iter().map(|item| item_size(item, family)));
        &self.sizes
    }

    /// The body of the last payload built, if any.
    pub fn last_body(&self) -> Option<&str> {
        self.last.as_ref().map(|kept| kept.body.as_str())
    }

    /// What the last request built left out of the log, in estimated tokens
    /// ([`ContextUsage::omitted_tokens`]), if a request was built.
    pub fn last_omitted_tokens(&self) -> Option<u64> {
        self.last_build.as_ref().map(|last| last.report().tokens.context.omitted_tokens)
    }

    /// The ledger's count of the last request built (`tokens.context.used`), if one was built.
    pub fn last_used_tokens(&self) -> Option<u64> {
        self.last_build.as_ref().map(|last| last.report().tokens.context.used)
    }

    /// The heads' tokens (system prompt, tools) of the last request built, as the ledger
    /// estimated them.
    pub fn last_head_tokens(&self) -> Option<u64> {
        self.last_build.as_ref().and(self.heads.as_ref()).map(|h| h.tokens)
    }

    /// The last payload built, if any.
    pub fn last_payload(&self) -> Option<&Payload> {
        self.last.as_ref().map(|kept| &kept.payload)
    }
}

/// The last payload built, with its body (whose entries' JSON the next build copies or
/// extends) and its validator's state (resumed when the next payload only adds entries).
#[derive(Debug, Clone)]
struct Kept {
    payload: Payload,
    body: provider::Body,
    checked: crate::provider::Checked,
}

/// Index of `item` in `items` when it is one of them (not a copy).
fn index_in(items: &[Item], item: &Item) -> Option<usize> {
    let size = std::mem::size_of::<Item>().max(1);
    let start = items.as_ptr() as usize;
    let at = item as *const Item as usize;
    (at >= start && at < start + items.len() * size && (at - start) % size == 0).then(|| (at - start) / size)
}

/// The target API's settings against its rules, with everything else the build sends.
fn check_settings(options: &BuildOptions) -> Result<(), BuildError> {
    let render = &options.render;
    let tools: Vec<&str> = render.tools.iter().map(|t| t.name.as_str()).collect();
    let max_tokens = match options.provider {
        Provider::Anthropic => Some(render.max_tokens.unwrap_or(provider::DEFAULT_MAX_TOKENS)),
        Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Gemini => render.max_tokens,
    };
    let system = render.system.as_deref().is_some_and(|s| !s.is_empty());
    let context = provider::settings::Context { model: &render.model, max_tokens, tools: &tools, system };
    let violations = provider::settings::check(options.provider, &render.settings, &context);
    match violations.is_empty() {
        true => Ok(()),
        false => Err(BuildError::InvalidOptions {
            message: format!(
                "the {} settings break the API's rules: {}",
                options.provider,
                violations.iter().map(|v| format!("{}: {}", v.path, v.message)).collect::<Vec<_>>().join("; ")
            ),
            violations,
        }),
    }
}

/// Builds the provider request for `items`.
pub fn build(items: &[Item], options: &BuildOptions) -> Result<Built, BuildError> {
    let (Kept { payload, body, .. }, report) = build_with(items, options, &mut ViewCache::default())?;
    // The only holder: the text moves out, uncopied.
    let body = Arc::try_unwrap(body.into_text()).unwrap_or_else(|text| String::clone(&text));
    Ok(Built { payload, body, report })
}

/// [`build`] with a cache kept between builds of the same session: the result is the same, the
/// work is less. The payload stays in the cache ([`ViewCache::last_payload`]), and the report
/// says what this body shares with the last one ([`Report::prefix`]).
pub fn build_cached(items: &[Item], options: &BuildOptions, cache: &mut ViewCache) -> Result<(Arc<String>, Report), BuildError> {
    let previous_bytes = cache.last.as_ref().map(|last| last.body.len());
    let (kept, report) = match incremental::try_append(items, options, cache) {
        // The body repeats the last one up to its closing `]}`, then goes on with `,`.
        Some((kept, mut report)) => {
            report.prefix = previous_bytes.map(PrefixReport::appended);
            (kept, report)
        }
        None => {
            let (kept, mut report) = build_with(items, options, cache)?;
            report.prefix = cache.last.as_ref().map(|last| PrefixReport::between(last.body.as_str(), kept.body.as_str()));
            (kept, report)
        }
    };
    let body = Arc::clone(kept.body.text());
    cache.last = Some(kept);
    cache.dirty_from = usize::MAX;
    Ok((body, report))
}

fn build_with(items: &[Item], options: &BuildOptions, cache: &mut ViewCache) -> Result<(Kept, Report), BuildError> {
    check_settings(options)?;
    let (view, repairs) = repair::repair(items, &options.repair);
    if view.is_empty() {
        return Err(BuildError::EmptyConversation {
            message: format!("nothing to send: {} items, none with content the model can see", items.len()),
        });
    }
    let family = options.family();
    let mut context = options.usage_cached(items, cache);
    let plan = options.pruning_plan(items, &context, cache);
    let (view, mut pruning) = prune::prune(view, &options.pruning, plan);
    // A result whose text the session let go is sent only cleared or trimmed as it was.
    let released: Vec<String> = view
        .iter()
        .filter_map(|item| match item.as_ref() {
            Item::ToolResult(r) if r.released.is_some() => Some(r.id.clone()),
            _ => None,
        })
        .collect();
    if let Some(first) = released.first() {
        return Err(BuildError::HistoryNeeded {
            message: format!(
                "this request sends the whole text of {} tool result(s) (`{first}`…) the session let go once its requests cleared or trimmed them: read their records back first",
                released.len()
            ),
            released,
        });
    }
    pruning.compare_with(cache.last_build.as_ref().map(|last| &last.report().pruning));
    let (view, images) = images::budget(view, &options.images, options.provider, &options.render.limits);
    let refs: Vec<&Item> = view.iter().map(|item| item.as_ref()).collect();
    // The count follows the view: thresholds are crossed on what this request holds.
    let rewrites = ledger::rewrites(items, &refs, &cache.sizes, family);
    context.follow_view(&options.ledger, &rewrites);
    let (mut payload, notes) = provider::render(options.provider, &refs, &options.render);
    unsendable(options.provider, &notes.unknown_natives)?;
    if let Some(reason) = payload.prefill_refusal(&options.render.limits) {
        return Err(BuildError::EndsWithAssistant {
            message: format!("the conversation ends with an assistant turn and {reason}; append a user message first"),
        });
    }
    let sizes = &cache.sizes;
    let estimate = |item: &Item| match index_in(items, item) {
        Some(i) if i < sizes.len() => sizes[i],
        _ => item_size(item, family),
    };
    let (sources, by_source_tokens) = report::by_source(&refs, options.render.system.as_deref(), &options.render.tools, family, &estimate);
    let previous = cache.last.as_ref().map(|kept| (&kept.payload, &kept.body));
    let had_previous = previous.is_some();
    // The text the view holds, with room for JSON's escapes and each entry's own keys.
    let size_hint = (sources.total() as usize).saturating_mul(9) / 8 + 96 * refs.len();
    let (body, reused) = payload.to_json_reusing(previous, size_hint);
    let (violations, checked) = payload.validate_keeping(&options.render.limits, body.len());
    if !violations.is_empty() {
        let rules: Vec<&str> = violations.iter().map(|v| v.rule.as_str()).collect();
        return Err(BuildError::InvalidPayload {
            message: format!("the {} renderer produced a payload that breaks {}", options.provider, rules.join(", ")),
            violations,
        });
    }
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
        dropped_natives: notes.dropped_natives,
        unknown_natives: notes.unknown_natives,
        thinking_suspended: notes.thinking_suspended,
        sources,
        tokens: TokenReport { request: by_source_tokens.total(), by_source: by_source_tokens, context },
        reuse: had_previous.then_some(ReuseReport { entries: body.entries(), reused_entries: reused, appended_only: false }),
        prefix: None,
        forecast: None,
        diagnostics: Vec::new(),
        continued: None,
        head_cuts: Vec::new(),
        subagents: None,
    };
    let report = Report { diagnostics: report::diagnose(&report), ..report };
    cache.last_build = Some(incremental::LastBuild::new(options, items, &refs, &report, plan));
    cache.built = Some(Followed { options: options.clone(), plan, items: items.len(), rewrites });
    Ok((Kept { payload, body, checked }, report))
}
