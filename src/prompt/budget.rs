//! The head budget: one token budget for the first-user prefix, shared by its sections by
//! declared priority, reserve and grow weight, instead of a fixed cap per section.
//!
//! Each section of the prefix (`userInfo`, `gitStatus`, `rules`, `skills`, `mcp`, `memory`) asks
//! for what its whole text costs, the reminders for their reserve (when they have one), and
//! [`allocate`] divides the budget:
//!
//! 1. reserves are set aside in priority order, each as far as its section fills it (what is left
//!    of the budget caps each);
//! 2. priority groups are served from the highest down, each from what is left less the reserves
//!    of the groups below it: a section first gets its reserve, then the group shares the rest by
//!    grow weight (water-filling, each capped at what it asks for); a group whose members are all
//!    satisfied passes the rest down.
//!
//! Every section is granted its whole need when the needs fit, so nothing is cut then and the
//! prefix is what it was without a budget. What a section is granted depends only on the budget,
//! the policies and the sections of its own or higher priority, and on the lower ones only as far
//! as their reserves reach: content added to a lower-priority section that fills its reserve takes
//! nothing from a higher one, and the bytes of every section above it stay the same, so the cached
//! prefix survives. Raising a section's priority never lowers its grant. The prefix's sections are
//! then cut to their grants by `prefix.rs`, each in its own way, with a marker the model sees, and
//! each cut is listed with its reason. Within the rules, which leave first is set by source
//! ([`RulePriorities`]).
//!
//! The reminders a request adds are the budget's other user: each build's drained reminders may
//! take what the recorded prefix leaves of the budget (so at least their reserve), in drain
//! order; the first that does not fit is shortened with a marker, those after it wait for the
//! next request, and each is listed in that build's report (`view::reminders::drain_within`).

use contextview_derive::ReadValue;
use serde::Serialize;

use crate::workspace::{Rule, RuleSource};

pub use crate::update::record::HeadCut;

/// A section of the first-user prefix, in the order the prefix renders them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Section {
    UserInfo,
    GitStatus,
    Rules,
    Skills,
    Mcp,
    Memory,
    /// The reminders each request adds (not part of the prefix): what the prefix leaves of the
    /// budget, at least their reserve, which the prefix's sections cannot take.
    Reminders,
}

impl Section {
    /// Every section of the prefix, in rendering order.
    pub const ALL: [Section; 6] = [Section::UserInfo, Section::GitStatus, Section::Rules, Section::Skills, Section::Mcp, Section::Memory];

    /// Its name, as `headBudget.sections` keys it.
    pub fn as_str(self) -> &'static str {
        match self {
            Section::UserInfo => "userInfo",
            Section::GitStatus => "gitStatus",
            Section::Rules => "rules",
            Section::Skills => "skills",
            Section::Mcp => "mcp",
            Section::Memory => "memory",
            Section::Reminders => "reminders",
        }
    }

    /// The policy a section has when the host sets none: the facts of the machine first, then
    /// the project's rules, the user's memory, the repository's state, the tools' servers, and
    /// the skills listing last (a skill's body is read on demand; its listing is a hint). No
    /// reserves: a reserve is held whether or not its section fills it (the reminders' too: by
    /// default they take what the prefix leaves, and the first of each request always goes in).
    pub fn default_policy(self) -> SectionPolicy {
        let priority = match self {
            Section::UserInfo => 100,
            Section::Rules => 80,
            Section::Memory => 70,
            Section::GitStatus => 60,
            Section::Mcp => 50,
            Section::Skills => 40,
            Section::Reminders => 90,
        };
        SectionPolicy { priority, reserve: 0, grow: 1 }
    }
}

/// How a section shares the head budget (the host's [`SectionPolicyOverride`] over the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionPolicy {
    /// Higher is served first.
    pub priority: i32,
    /// Tokens held for this section (as far as it fills them) before any section is served
    /// beyond its own reserve.
    pub reserve: u32,
    /// Its share, among sections of equal priority, of what is left after their reserves.
    pub grow: u32,
}

