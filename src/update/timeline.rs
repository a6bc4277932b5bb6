//! The points in a log where the agent sent the model a request.
//!
//! A request is sent whenever the model is about to speak: the conversation ends with what a
//! person typed or with tool results, and the next record starts a model turn (its text, its
//! reasoning or a tool call). Each point names the log line that turn starts on, so the log's
//! lines before it are the session exactly as it stood when that request went out — an
//! inspector replays them to rebuild the request, and a session fed the lines in order builds
//! the same requests one after another (with the prefix report between them).
//!
//! Points are found on the records as they were written, not on the effective history: a
//! rewind later in the log does not unsend the requests made before it. After a rewind the fold
//! starts over on the records so far, as a session would.

use serde::Serialize;

use super::log::Log;
use super::record::Record;
use super::replay::Replayer;

/// One request the agent sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPoint {
    /// The line (1-based) the model's answer starts on: the lines before it are the log the
    /// request was built from.
    pub line: usize,
    /// The `seq` of that record.
    pub seq: u64,
    /// Conversation items the request held.
    pub items: usize,
    /// Real prompts so far: the request answers prompt `prompts` (1-based).
    pub prompts: u64,
    /// Model turns since that prompt before this one (0 for the prompt's first request).
    pub step: usize,
    /// The request the agent would send next: the log ends waiting for the model (its `line`
    /// is past the last line, so the whole log is the request's; `seq` is the next one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub next: bool,
    /// The API the request went to, as the log last recorded a model switch (an import records
    /// the agent's provider and model; the agent's own name is mapped to one of ours); absent
    /// when the log names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<crate::provider::Provider>,
    /// The model it went to, as recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The provider and model the log last switched to, the provider mapped to one of ours.
fn recorded(replayer: &Replayer) -> (Option<crate::provider::Provider>, Option<String>) {
    match &replayer.state().model {
        Some(switch) => (Some(crate::provider::Provider::of_recorded(&switch.provider, &switch.model)), Some(switch.model.clone())),
        None => (None, None),
    }
}

/// Every request point of a parsed log, in order; `text_lines` is the number of lines of its
/// text (`text.split('\n')`), for the last point when the log ends waiting for the model.
pub fn request_points(log: &Log, text_lines: usize) -> Vec<RequestPoint> {
    points_of(&log.records, &log.lines, text_lines)
}

/// The index of the record the last model turn starts on (the last request's answer), if the
/// records hold one: what follows it (the turn, its results, anything after) is what a file
/// still being written may yet change — the turn's last block, its usage, results written while
/// it streamed (see `contextview_import::incremental`).
pub fn last_turn_start(records: &[Record]) -> Option<usize> {
    let seq = points_of(records, &[], records.len()).into_iter().rev().find(|p| !p.next)?.seq;
    records.iter().rposition(|r| r.seq == seq)
}

