//! Subagents as linked child sessions (chapter 8.3's subagent audience, given a session of its
//! own): a delegation call the model made (`Task`, `spawn_agent`, …) is answered by a child that
//! has its own prompt, model, tools, budgets, log and state machine, and whose report comes back
//! as the call's result.
//!
//! The parent records both ends: `subagent_started` (the call, the child's session id, the task)
//! when the host starts one, and — when it ends — the call's result (the report, exactly, or cut
//! to the report budget with a marker; a synthetic error result when the child could not report)
//! followed by `subagent_ended` (how it went, what its requests used). The child's log header
//! names the parent's session and call, so either side finds the other. Several children of one
//! turn run at once and end in any order; the parent's requests keep the calls' order, as for any
//! results. A parent that reopens finds its children in its replay state (`subagents`).

use super::protocol::{EndSubagent, Reply, StartSubagent, SubagentStart};
use super::core::Session;
use super::protocol::{Command, Processed, SessionError};
use crate::prompt::{Audience, DEFAULT_REPORT_TOKENS};
use crate::tokens::{text_tokens, Family};
use crate::update::record::{Event, Spent, SubagentEnded, SubagentStarted, SubagentStatus};
use crate::update::{write, Header, RecordBody};

impl Session {
    pub(super) fn start_subagent(&mut self, start: StartSubagent, ts: &str) -> Result<Reply, SessionError> {
        let call = start.tool_call_id;
        if !self.has_tool_call(&call) {
            return Err(SessionError::UnknownToolCall(call));
        }
        if self.replayer().has_result(&call) {
            return Err(SessionError::SubagentCall(format!("the call `{call}` is answered already")));
        }
        if self.replayer().state().subagents.iter().any(|l| l.call_id == call && l.status == SubagentStatus::Running) {
            return Err(SessionError::SubagentCall(format!("a subagent already answers the call `{call}`")));
        }
        if start.task.trim().is_empty() {
            return Err(SessionError::InvalidOptions("a subagent needs a `task`".into()));
        }
        let parent = self.log.header.as_ref().map(|h| h.session_id.clone()).unwrap_or_default();
        let session_id = start.session_id.unwrap_or_else(|| format!("{parent}/{call}"));
        if session_id.trim().is_empty() || session_id == parent {
            return Err(SessionError::InvalidOptions("a subagent's `sessionId` must name a session of its own".into()));
        }
        // The child's model: the one given, else the parent's (its window with it).
        let sampling = self.sampling();
        let same_provider = start.provider.is_none() || start.provider == sampling.as_ref().map(|s| s.provider);
        let provider = start.provider.or(sampling.as_ref().map(|s| s.provider));
        let inherits = same_provider && start.model.is_none();
        let model = start.model.or_else(|| sampling.as_ref().filter(|_| inherits).and_then(|s| s.model.clone()));
        let context_window = start.context_window.or_else(|| sampling.as_ref().filter(|_| inherits).and_then(|s| s.context_window));
        let report_tokens = start.report_tokens.unwrap_or(DEFAULT_REPORT_TOKENS);
        // The parent's context for the subagent audience: its task, budgets and tools.
        let mut context = self.prompt.clone().unwrap_or_default();
        context.audience = Audience::Subagent;
        context.task = Some(start.task.clone());
        context.report_tokens = Some(report_tokens);
        context.subagent_max_tokens = start.max_tokens.or(context.subagent_max_tokens);
        if let Some(tools) = start.tools {
            context.tools = tools;
        }
        context.model = model.clone();
        let mut header = Header::new(session_id.clone());
        header.created_at = Some(ts.to_owned());
        header.cwd = self.log.header.as_ref().and_then(|h| h.cwd.clone()).or_else(|| context.cwd.clone());
        header.parent_session_id = Some(parent);
        header.parent_call_id = Some(call.clone());
        let started = SubagentStarted {
            call_id: call,
            session_id,
            task: start.task,
            provider: provider.map(|p| p.as_str().to_owned()),
            model: model.clone(),
            report_tokens,
        };
        let seq = self.write(RecordBody::Event(Event::SubagentStarted(started)), ts);
        let storage_name = super::protocol::storage_name(&header.session_id);
        Ok(Reply::SubagentStarted { seqs: vec![seq], child: Box::new(SubagentStart { header, context, provider, model, context_window, storage_name }) })
    }

