//! The first-user prefix as sections: one framed block per kind of environment fact, in a fixed
//! order, each present only when the context has it; and each block cut to what the head budget
//! granted it, in its own order, with a marker the model sees.
//!
//! How each section gives way: a text section (user info, git status, memory) is shortened from
//! its end; rules leave by the priority of their source (`headBudget.ruleSources`), broadest first
//! among equals (the most specific, last, stay whole; the last to leave is shortened instead if a
//! useful part of it fits); skills and MCP servers leave from the end of
//! their lists (skills come in priority order). A section with no room even for its marker is
//! left out. Whole sections render exactly as they did before there was a budget.

use super::budget::{allocate, Demand, HeadAllocation, HeadCut, RulePriorities, Section, SectionAllocation, SectionPolicy};
use super::{McpServer, PromptContext};
use crate::workspace::{Rule, SkillListing};
use crate::framing::{longest_prefix as longest, neutralize, wrap};
use crate::tokens::{text_tokens, Family};

/// The prefix and how the budget went.
pub(super) fn render(ctx: &PromptContext) -> (String, HeadAllocation) {
    let family = Family::of_names(None, ctx.model.as_deref());
    let budget_of = ctx.head_budget.unwrap_or_default();
    let budget = budget_of.tokens_for(ctx.model.as_deref());
    let blocks = blocks(ctx);
    let whole: Vec<String> = blocks.iter().map(Block::whole).collect();
    let needs: Vec<u32> = whole.iter().map(|w| tokens(w, family)).collect();
    let need: u32 = needs.iter().fold(0u32, |a, n| a.saturating_add(*n));
    let mut demands: Vec<Demand> = blocks.iter().zip(&needs).map(|(b, &need)| Demand { need, policy: budget_of.policy(b.section()) }).collect();
    // The reminders' reserve is held from the prefix like any section's (asked for whole: what
    // they will need is not known before they come).
    let reminders = budget_of.policy(Section::Reminders);
    if reminders.reserve > 0 {
        demands.push(Demand { need: reminders.reserve, policy: reminders });
    }
    let mut grants = allocate(budget, &demands);
    let reminders = (reminders.reserve > 0).then(|| (demands.pop().expect("pushed"), grants.pop().expect("granted")));
    let mut texts = Vec::with_capacity(blocks.len());
    let mut sections = Vec::with_capacity(blocks.len());
    for (((block, whole), demand), granted) in blocks.iter().zip(whole).zip(&demands).zip(grants) {
        let section = block.section();
        let (text, cuts) = if granted >= demand.need {
            (whole, Vec::new())
        } else {
            let reason = format!(
                "over the head budget ({budget} tokens): {} was granted {granted} of its {} tokens at priority {}",
                section.as_str(),
                demand.need,
                demand.policy.priority
            );
            block.fit(granted, family, &reason)
        };
        let used = tokens(&text, family);
        sections.push(SectionAllocation {
            section,
            priority: demand.policy.priority,
            reserve: demand.policy.reserve,
            grow: demand.policy.grow,
            need: demand.need,
            granted,
            used,
            cuts,
        });
        if !text.is_empty() {
            texts.push(text);
        }
    }
    let used = sections.iter().fold(0u32, |a, s| a.saturating_add(s.used));
    if let Some((demand, granted)) = reminders {
        let SectionPolicy { priority, reserve, grow } = demand.policy;
        sections.push(SectionAllocation { section: Section::Reminders, priority, reserve, grow, need: demand.need, granted, used: 0, cuts: Vec::new() });
    }
    (texts.join("\n\n"), HeadAllocation { budget, need, used, sections })
}

fn tokens(text: &str, family: Family) -> u32 {
    text_tokens(text, family).ceil().min(u32::MAX as f64) as u32
}

