//! The first-user prefix as sections: one framed block per kind of environment fact, in a fixed
//! order, each present only when the context has it; and each block cut to what the head budget
//! granted it, in its own order, with a marker the model sees.
//!
//! How each section gives way: a text section (user info, git status, memory) is shortened from
//! its end; rules leave broadest first (the most specific, last, stay whole; the first that does
//! not fit whole is shortened if a useful part fits); skills and MCP servers leave from the end of
//! their lists (skills come in priority order). A section with no room even for its marker is
//! left out. Whole sections render exactly as they did before there was a budget.

use super::budget::{allocate, Demand, HeadAllocation, HeadCut, Section, SectionAllocation};
use super::{McpServer, PromptContext};
use crate::discovery::{Rule, SkillListing};
use crate::framing::{neutralize, wrap};
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
    let demands: Vec<Demand> = blocks.iter().zip(&needs).map(|(b, &need)| Demand { need, policy: budget_of.policy(b.section()) }).collect();
    let grants = allocate(budget, &demands);
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
    (texts.join("\n\n"), HeadAllocation { budget, need, used, sections })
}

fn tokens(text: &str, family: Family) -> u32 {
    text_tokens(text, family).ceil().min(u32::MAX as f64) as u32
}

/// One section of the prefix, borrowing what it renders.
enum Block<'a> {
    Text { section: Section, tag: &'static str, text: String },
    Rules(&'a [Rule]),
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
        blocks.push(Block::Rules(&ctx.rules));
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
            Block::Rules(_) => Section::Rules,
            Block::Skills(_) => Section::Skills,
            Block::Mcp(_) => Section::Mcp,
        }
    }

    fn whole(&self) -> String {
        match self {
            Block::Text { tag, text, .. } => wrap(tag, text),
            Block::Rules(rules) => rules_block(rules, 0, None),
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
                match longest(text, |len| fits(&render(len))) {
                    Some(len) => {
                        let out = render(len);
                        let lost = tokens(&wrap(tag, text), family).saturating_sub(tokens(&out, family));
                        (out, vec![cut(section, "shortened", lost)])
                    }
                    None => (String::new(), vec![cut(section, "left_out", tokens(&wrap(tag, text), family))]),
                }
            }
            Block::Rules(rules) => {
                // The fewest rules left out (broadest first) for the rest to fit whole.
                let Some(from) = (1..=rules.len()).find(|&k| fits(&rules_block(rules, k, None))) else {
                    let all = rules.iter().map(|r| cut(&r.path, "left_out", tokens(&rule_element(r, None), family))).collect();
                    return (String::new(), all);
                };
                // The last one left out, shortened, if a useful part of it fits.
                let last = &rules[from - 1];
                let text = last.text.trim_end();
                let shortened = longest(text, |len| fits(&rules_block(rules, from, Some(len)))).filter(|&len| len >= MIN_USEFUL_BYTES.min(text.len()));
                let dropped = if shortened.is_some() { from - 1 } else { from };
                let mut cuts: Vec<HeadCut> =
                    rules[..dropped].iter().map(|r| cut(&r.path, "left_out", tokens(&rule_element(r, None), family))).collect();
                if let Some(len) = shortened {
                    let lost = tokens(&rule_element(last, None), family).saturating_sub(tokens(&rule_element(last, Some(len)), family));
                    cuts.push(cut(&last.path, "shortened", lost));
                }
                (rules_block(rules, from, shortened), cuts)
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

/// The longest prefix length of `text` (at a char boundary, at most its length less one byte:
/// the whole text needs no cut) for which `fits` holds, if even the empty one does. A binary
/// search: the estimate grows with the text almost everywhere, and the answer is checked.
pub(crate) fn longest(text: &str, fits: impl Fn(usize) -> bool) -> Option<usize> {
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    if !fits(0) {
        return None;
    }
    let (mut lo, mut hi) = (0usize, text.len());
    while hi - lo > 1 {
        let mid = floor(lo + (hi - lo) / 2);
        if mid == lo {
            break;
        }
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // End at a line break when one is near (a shortened status or rule reads better whole-lined).
    if let Some(nl) = text[..lo].rfind('\n').filter(|&nl| nl > 0 && nl * 4 >= lo * 3) {
        if fits(nl) {
            return Some(nl);
        }
    }
    Some(lo)
}

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

/// The rules from `from` on whole, the one before shortened to `partial` bytes when given, and
/// a note naming the broadest ones left out.
fn rules_block(rules: &[Rule], from: usize, partial: Option<usize>) -> String {
    let dropped = if partial.is_some() { from - 1 } else { from };
    let mut text = String::from("<rules>");
    if let Some(len) = partial {
        text.push_str(&rule_element(&rules[from - 1], Some(len)));
    }
    for rule in &rules[from..] {
        text.push_str(&rule_element(rule, None));
    }
    if dropped > 0 {
        let paths: Vec<&str> = rules[..dropped].iter().map(|r| r.path.as_str()).collect();
        text.push_str(&format!("\n({dropped} broader rules not loaded for space: {})", neutralize(&paths.join(", "))));
    }
    text.push_str("\n</rules>");
    text
}

fn skill_element(entry: &crate::discovery::skills::ListingEntry) -> String {
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