    pub(super) fn end_subagent(&mut self, end: EndSubagent, ts: &str) -> Result<Reply, SessionError> {
        let call = end.tool_call_id;
        let Some(link) = self.replayer().state().subagents.iter().rev().find(|l| l.call_id == call && l.status == SubagentStatus::Running).cloned()
        else {
            return Err(SessionError::NoSubagent(call));
        };
        if self.replayer().has_result(&call) {
            return Err(SessionError::SubagentCall(format!("the call `{call}` is answered already")));
        }
        let family = self.family();
        let (text, failed, report_tokens, trimmed, error) = match (end.report, end.error) {
            (Some(report), None) => {
                let (text, trimmed) = fit_report(&report, link.report_tokens, family);
                let tokens = text_tokens(&text, family).ceil() as u32;
                (text, false, tokens, trimmed, None)
            }
            (None, Some(error)) => (format!("The subagent stopped before it reported: {error}"), true, 0, false, Some(error)),
            _ => return Err(SessionError::InvalidOptions("give the subagent's `report`, or the `error` it stopped with (one of the two)".into())),
        };
        let mut seqs = self.write_updates(vec![write::tool_result(&call, write::result_content(&text, Vec::new()), failed, None)], ts);
        let ended = SubagentEnded {
            call_id: call,
            session_id: link.session_id,
            status: if failed { SubagentStatus::Failed } else { SubagentStatus::Completed },
            error,
            report_tokens,
            trimmed,
            usage: end.usage,
        };
        seqs.push(self.write(RecordBody::Event(Event::SubagentEnded(ended)), ts));
        Ok(Reply::Accepted { seqs })
    }

    /// A subagent's session as `startSubagent` described it: its header, then its model, its
    /// prompt context and its task as the first prompt, each through its own door (the records
    /// wait in its effect queue for the host to store, with the next command's).
    pub fn for_subagent(start: &SubagentStart, now: Option<String>) -> Result<Session, SessionError> {
        let mut session = Session::create(start.header.clone());
        let mut commands = Vec::new();
        if let (Some(provider), Some(model)) = (start.provider, start.model.clone()) {
            commands.push(Command::SwitchModel(super::protocol::SwitchModel { provider, model, context_window: start.context_window }));
        }
        commands.push(Command::SetPromptContext(super::protocol::SetPromptContext { context: start.context.clone() }));
        let task = start.context.task.clone().unwrap_or_default();
        commands.push(Command::UserMessage(super::protocol::UserMessageInput { text: task, images: Vec::new(), message_id: None }));
        for command in commands {
            session.submit(command, now.clone());
            if let Some(Processed { error: Some(error), .. }) = session.input(super::core::RunNext) {
                return Err(SessionError::InvalidOptions(format!("the subagent's session could not start: {}", error.message)));
            }
        }
        Ok(session)
    }

    /// The session's final answer: the text of the model's last turn (what a subagent reports).
    pub fn final_answer(&mut self) -> Option<String> {
        use crate::conversation::Item;
        let replayer = self.replayer();
        let items = replayer.items();
        let last = items.iter().rposition(|i| matches!(i, Item::Assistant(_)))?;
        // The whole last turn's text: its text items after the last user message or result.
        let start = items[..=last].iter().rposition(|i| !matches!(i, Item::Assistant(_) | Item::Reasoning(_))).map_or(0, |i| i + 1);
        let text: Vec<&str> = items[start..=last]
            .iter()
            .filter_map(|i| match i {
                Item::Assistant(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        Some(text.join("\n\n"))
    }

    /// What this session's requests used: the usage its log recorded, summed.
    pub fn spent(&mut self) -> Spent {
        self.replayer().state().spent
    }
}

/// The report as the call's result: whole within `budget` tokens, else its start cut to fit with
/// a marker saying how much more there was.
fn fit_report(report: &str, budget: u32, family: Family) -> (String, bool) {
    let tokens = |text: &str| text_tokens(text, family).ceil() as u32;
    let whole = tokens(report);
    if whole <= budget {
        return (report.to_owned(), false);
    }
    let marker = |kept: &str| format!("\n\n[… the report went on for about {} more tokens, over its budget of {budget} (reportTokens) …]", whole.saturating_sub(tokens(kept)));
    let cut = crate::framing::longest_prefix(report, &|len| tokens(&format!("{}{}", &report[..len], marker(&report[..len]))) <= budget).unwrap_or(0);
    (format!("{}{}", &report[..cut], marker(&report[..cut])), true)
}