/// One section of the prefix, borrowing what it renders.
enum Block<'a> {
    Text { section: Section, tag: &'static str, text: String },
    /// The rules, and the order they leave in when over.
    Rules(&'a [Rule], Vec<usize>),
    Skills(&'a SkillListing),
    Mcp(&'a [McpServer]),
}

fn blocks(ctx: &PromptContext) -> Vec<Block<'_>> {
    let mut blocks = Vec::new();
    let info: Vec<String> = [("OS", &ctx.os), ("Shell", &ctx.shell), ("Workspace", &ctx.cwd), ("Date", &ctx.date)]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| format!("{k}: {}", v.trim())))
        .collect();
    if !info.is_empty() {
        blocks.push(Block::Text { section: Section::UserInfo, tag: "user_info", text: info.join("\n") });
    }
    if let Some(status) = ctx.git_status.as_deref() {
        let status = status.trim();
        let status = if status.is_empty() { "(clean)" } else { status };
        blocks.push(Block::Text { section: Section::GitStatus, tag: "git_status", text: status.to_owned() });
    }
    if !ctx.rules.is_empty() {
        let priorities = ctx.head_budget.map(|b| b.rule_sources).unwrap_or_default();
        blocks.push(Block::Rules(&ctx.rules, leaving_order(&ctx.rules, &priorities)));
    }
    if let Some(listing) = ctx.skills.as_ref().filter(|l| !l.entries.is_empty()) {
        blocks.push(Block::Skills(listing));
    }
    if !ctx.mcp.is_empty() {
        blocks.push(Block::Mcp(&ctx.mcp));
    }
    // Memory is the user's own, across sessions: a subagent works on one task without it.
    if let (super::Audience::Primary, Some(memory)) = (ctx.audience, ctx.memory.as_deref().filter(|m| !m.trim().is_empty())) {
        blocks.push(Block::Text { section: Section::Memory, tag: "memory", text: memory.trim().to_owned() });
    }
    blocks
}

impl Block<'_> {
    fn section(&self) -> Section {
        match self {
            Block::Text { section, .. } => *section,
            Block::Rules(..) => Section::Rules,
            Block::Skills(_) => Section::Skills,
            Block::Mcp(_) => Section::Mcp,
        }
    }

    fn whole(&self) -> String {
        match self {
            Block::Text { tag, text, .. } => wrap(tag, text),
            Block::Rules(rules, _) => rules_block(rules, &vec![false; rules.len()], None),
            Block::Skills(listing) => skills_block(listing, listing.entries.len()),
            Block::Mcp(servers) => mcp_block(servers, servers.len()),
        }
    }

    /// The block cut to `grant` tokens (empty when not even its marker fits), and the cuts.
    fn fit(&self, grant: u32, family: Family, reason: &str) -> (String, Vec<HeadCut>) {
        let fits = |text: &str| tokens(text, family) <= grant;
        let section = self.section().as_str();
        let cut = |what: &str, action: &str, tokens: u32| HeadCut {
            section: section.to_owned(),
            what: what.to_owned(),
            action: action.to_owned(),
            tokens,
            reason: reason.to_owned(),
        };
        match self {
            Block::Text { tag, text, .. } => {
                let render = |len: usize| wrap(tag, &format!("{}{}", &text[..len], marker(text.len() - len, "")));
                match longest(text, &|len| fits(&render(len))) {
                    Some(len) => {
                        let out = render(len);
                        let lost = tokens(&wrap(tag, text), family).saturating_sub(tokens(&out, family));
                        (out, vec![cut(section, "shortened", lost)])
                    }
                    None => (String::new(), vec![cut(section, "left_out", tokens(&wrap(tag, text), family))]),
                }
            }
            Block::Rules(rules, order) => {
                // The fewest rules left out (in leaving order) for the rest to fit whole.
                let out = |k: usize, partial: Option<usize>| {
                    let mut left = vec![false; rules.len()];
                    order[..k].iter().for_each(|&i| left[i] = true);
                    rules_block(rules, &left, partial.map(|len| (order[k - 1], len)))
                };
                let Some(k) = (1..=rules.len()).find(|&k| fits(&out(k, None))) else {
                    let all = order.iter().map(|&i| cut(&rules[i].path, "left_out", tokens(&rule_element(&rules[i], None), family))).collect();
                    return (String::new(), all);
                };
                // The last one left out, shortened, if a useful part of it fits.
                let last = &rules[order[k - 1]];
                let text = last.text.trim_end();
                let shortened = longest(text, &|len| fits(&out(k, Some(len)))).filter(|&len| len >= MIN_USEFUL_BYTES.min(text.len()));
                let dropped = if shortened.is_some() { k - 1 } else { k };
                let mut cuts: Vec<HeadCut> =
                    order[..dropped].iter().map(|&i| cut(&rules[i].path, "left_out", tokens(&rule_element(&rules[i], None), family))).collect();
                if let Some(len) = shortened {
                    let lost = tokens(&rule_element(last, None), family).saturating_sub(tokens(&rule_element(last, Some(len)), family));
                    cuts.push(cut(&last.path, "shortened", lost));
                }
                (out(k, shortened), cuts)
            }
            Block::Skills(listing) => {
                let n = listing.entries.len();
                let Some(kept) = (0..n).rev().find(|&k| fits(&skills_block(listing, k))) else {
                    let all = listing.entries.iter().map(|e| cut(&e.name, "left_out", tokens(&skill_element(e), family))).collect();
                    return (String::new(), all);
                };
                let cuts = listing.entries[kept..].iter().map(|e| cut(&e.name, "left_out", tokens(&skill_element(e), family))).collect();
                (skills_block(listing, kept), cuts)
            }
            Block::Mcp(servers) => {
                let n = servers.len();
                let Some(kept) = (0..n).rev().find(|&k| fits(&mcp_block(servers, k))) else {
                    let all = servers.iter().map(|s| cut(&s.name, "left_out", tokens(&server_element(s), family))).collect();
                    return (String::new(), all);
                };
                let cuts = servers[kept..].iter().map(|s| cut(&s.name, "left_out", tokens(&server_element(s), family))).collect();
                (mcp_block(servers, kept), cuts)
            }
        }
    }
}

