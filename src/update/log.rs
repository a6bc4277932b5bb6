//! The session log's text form: JSON Lines, a versioned header, then one record per line.
//!
//! Reading never stops at bad input. A torn last line (a crash mid-append) is dropped with a
//! warning; a malformed line elsewhere is reported with its line number and skipped; everything
//! else still loads. Nothing here rewrites the log.

use serde_json::Value;

use super::record::{Header, Record, RecordBody, RecordError, LOG_FORMAT, LOG_VERSION};
use crate::diagnostic::Diagnostic;
use crate::update::codes;

/// A parsed log: what could be read, and what could not.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    pub header: Option<Header>,
    pub records: Vec<Record>,
    /// The line (1-based) each record was read from, index for index with `records`.
    pub lines: Vec<usize>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses JSON Lines text into records, with a diagnostic for each line it could not use.
pub fn parse_log(text: &str) -> Log {
    let mut log = Log { header: None, records: Vec::new(), lines: Vec::new(), diagnostics: Vec::new() };
    let ends_with_newline = text.ends_with('\n');
    let lines: Vec<&str> = text.split('\n').collect();
    let last_index = lines.len().saturating_sub(1);
    let mut last_seq: Option<u64> = None;

    for (index, raw) in lines.iter().enumerate() {
        let line_no = index + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        let is_torn_candidate = index == last_index && !ends_with_newline;
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) if is_torn_candidate => {
                log.diagnostics.push(
                    Diagnostic::new(
                        &codes::LOG_TORN_TAIL,
                        format!("last line is incomplete ({} bytes, {e}); it was dropped", line.len()),
                    )
                    .at_line(line_no),
                );
                continue;
            }
            Err(e) => {
                log.diagnostics.push(
                    Diagnostic::new(&codes::LOG_MALFORMED_LINE, format!("line is not JSON: {e}"))
                        .at_line(line_no),
                );
                continue;
            }
        };

        if log.header.is_none() && log.records.is_empty() && is_header(&value) {
            match serde_json::from_value::<Header>(value) {
                Ok(header) => {
                    if header.version > LOG_VERSION {
                        log.diagnostics.push(
                            Diagnostic::new(
                                &codes::LOG_NEWER_VERSION,
                                format!(
                                    "log version {} is newer than {LOG_VERSION}; unknown records will be kept and skipped",
                                    header.version
                                ),
                            )
                            .at_line(line_no),
                        );
                    }
                    log.header = Some(header);
                }
                Err(e) => log.diagnostics.push(
                    Diagnostic::new(&codes::LOG_BAD_HEADER, format!("header line is invalid: {e}"))
                        .at_line(line_no),
                ),
            }
            continue;
        }
        if log.header.is_none() && log.records.is_empty() {
            log.diagnostics.push(
                Diagnostic::new(&codes::LOG_MISSING_HEADER, "log has no header line; reading records anyway")
                    .at_line(line_no),
            );
        }

        match Record::from_value(value) {
            Ok(record) => {
                if let Some(prev) = last_seq {
                    if record.seq <= prev {
                        if log.records.iter().rev().any(|r| r.seq == record.seq && *r == record) {
                            log.diagnostics.push(
                                Diagnostic::new(
                                    &codes::LOG_DUPLICATE_RECORD,
                                    format!("record seq {} appears twice; the copy was skipped", record.seq),
                                )
                                .at_line(line_no),
                            );
                            continue;
                        }
                        log.diagnostics.push(
                            Diagnostic::new(
                                &codes::LOG_SEQ_OUT_OF_ORDER,
                                format!("seq {} does not follow {prev}; kept in file order", record.seq),
                            )
                            .at_line(line_no),
                        );
                    }
                }
                last_seq = Some(last_seq.map_or(record.seq, |p| p.max(record.seq)));
                if let RecordBody::Unknown(_) = record.body {
                    log.diagnostics.push(
                        Diagnostic::new(
                            &codes::LOG_UNKNOWN_RECORD,
                            format!("record seq {} is of a kind this version does not know; kept and skipped", record.seq),
                        )
                        .at_line(line_no),
                    );
                }
                log.records.push(record);
                log.lines.push(line_no);
            }
            Err(RecordError::BadEnvelope(reason)) => log.diagnostics.push(
                Diagnostic::new(&codes::LOG_BAD_ENVELOPE, format!("line is not a record: {reason}"))
                    .at_line(line_no),
            ),
            Err(RecordError::BadBody { kind, reason }) => log.diagnostics.push(
                Diagnostic::new(&codes::LOG_BAD_RECORD, format!("`{kind}` record is malformed: {reason}"))
                    .at_line(line_no),
            ),
        }
    }
    log
}

fn is_header(value: &Value) -> bool {
    value.get("format").and_then(Value::as_str) == Some(LOG_FORMAT)
}

/// Writes a header and records as JSON Lines (each line newline-terminated).
pub fn write_log(header: &Header, records: &[Record]) -> String {
    let mut out = serde_json::to_string(header).unwrap_or_default();
    out.push('\n');
    for record in records {
        out.push_str(&record.to_line());
        out.push('\n');
    }
    out
}
