//! The session's one build: the options every request is built with ([`Session::build_options`]),
//! used alike by the build, the compaction's requests and the count the client hears between
//! builds ([`Session::usage`]), so the three never disagree on what the request holds; and the
//! build itself ([`Session::build_now`]): reminders drained into the log, an answer cut short
//! continued, the view built through the session's cache, and what rewrote the cached prefix.

use super::parts::builds::SinceBuild;
use std::sync::Arc;

use super::core::Session;
use super::codes;
use crate::prompt::PromptContext;
use crate::request::{BuildInput, RequestError};
use crate::update::record::Event;
use crate::update::RecordBody;
use crate::view::{self, BuildOptions};

/// Applies what the prompt context decides about a build: the audience's tools and output budget.
fn apply_context(options: &mut BuildOptions, input: &BuildInput, context: &PromptContext) {
    if !context.tools.is_empty() {
        let allowed = context.allowed_tools();
        Arc::make_mut(&mut options.render.tools).retain(|t| allowed.contains(&t.name.as_str()));
    }
    if input.max_tokens.is_none() {
        if let Some(max) = context.max_tokens() {
            options.render.max_tokens = Some(max);
        }
    }
}

impl Session {
    /// How full the context is for the model `input` names (ACP's `usage_update`: used / size),
    /// without building or draining anything.
    pub fn usage(&mut self, input: &BuildInput) -> view::ContextUsage {
        let options = self.build_options(input);
        let (replayer, cache, _) = self.synced();
        options.usage_followed(replayer.items(), cache)
    }

    /// The options every request of this session is built with for `input` — the build's, the
    /// compaction's and the count between builds alike: the log's state (its model, window,
    /// tools, heads, ledger anchor and cache key), the prompt context's audience (the tools it
    /// allows, its output budget) and the images stripped once after a provider refused them.
    pub(super) fn build_options(&mut self, input: &BuildInput) -> BuildOptions {
        let strip_images = self.builds.strip_images_once;
        let (replayer, _, session_id) = self.synced();
        let mut options = input.options_for(replayer.state(), session_id);
        if let Some(context) = &self.prompt {
            apply_context(&mut options, input, context);
        }
        options.images.strip_all |= strip_images;
        options
    }

    /// What this request's reminders may take: the head budget (the prompt context's, else the
    /// default share of the model's window) less the recorded prefix; and the words a cut gives.
    fn reminder_budget(&mut self) -> (u32, String) {
        let model = self.prompt.as_ref().and_then(|p| p.model.clone()).or_else(|| self.sampling().and_then(|s| s.model));
        let budget = self.prompt.as_ref().and_then(|p| p.head_budget).unwrap_or_default().tokens_for(model.as_deref());
        let family = self.family();
        let prefix = self.replayer().state().heads.as_ref().map_or(0.0, |h| crate::tokens::text_tokens(&h.first_user_prefix, family));
        let prefix = prefix.ceil().min(u32::MAX as f64) as u32;
        let cap = budget.saturating_sub(prefix);
        (cap, format!("over the head budget ({budget} tokens): the prefix takes {prefix}, which leaves this request's reminders {cap}"))
    }

    /// Records the build's tools when they differ from the ones the log last recorded, so a
    /// reopened session and its timeline know what each request carried.
    pub(super) fn record_tools(&mut self, input: &BuildInput, ts: &str) -> Option<u64> {
        if input.tools.is_empty() {
            return None;
        }
        let recorded = self.replayer().state().tools.as_ref().is_some_and(|t| std::sync::Arc::ptr_eq(t, &input.tools) || **t == *input.tools);
        let defined = crate::update::record::ToolsDefined { tools: input.tools.clone() };
        (!recorded).then(|| self.write(RecordBody::Event(Event::ToolsDefined(defined)), ts))
    }

    pub(super) fn build_now(&mut self, input: &BuildInput) -> Result<(Arc<String>, view::Report), RequestError> {
        if input.log.is_some() || input.items.is_some() {
            return Err(RequestError::InvalidOptions("a session builds from its own records; leave out `log` and `items`".to_owned()));
        }
        input.check()?;
        // After a refusal, the same request again would be refused again: the host changes the
        // input first (a message, a rewind, another model). Checked before reminders are
        // drained: they are not what the provider refused.
        if let Some(why) = self.refused_unchanged(input) {
            return Err(RequestError::InputRefused(why));
        }
        // Reminders are drained right before the build, into the log like any other record.
        // They take what the head budget leaves after the prefix.
        let ts = self.stamp(input.now.as_deref());
        let (cap, reason) = self.reminder_budget();
        let family = self.family();
        let count = |text: &str| crate::tokens::text_tokens(text, family).ceil().min(u32::MAX as f64) as u32;
        let (drained, reminder_cuts) = self.reminders.drain_within(cap, &count, &reason);
        for injected in drained {
            self.write(RecordBody::Event(Event::ReminderInjected(injected)), &ts);
        }
        // An answer cut short asks the model to go on (AutoContinue, AutoRecovery).
        let continued = self.continue_cut_answer(&ts);
        let options = self.build_options(input);
        let (replayer, cache, _) = self.synced();
        let mut built = view::build_cached(replayer.items(), &options, cache);
        // The request sends text the session let go: read back from the records it holds, or
        // asked of the host.
        if let Err(view::BuildError::HistoryNeeded { released, .. }) = &built {
            let released = released.clone();
            if self.restore_released(&released).unwrap_or(false) {
                let (replayer, cache, _) = self.synced();
                built = view::build_cached(replayer.items(), &options, cache);
            }
        }
        let (body, mut report) = built.map_err(RequestError::Build)?;
        self.release_results(&options, &report);
        // The prompt names the tools the model may use: each must be one the request defines.
        if let Some(context) = &self.prompt {
            let missing: Vec<&str> =
                context.allowed_tools().into_iter().filter(|name| !options.render.tools.iter().any(|t| t.name == *name)).collect();
            if !missing.is_empty() {
                report.diagnostics.push(crate::diagnostic::Diagnostic::new(
                    &codes::TOOLS_UNDEFINED,
                    format!("the prompt lists tools this request does not define: {} (pass their definitions in `tools`)", missing.join(", ")),
                ));
            }
        }
        self.builds.strip_images_once = false;
        report.continued = continued;
        report.head_cuts = reminder_cuts;
        // What rewrote the previous request, if anything did: what pruning cost the provider's
        // cache is reported apart from what a compaction or a rewind cost.
        let boundary = (report.pruning.boundary_turn, report.pruning.boundary_step);
        if let Some(prefix) = report.prefix.as_mut().filter(|p| p.rewritten_bytes > 0) {
            let SinceBuild { compaction, rewind, heads } = self.builds.since_build;
            let cause = if compaction {
                view::RewriteCause::Compaction
            } else if rewind {
                view::RewriteCause::Rewind
            } else if heads {
                view::RewriteCause::Heads
            } else if self.builds.last_boundary.is_some_and(|last| last != boundary) {
                report.pruning.invalidated_bytes = prefix.rewritten_bytes;
                view::RewriteCause::Pruning
            } else {
                view::RewriteCause::Other
            };
            prefix.cause = Some(cause);
        }
        self.builds.last_boundary = Some(boundary);
        self.builds.since_build = SinceBuild::default();
        // What the provider's cache should serve of this request, after the ones before it.
        let at = crate::cost::epoch_seconds(&ts);
        self.replayer();
        let state = self.log.replayer.as_ref().map(|r| r.state());
        crate::request::complete_report(&mut report, state, &mut self.builds.forecaster, &options, input, at);
        Ok((body, report))
    }}
