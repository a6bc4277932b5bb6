//! The build report: what a request contains and what the pipeline did to get there.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::images::ImageReport;
use super::prune::PruneReport;
use super::repair::Repair;
use crate::provider::{Provider, ReasoningCounts};

/// Returned with every payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub provider: Provider,
    pub model: String,
    /// Conversation items given to the build.
    pub items: usize,
    /// Items in the repaired view that was rendered.
    pub view_items: usize,
    /// Length of the serialized request body, in bytes.
    pub bytes: usize,
    pub repairs: Vec<Repair>,
    /// What pruning trimmed and cleared (inactive below the trigger).
    pub pruning: PruneReport,
    /// Image bytes, and images evicted or stripped.
    pub images: ImageReport,
    pub reasoning: ReasoningCounts,
    /// Provider-facing tool-call id → original id, for ids that had to change.
    pub id_map: BTreeMap<String, String>,
    /// Non-object tool inputs wrapped as `{"input": …}` for APIs that need an object.
    pub wrapped_inputs: usize,
    /// Tool-result images moved into a following user message.
    pub moved_images: usize,
}