/// A section's policy as the host gives it: what it leaves out keeps the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a section's policy")]
pub struct SectionPolicyOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grow: Option<u32>,
}

/// The sections' policies the host sets, by section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "the sections' policies")]
pub struct SectionPolicies {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_info: Option<SectionPolicyOverride>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_status: Option<SectionPolicyOverride>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<SectionPolicyOverride>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<SectionPolicyOverride>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<SectionPolicyOverride>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<SectionPolicyOverride>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminders: Option<SectionPolicyOverride>,
}

/// The first-user prefix's budget (`PromptContext.headBudget`). Without one, the prefix may
/// take a quarter of the model's window (`DEFAULT_WINDOW_SHARE`), with the default priorities.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a head budget")]
pub struct HeadBudget {
    /// The budget in tokens (of the model's family, as the ledger counts them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u32>,
    /// The budget as a share of the context window, above 0 and at most 1 (the smaller of the
    /// two when both are given; this share alone when `tokens` is not).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "window_share")]
    pub window_share: Option<f64>,
    /// The context window the share is of; else the model's known window, else 128,000
    /// (`DEFAULT_WINDOW`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u64>,
    #[serde(default, deserialize_with = "crate::value_read::null_as_default")]
    pub sections: SectionPolicies,
    /// Which rules leave the rules section first when it is over its grant.
    #[serde(default, skip_serializing_if = "RulePriorities::is_empty", deserialize_with = "crate::value_read::null_as_default")]
    pub rule_sources: RulePriorities,
}

/// `windowShare`: above 0 and at most 1 (null as absent).
fn window_share<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    use serde::de::Error as _;
    match <Option<f64> as serde::Deserialize>::deserialize(deserializer)? {
        Some(share) if !(share > 0.0 && share <= 1.0) => {
            Err(D::Error::invalid_value(serde::de::Unexpected::Float(share), &"a window share above 0 and at most 1"))
        }
        share => Ok(share),
    }
}

/// Priorities among the rules by where they come from (`headBudget.ruleSources`): when the
/// rules section is over its grant, rules of lower priority leave first, and among equals the
/// broadest first (the order the rules render in). Keyed by a rule's `source` (`agents_md`,
/// `claude_md`, `cursor_rules`, …) or `home` for rules found in the home directory (over their
/// source's priority). A rule whose key is not given has priority 0, so without any the rules
/// leave broadest first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[read(object)]
#[serde(deny_unknown_fields, expecting = "the rules' priorities by source")]
pub struct RulePriorities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents_override: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents_md: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_md: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_local: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_rules: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grok_rules: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_rules: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursorrules: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<i32>,
}

impl RulePriorities {
    fn is_empty(&self) -> bool {
        *self == RulePriorities::default()
    }

    /// A rule's priority: its home's when it is a home rule and `home` is given, else its
    /// source's, else 0.
    pub fn of(&self, rule: &Rule) -> i32 {
        let by_source = match rule.source {
            RuleSource::AgentsOverride => self.agents_override,
            RuleSource::AgentsMd => self.agents_md,
            RuleSource::ClaudeMd => self.claude_md,
            RuleSource::ClaudeLocal => self.claude_local,
            RuleSource::ClaudeRules => self.claude_rules,
            RuleSource::GrokRules => self.grok_rules,
            RuleSource::CursorRules => self.cursor_rules,
            RuleSource::Cursorrules => self.cursorrules,
            RuleSource::Import => self.import,
        };
        rule.home.then_some(self.home).flatten().or(by_source).unwrap_or(0)
    }

}

/// The share of the window the prefix may take when the host sets no budget.
pub const DEFAULT_WINDOW_SHARE: f64 = 0.25;
/// The window assumed for a model whose window is not known.
pub const DEFAULT_WINDOW: u64 = 128_000;



