//! What an Aider transcript shows its model got: the last run's prompts (what the user typed,
//! less Aider's commands and its echo of answers) and its replies, with their reasoning. The
//! file holds no more than that of what the model saw (not Aider's system prompt, the files it
//! sent, nor the messages it sent on its own), so this side counts what the transcript shows,
//! and the comparison checks that the log keeps all of it.

use super::SourceView;
use crate::aider_transcript::{is_answer_echo, read, Record};

pub fn source_view(text: &str) -> SourceView {
    let records = read(text);
    let mut view = SourceView::default();
    // (Text with no run in it is no history: nothing of it reached a model through Aider.)
    let Some(last_run) = records.iter().rposition(|r| matches!(r, Record::Started { .. })) else { return view };
    for record in &records[last_run..] {
        match record {
            Record::Typed { line, text } => {
                let first = text.trim_start();
                if !(first.starts_with('/') || first.starts_with('!') || is_answer_echo(first)) {
                    view.prompt(*line, None, text);
                }
            }
            Record::Reply { line, reasoning, text } => {
                if let Some(reasoning) = reasoning {
                    view.reasoning(*line, &[], reasoning);
                }
                view.assistant_text(*line, None, text);
            }
            Record::Started { .. } | Record::Said { .. } => {}
        }
    }
    view
}