fn points_of(records: &[Record], lines: &[usize], text_lines: usize) -> Vec<RequestPoint> {
    let mut points = Vec::new();
    let mut replayer = Replayer::new(&[]);
    let mut last_prompts = 0;
    let mut step = 0;
    for (index, record) in records.iter().enumerate() {
        let before = replayer.items().len();
        let waiting = replayer.items().last().is_some_and(|item| !item.is_assistant_side());
        if !replayer.push(record) {
            let prompts_before = replayer.state().prompt_count;
            replayer = Replayer::new(&records[..=index]);
            // A rewind that cut prompts: the conversation goes on from a new prompt, whose first
            // request is step 0. One that cut nothing (out of range) changes nothing.
            if replayer.state().prompt_count < prompts_before {
                last_prompts = u64::MAX;
            }
            continue;
        }
        let items = replayer.items();
        if waiting && items.len() > before && items[before].is_assistant_side() {
            let prompts = replayer.state().prompt_count;
            step = if prompts == last_prompts { step + 1 } else { 0 };
            last_prompts = prompts;
            let (provider, model) = recorded(&replayer);
            points.push(RequestPoint {
                line: lines.get(index).copied().unwrap_or(index + 1),
                seq: record.seq,
                items: before,
                prompts,
                step,
                next: false,
                provider,
                model,
            });
        }
    }
    if replayer.items().last().is_some_and(|item| !item.is_assistant_side()) {
        let prompts = replayer.state().prompt_count;
        let (provider, model) = recorded(&replayer);
        points.push(RequestPoint {
            line: text_lines + 1,
            seq: records.last().map_or(1, |r| r.seq + 1),
            items: replayer.items().len(),
            prompts,
            step: if prompts == last_prompts { step + 1 } else { 0 },
            next: true,
            provider,
            model,
        });
    }
    points
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::update::parse_log;

    const HEADER: &str = r#"{"format":"contextview.session-log","version":1,"sessionId":"s"}"#;

    fn user(seq: u64, text: &str) -> String {
        format!(r#"{{"seq":{seq},"ts":"2026-01-01T00:00:00Z","update":{{"sessionUpdate":"user_message_chunk","content":{{"type":"text","text":"{text}"}}}}}}"#)
    }
    fn agent(seq: u64, text: &str) -> String {
        format!(r#"{{"seq":{seq},"ts":"2026-01-01T00:00:00Z","update":{{"sessionUpdate":"agent_message_chunk","messageId":"m{seq}","content":{{"type":"text","text":"{text}"}}}}}}"#)
    }
    fn call(seq: u64, id: &str) -> String {
        format!(r#"{{"seq":{seq},"ts":"2026-01-01T00:00:00Z","update":{{"sessionUpdate":"tool_call","toolCallId":"{id}","title":"ls","kind":"read","status":"pending","rawInput":{{}}}}}}"#)
    }
    fn result(seq: u64, id: &str) -> String {
        format!(r#"{{"seq":{seq},"ts":"2026-01-01T00:00:00Z","update":{{"sessionUpdate":"tool_call_update","toolCallId":"{id}","status":"completed","content":[{{"type":"content","content":{{"type":"text","text":"ok"}}}}]}}}}"#)
    }

    /// (line, seq, items, prompts, step) of each point but a final `next` one, and that one's.
    fn points(lines: &[String]) -> Vec<(usize, u64, usize, u64, usize)> {
        points_and_next(lines).0
    }

    fn points_and_next(lines: &[String]) -> (Vec<(usize, u64, usize, u64, usize)>, Option<(usize, u64, usize, u64, usize)>) {
        let text = format!("{HEADER}\n{}\n", lines.join("\n"));
        let log = parse_log(&text);
        assert_eq!(log.diagnostics, vec![]);
        let mut all: Vec<RequestPoint> = request_points(&log, text.split('\n').count());
        let next = all.last().filter(|p| p.next).cloned();
        all.retain(|p| !p.next);
        let tuple = |p: &RequestPoint| (p.line, p.seq, p.items, p.prompts, p.step);
        (all.iter().map(tuple).collect(), next.as_ref().map(tuple))
    }

    #[test]
    fn a_request_before_every_model_turn_after_a_prompt_or_results() {
        let lines = vec![
            user(1, "list files"),   // line 2
            call(2, "a"),            // line 3: request 1 (1 item)
            call(3, "b"),            // parallel call, same turn
            result(4, "a"),
            result(5, "b"),
            agent(6, "two files"),   // line 7: request 2 (5 items)
            user(7, "thanks"),
            agent(8, "welcome"),     // line 9: request 3 (7 items)
        ];
        assert_eq!(points(&lines), vec![(3, 2, 1, 1, 0), (7, 6, 5, 1, 1), (9, 8, 7, 2, 0)]);
    }

    #[test]
    fn a_log_that_ends_waiting_ends_with_the_request_it_would_send_next() {
        let lines = vec![user(1, "hi"), agent(2, "hello"), user(3, "again")];
        // Header, three records and the empty text after the last newline: five lines.
        assert_eq!(points_and_next(&lines), (vec![(3, 2, 1, 1, 0)], Some((6, 4, 3, 2, 0))));
        let answered = vec![user(1, "hi"), agent(2, "hello")];
        assert_eq!(points_and_next(&answered), (vec![(3, 2, 1, 1, 0)], None));
        let results_in = vec![user(1, "go"), call(2, "a"), result(3, "a")];
        assert_eq!(points_and_next(&results_in), (vec![(3, 2, 1, 1, 0)], Some((6, 4, 3, 1, 1))));
    }

    #[test]
    fn lines_skip_blank_and_unreadable_lines() {
        let text = format!("{HEADER}\n\n{}\nnot json\n{}\n", user(1, "hi"), agent(2, "hello"));
        let log = parse_log(&text);
        assert_eq!(request_points(&log, text.split('\n').count()).iter().map(|p| p.line).collect::<Vec<_>>(), vec![5]);
    }

    #[test]
    fn a_rewind_that_cuts_nothing_does_not_start_a_new_prompt() {
        let rewind = r#"{"seq":4,"ts":"2026-01-01T00:00:00Z","event":{"kind":"rewind","promptIndex":7}}"#.to_owned();
        let lines = vec![user(1, "go"), call(2, "a"), result(3, "a"), rewind, agent(5, "done")];
        assert_eq!(points(&lines), vec![(3, 2, 1, 1, 0), (6, 5, 3, 1, 1)]);
    }

    #[test]
    fn each_point_names_the_provider_and_model_the_log_last_switched_to() {
        let switch = |seq: u64, provider: &str, model: &str| {
            format!(r#"{{"seq":{seq},"ts":"2026-01-01T00:00:00Z","event":{{"kind":"model_switch","provider":"{provider}","model":"{model}"}}}}"#)
        };
        let lines = vec![user(1, "a"), agent(2, "b"), switch(3, "openai", "gpt-5.3-codex"), user(4, "c"), agent(5, "d")];
        let text = format!("{HEADER}\n{}\n", lines.join("\n"));
        let log = parse_log(&text);
        let got: Vec<_> = request_points(&log, text.split('\n').count()).into_iter().map(|p| (p.provider, p.model)).collect();
        use crate::provider::Provider;
        assert_eq!(got, vec![(None, None), (Some(Provider::OpenAiResponses), Some("gpt-5.3-codex".to_owned()))]);
    }

    #[test]
    fn a_rewind_keeps_the_requests_made_before_it() {
        let rewind = r#"{"seq":3,"ts":"2026-01-01T00:00:00Z","event":{"kind":"rewind","promptIndex":0}}"#.to_owned();
        let lines = vec![user(1, "first"), agent(2, "one"), rewind, user(4, "second"), agent(5, "two")];
        // After the rewind the conversation starts again: the new prompt's request holds 1 item.
        assert_eq!(points(&lines), vec![(3, 2, 1, 1, 0), (6, 5, 1, 1, 0)]);
    }

    #[test]
    fn the_last_turn_starts_at_the_last_request_s_answer() {
        let records = |lines: &[String]| parse_log(&format!("{HEADER}\n{}\n", lines.join("\n"))).records;
        let turn = vec![user(1, "go"), call(2, "a"), call(3, "b"), result(4, "a")];
        assert_eq!(last_turn_start(&records(&turn)), Some(1));
        let two = vec![user(1, "go"), call(2, "a"), result(3, "a"), agent(4, "done"), user(5, "more")];
        assert_eq!(last_turn_start(&records(&two)), Some(3));
        assert_eq!(last_turn_start(&records(&[user(1, "go")])), None);
        assert_eq!(last_turn_start(&[]), None);
    }
}
