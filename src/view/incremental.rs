//! The append fast path: a session build after records were only appended renders the new
//! items alone and adds them to the last payload, instead of running every stage over the whole
//! conversation again.
//!
//! Why it is exact: the prefix invariant (tests/it/prefix.rs) says that between pruning steps a
//! request is the previous one plus new entries. The fast path takes it only when every stage
//! provably leaves the old part alone, and falls back to the full build otherwise:
//! - no item the last build saw has changed, and the new items start a new entry (the last
//!   build ended on the user side, the new items start with the assistant);
//! - repair has nothing to do on the new items (their calls are answered among them, their
//!   ids are new) — the leading user message it would insert before them alone is dropped;
//! - pruning is as active as before, with the same boundaries (so it touches old items exactly
//!   as before, and new items belong to the last turns and steps);
//! - the new items carry no images (the image budget is then what it was);
//! - the new items' tool-call ids need no normalisation and collide with none already sent.
//!
//! The combined payload is validated like every payload, resuming the last validation where
//! the provider's validator can (the old entries are not walked again); any violation, or a
//! prefill the model refuses, sends the build down the full path, which reports it. Property tests
//! compare a session built this way, record by record, with a fresh build of the same log
//! (tests/it/incremental.rs).

use rustc_hash::FxHashSet;

use super::report::{self, Report, ReuseReport, TokenReport};
use super::{prune, repair, BuildOptions, RepairKind, ViewCache};
use crate::conversation::Item;
use crate::provider::{self, RenderOptions};
use crate::tokens::{item_images, item_size};

/// What the fast path needs to know of the last build of a session.
#[derive(Debug, Clone)]
pub(super) struct LastBuild {
    options: BuildOptions,
    /// Session items the last build saw.
    items: usize,
    report: Report,
    /// The pruning plan it was built under (a build that would prune otherwise is a full one).
    plan: prune::Plan,
    /// Call ids in the last view (a new call reusing one needs repair).
    call_ids: FxHashSet<String>,
    /// The last view ended with the last session item itself (repair dropped nothing after it
    /// and added nothing: an item it dropped could have kept an assistant turn open).
    ends_on_last_item: bool,
}

impl LastBuild {
    pub(super) fn new(options: &BuildOptions, items: &[Item], view: &[&Item], report: &Report, plan: prune::Plan) -> LastBuild {
        let call_ids = view
            .iter()
            .filter_map(|item| match item {
                Item::ToolCall(call) => Some(call.call_id.clone()),
                Item::User(_) | Item::Assistant(_) | Item::Reasoning(_) | Item::ToolResult(_) | Item::Native(_) => None,
            })
            .collect();
        let ends_on_last_item = ends_on(items, view.last().copied());
        LastBuild { options: options.clone(), items: items.len(), report: report.clone(), plan, call_ids, ends_on_last_item }
    }
}

impl LastBuild {
    pub(super) fn report(&self) -> &Report {
        &self.report
    }
}

/// The view's last item is the last of `items` (borrowed, not a copy or a synthetic one).
fn ends_on(items: &[Item], last: Option<&Item>) -> bool {
    !items.is_empty() && last.and_then(|item| super::index_in(items, item)) == Some(items.len() - 1)
}

/// Options that decide the payload's old part (the ledger's count only matters through the
/// pruning decision, checked on its own).
pub(super) fn same_shape(a: &BuildOptions, b: &BuildOptions) -> bool {
    a.provider == b.provider
        && a.render == b.render
        && a.repair == b.repair
        && a.pruning == b.pruning
        && a.images == b.images
        && a.context_window == b.context_window
        && a.ledger_config == b.ledger_config
}