/// A rule shortened to less than this is left out instead (unless it is shorter whole).
const MIN_USEFUL_BYTES: usize = 200;

fn marker(rest: usize, of: &str) -> String {
    format!("\n[… {rest} more bytes{of} not shown: over the head budget (headBudget) …]")
}

fn rule_element(rule: &Rule, len: Option<usize>) -> String {
    let text = rule.text.trim_end();
    let body = match len {
        None => neutralize(text),
        Some(len) => neutralize(&format!("{}{}", &text[..len], marker(text.len() - len, &format!(" of {}", rule.path)))),
    };
    format!("\n<rule path=\"{}\">\n{body}\n</rule>", attr(&rule.path))
}

/// The rules not `left` out whole, in their order; the one `partial` names shortened to its
/// bytes (in its place); and a note naming the rules left out.
fn rules_block(rules: &[Rule], left: &[bool], partial: Option<(usize, usize)>) -> String {
    let mut text = String::from("<rules>");
    let mut dropped = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        match partial.filter(|(at, _)| *at == i) {
            Some((_, len)) => text.push_str(&rule_element(rule, Some(len))),
            None if left[i] => dropped.push(rule.path.as_str()),
            None => text.push_str(&rule_element(rule, None)),
        }
    }
    if !dropped.is_empty() {
        // Broadest first unless the host's priorities said otherwise: then the note says less.
        let broader = left.iter().rposition(|l| *l) < left.iter().position(|l| !*l).or(Some(left.len()));
        let which = if broader { "broader rules" } else { "rules" };
        text.push_str(&format!("\n({} {which} not loaded for space: {})", dropped.len(), neutralize(&dropped.join(", "))));
    }
    text.push_str("\n</rules>");
    text
}

/// The order rules leave in: lowest priority first, the broadest (earliest) first among equals.
fn leaving_order(rules: &[Rule], priorities: &RulePriorities) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::with_capacity(rules.len());
    for i in 0..rules.len() {
        let p = priorities.of(&rules[i]);
        let at = order.iter().position(|&j| priorities.of(&rules[j]) > p).unwrap_or(order.len());
        order.insert(at, i);
    }
    order
}

fn skill_element(entry: &crate::workspace::ListingEntry) -> String {
    format!(
        "\n<skill name=\"{}\" location=\"{}\">{}</skill>",
        attr(&entry.name),
        attr(&entry.location),
        neutralize(entry.description.trim())
    )
}

/// The listing's first `kept` entries and how many more there are.
fn skills_block(listing: &SkillListing, kept: usize) -> String {
    let mut text = String::from("<available_skills>");
    for entry in &listing.entries[..kept] {
        text.push_str(&skill_element(entry));
    }
    let more = listing.omitted.len() + listing.entries.len() - kept;
    if more > 0 {
        text.push_str(&format!("\n({more} more skills not listed for space)"));
    }
    text.push_str("\n</available_skills>");
    text
}

fn server_element(server: &McpServer) -> String {
    let status = server.status.as_deref().map(|s| format!(" status=\"{}\"", attr(s))).unwrap_or_default();
    let mut body = String::new();
    if !server.tools.is_empty() {
        body.push_str(&format!("tools: {}", neutralize(&server.tools.join(", "))));
    }
    if let Some(instructions) = server.instructions.as_deref().filter(|i| !i.trim().is_empty()) {
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&neutralize(instructions.trim()));
    }
    format!("\n<mcp_server name=\"{}\"{status}>{body}</mcp_server>", attr(&server.name))
}

/// The first `kept` servers and a note naming the rest.
fn mcp_block(servers: &[McpServer], kept: usize) -> String {
    let mut text = String::from("<mcp_servers>");
    for server in &servers[..kept] {
        text.push_str(&server_element(server));
    }
    if kept < servers.len() {
        let names: Vec<&str> = servers[kept..].iter().map(|s| s.name.as_str()).collect();
        text.push_str(&format!("\n({} more MCP servers not listed for space: {})", servers.len() - kept, neutralize(&names.join(", "))));
    }
    text.push_str("\n</mcp_servers>");
    text
}

/// Escapes a value placed inside a double-quoted attribute.
fn attr(value: &str) -> String {
    value.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}
