//! What the lazy module exports (`contextview_lazy_bg.wasm`, loaded on first use): the
//! importers of other agents' sessions and the discovery engine of rules and skills, with YAML,
//! globs and ignore files behind it — what a build-and-answer loop never calls. Results cross
//! as plain data (a log's text, rules and skills), which the first-load module reads as any
//! host's would.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use contextview_js::cross::{error, optional_string, string, strings, to_js, type_error, typed, via_value};
use contextview_discovery::host::HostAnswer;
use contextview_discovery::{Outcome, Step, Workspace};
use contextview_import::{self as import, Format, ImportReport};
use contextview::update;

/// The TypeScript names of what this module takes and returns: the core's, discovery's options
/// and its own results.
mod ts {
    pub use contextview_js::ts::*;
    contextview_js::ts_names! {
        DiscoveryOptions;
        ImportResult = super::ImportResult;
        ImportTreeResult = super::ImportTreeResult;
        ImportAppended = super::ImportAppended;
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TS_OWN_TYPES: &str = include_str!("types.d.ts");

/// An imported session: our log as JSON Lines text, and what the import kept and left out.
#[derive(Serialize)]
pub struct ImportResult {
    pub log: String,
    pub report: ImportReport,
}

/// Imports another agent's session file (any of the formats `Format` names) into our log format.
/// The format is detected when not given. Bad lines are reported in `report.diagnostics`.
#[wasm_bindgen(js_name = importSession)]
pub fn import_session(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'claude-code' | 'codex' | 'pi' | 'gemini-cli' | 'copilot-cli' | 'aider' | 'cline' | 'roo-code' | 'kilo-code' | 'opencode' | null | undefined")] format: JsValue,
) -> Result<ts::ImportResult, JsValue> {
    let text = string(&text, "text")?;
    let imported = import::import(format_of(&format)?, &text).map_err(|e| error(e.code(), &e.to_string()))?;
    typed(&ImportResult::from(imported))
}

/// The `format` argument: a format's name, or none (`null`, `undefined`) to detect it.
fn format_of(format: &JsValue) -> Result<Option<Format>, JsValue> {
    optional_string(format, "format")?.map(|name| name.parse::<Format>().map_err(|m| error(contextview::error_codes::INVALID_ARGUMENT, &m))).transpose()
}

impl From<import::Imported> for ImportResult {
    fn from(imported: import::Imported) -> ImportResult {
        ImportResult { log: update::write_log(&imported.header, &imported.records), report: imported.report }
    }
}

/// A session imported with its subagents' own files (`importTree`).
#[derive(Serialize)]
pub struct ImportTreeResult {
    pub parent: ImportResult,
    /// Each child file given, in order: its log's header names the parent's session and the
    /// call it answered when the parent links it.
    pub children: Vec<ImportResult>,
    /// Sessions of subagents the parent links to a call whose files were not given.
    pub missing: Vec<String>,
    /// Child files the parent does not link to any call, by session id.
    pub unlinked: Vec<String>,
}

/// Imports a session with the files of the subagents that answered its calls (Claude Code's
/// `agent-<id>.jsonl` beside it), each linked to its call; lists what was not given or not linked.
#[wasm_bindgen(js_name = importTree)]
pub fn import_tree(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] children: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'claude-code' | 'codex' | 'pi' | 'gemini-cli' | 'copilot-cli' | 'aider' | 'cline' | 'roo-code' | 'kilo-code' | 'opencode' | null | undefined")] format: JsValue,
) -> Result<ts::ImportTreeResult, JsValue> {
    let text = string(&text, "text")?;
    let children = strings(&children, "children")?;
    let refs: Vec<&str> = children.iter().map(String::as_str).collect();
    let tree = import::import_tree(format_of(&format)?, &text, &refs).map_err(|e| error(e.code(), &e.to_string()))?;
    typed(&ImportTreeResult::from(tree))
}

impl From<import::ImportedTree> for ImportTreeResult {
    fn from(tree: import::ImportedTree) -> ImportTreeResult {
        ImportTreeResult {
            parent: tree.parent.into(),
            children: tree.children.into_iter().map(ImportResult::from).collect(),
            missing: tree.missing,
            unlinked: tree.unlinked,
        }
    }
}

/// One OpenCode session's files from its storage folder (`OpenCodeStorage`).
struct StorageTexts {
    session: String,
    messages: Vec<String>,
    parts: Vec<String>,
}

impl StorageTexts {
    fn read(value: &JsValue, argument: &str) -> Result<StorageTexts, JsValue> {
        if !value.is_object() || js_sys::Array::is_array(value) {
            return Err(type_error(argument, "an object { session, messages, parts }", value));
        }
        let field = |name: &str| js_sys::Reflect::get(value, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
        Ok(StorageTexts {
            session: string(&field("session"), &format!("{argument}.session"))?,
            messages: strings(&field("messages"), &format!("{argument}.messages"))?,
            parts: strings(&field("parts"), &format!("{argument}.parts"))?,
        })
    }

    /// The message and part texts as the importer borrows them.
    fn lists(&self) -> (Vec<&str>, Vec<&str>) {
        (self.messages.iter().map(String::as_str).collect(), self.parts.iter().map(String::as_str).collect())
    }
}

/// Imports an OpenCode session from its storage folder's files (OpenCode up to 1.1: its
/// `session/<project>/<id>.json`, `message/<id>/*.json` and each message's `part/<message>/*.json`,
/// in any order), with its subagents' sessions from the same folder, each put together as
/// `opencode export` writes it and imported as `importTree` imports exports. Files that cannot
/// take their place are named in each report's diagnostics (`import.storage_file_left_out`).
#[wasm_bindgen(js_name = importOpenCodeStorage)]
pub fn import_opencode_storage(
    #[wasm_bindgen(unchecked_param_type = "OpenCodeStorage")] session: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "OpenCodeStorage[]")] children: JsValue,
) -> Result<ts::ImportTreeResult, JsValue> {
    let parent = StorageTexts::read(&session, "session")?;
    let mut child_texts = Vec::new();
    if !children.is_undefined() && !children.is_null() {
        if !js_sys::Array::is_array(&children) {
            return Err(type_error("children", "an array of { session, messages, parts }", &children));
        }
        for (i, child) in js_sys::Array::from(&children).iter().enumerate() {
            child_texts.push(StorageTexts::read(&child, &format!("children[{i}]"))?);
        }
    }
    let (messages, parts) = parent.lists();
    let lists: Vec<(Vec<&str>, Vec<&str>)> = child_texts.iter().map(StorageTexts::lists).collect();
    let child_files: Vec<import::opencode::storage::Files> = child_texts
        .iter()
        .zip(&lists)
        .map(|(c, (messages, parts))| import::opencode::storage::Files { session: &c.session, messages, parts })
        .collect();
    let tree = import::import_opencode_storage(import::opencode::storage::Files { session: &parent.session, messages: &messages, parts: &parts }, &child_files)
        .map_err(|e| error(e.code(), &e.to_string()))?;
    typed(&ImportTreeResult::from(tree))
}

/// What a followed file's growth adds to its log (`IncrementalImport.push`, `.replace`,
/// `.settle`).
#[derive(Serialize)]
pub struct ImportAppended {
    /// JSON Lines to append to the log: the header first, the first time there is anything.
    pub log: String,
    /// Records in `log`.
    pub records: usize,
    /// A settled record changed (a rewrite, a rewind in the file): `log` starts with a `rewind`.
    pub rewound: bool,
    /// JSON Lines after the log that the file may still change (its last model turn and what
    /// follows it): shown with the log (`log + pending`), not stored; each push's replaces the
    /// last push's, and `settle()` appends them.
    pub pending: String,
}

/// A session file followed while its agent writes it: each `push` (what the file grew by) or
/// `replace` (the file as it now is, when the agent rewrote it) imports it as it now stands and
/// returns what the log gains — the records up to the last model turn, once each (or a `rewind`
/// and the records from the last prompt both imports share, when a settled one changed) — and
/// what is still pending. The log and its pending lines replay to the view a whole import gives.
#[wasm_bindgen(js_name = IncrementalImport)]
pub struct JsIncrementalImport {
    inner: import::incremental::IncrementalImport,
}

#[wasm_bindgen(js_class = IncrementalImport)]
impl JsIncrementalImport {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "'claude-code' | 'codex' | 'pi' | 'gemini-cli' | 'copilot-cli' | 'aider' | 'cline' | 'roo-code' | 'kilo-code' | 'opencode' | null")] format: JsValue,
    ) -> Result<JsIncrementalImport, JsValue> {
        Ok(JsIncrementalImport { inner: import::incremental::IncrementalImport::new(format_of(&format)?) })
    }

    /// The file grew by `text`.
    pub fn push(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<ts::ImportAppended, JsValue> {
        let text = string(&text, "text")?;
        let appended = self.inner.push(&text).map_err(|e| error(e.code(), &e.to_string()))?;
        self.appended(appended)
    }

    /// The file now holds `text` (rewritten by its agent, or read again whole).
    pub fn replace(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<ts::ImportAppended, JsValue> {
        let text = string(&text, "text")?;
        let appended = self.inner.replace(&text).map_err(|e| error(e.code(), &e.to_string()))?;
        self.appended(appended)
    }

    /// The file is done with (or following it stops): the pending lines are appended to the log.
    pub fn settle(&mut self) -> Result<ts::ImportAppended, JsValue> {
        let appended = self.inner.settle();
        self.appended(appended)
    }

    /// Whether the file is to be read whole again each time it changes (`replace`) rather than by
    /// what it grew by (`push`): its format is not told yet, its agent rewrites it whole (a Cline,
    /// Roo Code or Kilo Code task, an OpenCode export, a Gemini CLI `.json`), or it was rewritten
    /// under a reader of its lines.
    #[wasm_bindgen(getter, js_name = readsWhole)]
    pub fn reads_whole(&self) -> bool {
        self.inner.reads_whole()
    }

    /// The report of the whole import of the file as it now stands (none before anything was
    /// imported): for a file read a line at a time (Codex, pi, Copilot CLI), made when asked for,
    /// at the cost of a whole import.
    #[wasm_bindgen(unchecked_return_type = "ImportReport | null")]
    pub fn report(&mut self) -> Result<JsValue, JsValue> {
        match self.inner.report() {
            Some(report) => to_js(&report),
            None => Ok(JsValue::NULL),
        }
    }

    /// The format being read (none until the file told it).
    #[wasm_bindgen(getter, unchecked_return_type = "'claude-code' | 'codex' | 'pi' | 'gemini-cli' | 'copilot-cli' | 'aider' | 'cline' | 'roo-code' | 'kilo-code' | 'opencode' | null")]
    pub fn format(&self) -> JsValue {
        self.inner.format().map_or(JsValue::NULL, |f| JsValue::from_str(f.as_str()))
    }

    fn appended(&self, appended: import::incremental::Appended) -> Result<ts::ImportAppended, JsValue> {
        let mut log = String::new();
        if let Some(header) = &appended.header {
            log = update::write_log(header, &[]);
        }
        let lines = |records: &[update::Record]| records.iter().map(|r| r.to_line() + "\n").collect::<String>();
        log.push_str(&lines(&appended.records));
        typed(&ImportAppended { log, records: appended.records.len(), rewound: appended.rewound, pending: lines(&appended.pending) })
    }
}

/// The discovery engine (sans-IO): start a job, then loop `step()` / `answer()` until done.
/// See `docs/discovery-protocol.md`; the package's `discover(options, fs)` drives it.
#[wasm_bindgen]
pub struct WorkspaceEngine {
    inner: Workspace,
}

#[wasm_bindgen]
impl WorkspaceEngine {
    #[wasm_bindgen(constructor)]
    pub fn new(options: ts::DiscoveryOptions) -> Result<WorkspaceEngine, JsValue> {
        let options = via_value(&options, contextview::error_codes::INVALID_OPTIONS, "discovery options")?;
        let inner = Workspace::new(options).map_err(|m| error(contextview::error_codes::INVALID_OPTIONS, &m))?;
        Ok(WorkspaceEngine { inner })
    }

    #[wasm_bindgen(js_name = startDiscover)]
    pub fn start_discover(&mut self) {
        self.inner.start_discover();
    }

    #[wasm_bindgen(js_name = startRefresh)]
    pub fn start_refresh(&mut self, #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue) -> Result<(), JsValue> {
        self.inner.start_refresh(&strings(&paths, "paths")?);
        Ok(())
    }

    #[wasm_bindgen(js_name = startRulesForPath)]
    pub fn start_rules_for_path(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> Result<(), JsValue> {
        self.inner.start_rules_for_path(&string(&path, "path")?);
        Ok(())
    }

    #[wasm_bindgen(js_name = startRulesMatching)]
    pub fn start_rules_matching(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> Result<(), JsValue> {
        self.inner.start_rules_matching(&string(&path, "path")?);
        Ok(())
    }

    #[wasm_bindgen(js_name = startLoadSkill)]
    pub fn start_load_skill(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue) -> Result<(), JsValue> {
        self.inner.start_load_skill(&string(&name, "name")?);
        Ok(())
    }

    /// `{done: false, requests}` or `{done: true, outcome}`; a job that cannot finish throws
    /// an Error with its code (`unknown_skill`, `not_discovered`, `discovery_stalled`,
    /// `invalid_argument`).
    #[wasm_bindgen(unchecked_return_type = "{ done: false; requests: HostRequest[] } | { done: true; outcome: Environment | Changes | Rule[] | LoadedSkill }")]
    pub fn step(&mut self) -> Result<JsValue, JsValue> {
        let result = js_sys::Object::new();
        match self.inner.step() {
            Step::Need(requests) => {
                js_sys::Reflect::set(&result, &"done".into(), &false.into())?;
                js_sys::Reflect::set(&result, &"requests".into(), &to_js(&requests)?)?;
            }
            Step::Done(outcome) => {
                let outcome = match outcome {
                    Outcome::Environment(env) => to_js(&env)?,
                    Outcome::Changes(changes) => to_js(&changes)?,
                    Outcome::Rules { rules } => to_js(&rules)?,
                    Outcome::Skill(skill) => to_js(&skill)?,
                    Outcome::Error { code, message } => return Err(error(&code, &message)),
                };
                js_sys::Reflect::set(&result, &"done".into(), &true.into())?;
                js_sys::Reflect::set(&result, &"outcome".into(), &outcome)?;
            }
        }
        Ok(result.into())
    }

    /// The host's answers to the last batch of requests.
    pub fn answer(&mut self, #[wasm_bindgen(unchecked_param_type = "HostAnswer[]")] answers: JsValue) -> Result<(), JsValue> {
        let answers: Vec<HostAnswer> = serde_wasm_bindgen::from_value(answers)
            .map_err(|e| error(contextview::error_codes::INVALID_ARGUMENT, &format!("host answers are malformed: {e}")))?;
        self.inner.answer(answers);
        Ok(())
    }

    /// Host calls made so far.
    pub fn stats(&self) -> Result<ts::WorkspaceStats, JsValue> {
        typed(&self.inner.stats())
    }
}