impl HeadBudget {
    /// The budget in tokens for a model.
    pub fn tokens_for(&self, model: Option<&str>) -> u32 {
        let window = self.window.or_else(|| model.and_then(crate::view::ledger::model_window)).unwrap_or(DEFAULT_WINDOW);
        let share = match (self.tokens, self.window_share) {
            (Some(_), None) => None,
            (_, share) => Some(share.unwrap_or(DEFAULT_WINDOW_SHARE)),
        };
        let by_share = share.map(|s| (window as f64 * s).floor().min(u32::MAX as f64) as u32);
        match (self.tokens, by_share) {
            (Some(t), Some(s)) => t.min(s),
            (Some(t), None) => t,
            (None, Some(s)) => s,
            (None, None) => unreachable!("a share is always set when tokens are not"),
        }
    }

    /// A section's policy: the host's, over the default.
    pub fn policy(&self, section: Section) -> SectionPolicy {
        let s = &self.sections;
        let given = match section {
            Section::UserInfo => s.user_info,
            Section::GitStatus => s.git_status,
            Section::Rules => s.rules,
            Section::Skills => s.skills,
            Section::Mcp => s.mcp,
            Section::Memory => s.memory,
            Section::Reminders => s.reminders,
        }
        .unwrap_or_default();
        let default = section.default_policy();
        SectionPolicy {
            priority: given.priority.unwrap_or(default.priority),
            reserve: given.reserve.unwrap_or(default.reserve),
            grow: given.grow.unwrap_or(default.grow),
        }
    }
}

/// How the budget went: per section present, what it asked for, was granted and used.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadAllocation {
    /// The budget in tokens.
    pub budget: u32,
    /// What the whole sections cost together.
    pub need: u32,
    /// What the rendered sections cost together (at most the budget when anything was cut).
    pub used: u32,
    pub sections: Vec<SectionAllocation>,
}

impl HeadAllocation {
    /// Every cut, in rendering order.
    pub fn cuts(&self) -> Vec<HeadCut> {
        self.sections.iter().flat_map(|s| s.cuts.iter().cloned()).collect()
    }
}

/// One section's share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SectionAllocation {
    pub section: Section,
    pub priority: i32,
    pub reserve: u32,
    pub grow: u32,
    /// Tokens of the whole section (the reminders': their reserve).
    pub need: u32,
    /// Tokens it was granted (its need when nothing was over).
    pub granted: u32,
    /// Tokens of the section as rendered.
    pub used: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cuts: Vec<HeadCut>,
}

/// What each section asks for, with its policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Demand {
    pub need: u32,
    pub policy: SectionPolicy,
}

/// Divides `budget` among `demands` (see the module docs); each grant is at most its need.
/// Pure arithmetic on integers: the same demands always get the same grants.
pub fn allocate(budget: u32, demands: &[Demand]) -> Vec<u32> {
    // Highest priority first, in rendering order among equals (an insertion sort: a handful of
    // sections, and no sorting code in the module for it).
    let mut order: Vec<usize> = Vec::with_capacity(demands.len());
    for i in 0..demands.len() {
        let at = order.iter().position(|&j| demands[j].policy.priority < demands[i].policy.priority).unwrap_or(order.len());
        order.insert(at, i);
    }
    // Reserves, as far as their sections fill them, in priority order.
    let mut held = vec![0u64; demands.len()];
    let mut left = budget as u64;
    for &i in &order {
        held[i] = (demands[i].policy.reserve as u64).min(demands[i].need as u64).min(left);
        left -= held[i];
    }
    let mut grants = vec![0u64; demands.len()];
    let mut remaining = budget as u64;
    let mut start = 0;
    while start < order.len() {
        let priority = demands[order[start]].policy.priority;
        let end = start + order[start..].iter().take_while(|&&i| demands[i].policy.priority == priority).count();
        let group = &order[start..end];
        let below: u64 = order[end..].iter().map(|&i| held[i]).sum();
        let mut pool = remaining.saturating_sub(below);
        for &i in group {
            grants[i] = held[i];
            pool -= grants[i];
        }
        share(&mut grants, demands, group, &mut pool);
        let given: u64 = group.iter().map(|&i| grants[i]).sum();
        remaining -= given;
        start = end;
    }
    grants.into_iter().map(|g| g as u32).collect()
}