/// The build after an append, when it can be made from the last one; `None` to take the full path.
pub(super) fn try_append(items: &[Item], options: &BuildOptions, cache: &mut ViewCache) -> Option<(super::Kept, Report)> {
    let last = cache.last_build.as_ref()?;
    if !same_shape(&last.options, options) || !last.ends_on_last_item || cache.dirty_from < last.items || items.len() <= last.items {
        return None;
    }
    // The last view ended on `items[last.items - 1]` itself: it must be on the user side.
    let new = &items[last.items..];
    if !new[0].is_assistant_side() || items[last.items - 1].is_assistant_side() {
        return None;
    }
    if new.iter().any(|item| item_images(item).next().is_some()) {
        return None;
    }
    // Repair of the new items alone: nothing but the leading user message it puts before a
    // conversation that starts with the assistant.
    let (mut view, repairs) = repair::repair(new, &options.repair);
    match repairs.as_slice() {
        [] => {}
        [only] if only.kind == RepairKind::LeadingUserInserted && view.len() == new.len() + 1 => {
            view.remove(0);
        }
        _ => return None,
    }
    // The new part must open a new entry: the new view too starts on the assistant side (repair
    // may have dropped empty items at its start).
    if !view.first().is_some_and(|item| item.is_assistant_side()) {
        return None;
    }
    let mut new_calls = Vec::new();
    for item in &view {
        if let Item::ToolCall(call) = item.as_ref() {
            if last.call_ids.contains(&call.call_id) || last.report.id_map.contains_key(&call.call_id) {
                return None;
            }
            new_calls.push(call.call_id.clone());
        }
    }
    // Pruning: the plan the last build was made under still holds (as active, the same
    // boundaries).
    let family = options.family();
    let mut context = options.usage_cached(items, cache);
    let last = cache.last_build.as_ref()?;
    // The new part opens a new entry on the assistant side: its steps add to the last count.
    let (new_turns, new_steps) = prune::clocks(view.iter().map(|i| i.as_ref()));
    let (turns, steps) = (last.report.pruning.turns + new_turns, last.report.pruning.steps + new_steps);
    let was = last.plan;
    if options.pruning_plan(items, &context, cache) != was {
        return None;
    }
    // What the last view left out still holds: an append rewrites nothing before it.
    context.follow_view(&options.ledger, &cache.built.as_ref().filter(|f| f.holds(options, was, items))?.rewrites);
    let refs: Vec<&Item> = view.iter().map(|item| item.as_ref()).collect();
    // Only the new entries are kept from this render: the envelope (and Chat's leading system
    // message) is the last payload's.
    let tail_options = RenderOptions { system: None, ..options.render.clone() };
    let (tail, notes) = provider::render(options.provider, &refs, &tail_options);
    // Entries merge by role; the new part must open with the model's entry, or it could have
    // joined the last one.
    // (A block the request must not leave out: the full path refuses the request.)
    if !notes.id_map.is_empty() || !tail.starts_on_assistant_side() || super::unsendable(options.provider, &notes.unknown_natives).is_err() {
        return None;
    }
    let kept = cache.last.as_mut()?;
    // Same options, same envelope: the last body's part before its conversation is this one's.
    let known = kept.payload.entries_len();
    if kept.body.entries() != known || !kept.payload.append_entries(tail) {
        return None;
    }
    // Giving up from here puts the last payload and body back as they were, for the full path
    // to reuse.
    let give_up = |kept: &mut super::Kept| {
        kept.payload.truncate_entries(known);
        kept.body.truncate_entries(known);
        None
    };
    if kept.payload.prefill_refusal(&options.render.limits).is_some() || !kept.payload.settings_hold(&options.render) {
        return give_up(kept);
    }
    // The new entries are written onto the end of the last body (copied first only when the
    // last build's caller still holds it).
    let Some(reused) = kept.payload.to_json_appended(&mut kept.body) else { return give_up(kept) };
    // A failed check leaves the validator's state past the old entries: the full path that
    // follows starts a new one.
    if !kept.payload.validate_appended(&options.render.limits, kept.body.len(), &mut kept.checked).is_empty() {
        return give_up(kept);
    }
    let kept = cache.last.take()?;

    let last = cache.last_build.as_mut()?;
    let sizes = &cache.sizes;
    // Every new view item is borrowed from the session's items (repair changed nothing).
    let size = |item: &Item| match super::index_in(items, item) {
        Some(i) if i < sizes.len() => sizes[i],
        _ => item_size(item, family),
    };
    let (bytes, tokens) = report::by_source(&refs, None, &[], family, &size);
    let mut report = last.report.clone();
    report.items = items.len();
    report.view_items += view.len();
    report.bytes = kept.body.len();
    // The same pruning as the last build: nothing newly pruned.
    report.pruning.newly_trimmed.clear();
    report.pruning.newly_cleared.clear();
    report.pruning.turns = turns;
    report.pruning.steps = steps;
    report.pruning.invalidated_bytes = 0;
    report.reasoning.add(notes.reasoning);
    report.wrapped_inputs += notes.wrapped_inputs;
    report.moved_images += notes.moved_images;
    report.dropped_natives += notes.dropped_natives;
    report.unknown_natives.extend(notes.unknown_natives);
    report.sources = report.sources + bytes;
    let by_source = report.tokens.by_source.clone() + tokens;
    report.tokens = TokenReport { request: by_source.total(), by_source, context };
    report.reuse = Some(ReuseReport { entries: kept.body.entries(), reused_entries: reused, appended_only: true });
    report.prefix = None;
    report.diagnostics = report::diagnose(&report);

    last.items = items.len();
    last.ends_on_last_item = ends_on(items, view.last().map(|item| item.as_ref()));
    last.report = report.clone();
    last.call_ids.extend(new_calls);
    Some((kept, report))
}