/// Water-fills `pool` over `group` by grow weight, each capped at its need; what weighted
/// members leave goes to the members of weight 0, in order.
fn share(grants: &mut [u64], demands: &[Demand], group: &[usize], pool: &mut u64) {
    loop {
        let hungry: Vec<usize> = group.iter().copied().filter(|&i| grants[i] < demands[i].need as u64 && demands[i].policy.grow > 0).collect();
        if hungry.is_empty() || *pool == 0 {
            break;
        }
        let weights: u64 = hungry.iter().map(|&i| demands[i].policy.grow as u64).sum();
        let mut spent = 0;
        for &i in &hungry {
            let part = *pool * demands[i].policy.grow as u64 / weights;
            let take = part.min(demands[i].need as u64 - grants[i]);
            grants[i] += take;
            spent += take;
        }
        if spent == 0 {
            // Shares rounded to nothing: one token each, in order.
            for &i in &hungry {
                if spent == *pool {
                    break;
                }
                grants[i] += 1;
                spent += 1;
            }
        }
        *pool -= spent;
    }
    for &i in group.iter().filter(|&&i| demands[i].policy.grow == 0) {
        let take = (demands[i].need as u64 - grants[i]).min(*pool);
        grants[i] += take;
        *pool -= take;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(need: u32, priority: i32, reserve: u32, grow: u32) -> Demand {
        Demand { need, policy: SectionPolicy { priority, reserve, grow } }
    }

    #[test]
    fn everything_fits_everything_is_granted() {
        assert_eq!(allocate(100, &[d(10, 1, 0, 1), d(20, 5, 50, 1), d(30, 3, 0, 0)]), vec![10, 20, 30]);
    }

    #[test]
    fn the_highest_priority_is_served_first() {
        // 100 tokens: priority 9 takes its 70, priority 5 the 30 left, priority 1 nothing.
        assert_eq!(allocate(100, &[d(50, 1, 0, 1), d(70, 9, 0, 1), d(60, 5, 0, 1)]), vec![0, 70, 30]);
    }

    #[test]
    fn a_reserve_is_held_from_higher_priorities() {
        // The low section's 25 are held: the high one gets 75 of its 200, the low one its 25.
        assert_eq!(allocate(100, &[d(200, 9, 0, 1), d(40, 1, 25, 1)]), vec![75, 25]);
        // Held as far as it is filled: a need of 5 holds 5.
        assert_eq!(allocate(100, &[d(200, 9, 0, 1), d(5, 1, 25, 1)]), vec![95, 5]);
    }

    #[test]
    fn equal_priorities_share_by_grow_weight_up_to_their_needs() {
        // 90 by weights 2:1 → 60 and 30.
        assert_eq!(allocate(90, &[d(100, 5, 0, 2), d(100, 5, 0, 1)]), vec![60, 30]);
        // The second needs only 10: the first gets the rest.
        assert_eq!(allocate(90, &[d(100, 5, 0, 2), d(10, 5, 0, 1)]), vec![80, 10]);
        // Weight 0 gets only what the weighted members leave.
        assert_eq!(allocate(90, &[d(100, 5, 0, 0), d(50, 5, 0, 1)]), vec![40, 50]);
        // Reserves first, then weights: 30 + 30 of the 60 left, 0 + 30.
        assert_eq!(allocate(90, &[d(100, 5, 30, 1), d(100, 5, 0, 1)]), vec![60, 30]);
    }

    #[test]
    fn reserves_beyond_the_budget_go_by_priority() {
        assert_eq!(allocate(50, &[d(100, 1, 40, 1), d(100, 9, 40, 1)]), vec![10, 40]);
    }

    #[test]
    fn rounding_leaves_no_token_unspent() {
        // 10 over three equal weights: 3 + 3 + 3, then one more in order.
        assert_eq!(allocate(10, &[d(100, 5, 0, 1), d(100, 5, 0, 1), d(100, 5, 0, 1)]), vec![4, 3, 3]);
    }
}
