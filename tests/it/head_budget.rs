//! The head budget: the first-user prefix's sections share one token budget by priority,
//! reserve and grow weight; what does not fit is cut visibly, listed with its reason, and
//! never at the expense of a section of higher priority.

use contextview_discovery::Activation;
use contextview_discovery::rules::{Rule, RuleSource};
use contextview_discovery::skills::ListingEntry;
use contextview_discovery::SkillListing;
use contextview::prompt::budget::{HeadBudget, RulePriorities, SectionPolicyOverride, Section, SectionPolicies};
use contextview::prompt::{self, Audience, HeadAllocation, McpServer, PromptContext};
use contextview::tokens::{text_tokens, Family};
use pretty_assertions::assert_eq;
use proptest::prelude::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn words(tag: &str, n: usize) -> String {
    (0..n).map(|i| format!("{tag} line {i}: keep the build green and the diff small.")).collect::<Vec<_>>().join("\n")
}

fn rule(path: &str, text: String) -> Rule {
    Rule {
        path: path.to_owned(),
        canonical: path.to_owned(),
        source: RuleSource::AgentsMd,
        dir: "/repo".to_owned(),
        home: false,
        activation: Activation::Always,
        bytes: text.len() as u64,
        text,
        truncated: false,
        description: None,
        imported_from: None,
    }
}

fn skill(i: usize) -> ListingEntry {
    ListingEntry {
        name: format!("skill-{i}"),
        description: format!("Does task number {i} the way the team likes it done."),
        location: format!("/repo/.agents/skills/skill-{i}/SKILL.md"),
    }
}

fn server(i: usize) -> McpServer {
    McpServer {
        name: format!("server-{i}"),
        status: Some("connected".into()),
        tools: (0..4).map(|t| format!("tool_{i}_{t}")).collect(),
        instructions: Some(words(&format!("server {i}"), 3)),
    }
}

/// Sizes of each section's content (0 leaves a section out).
#[derive(Debug, Clone, Copy)]
struct Sizes {
    git: usize,
    rules: [usize; 3],
    skills: usize,
    mcp: usize,
    memory: usize,
}

fn workspace(sizes: Sizes) -> PromptContext {
    let mut ctx = PromptContext::new(Audience::Primary);
    ctx.os = Some("linux".into());
    ctx.cwd = Some("/repo".into());
    ctx.date = Some("2026-12-05".into());
    if sizes.git > 0 {
        ctx.git_status = Some(words("M src/file", sizes.git));
    }
    let paths = ["/home/me/.config/AGENTS.md", "/repo/AGENTS.md", "/repo/src/AGENTS.md"];
    ctx.rules = paths.iter().zip(sizes.rules).filter(|(_, n)| *n > 0).map(|(p, n)| rule(p, words(p, n))).collect();
    if sizes.skills > 0 {
        ctx.skills = Some(SkillListing { entries: (0..sizes.skills).map(skill).collect(), omitted: Vec::new(), bytes: 0 });
    }
    ctx.mcp = (0..sizes.mcp).map(server).collect();
    if sizes.memory > 0 {
        ctx.memory = Some(words("remember", sizes.memory));
    }
    ctx.model = Some("gpt-5".into());
    ctx
}

fn with_budget(mut ctx: PromptContext, tokens: u32, sections: SectionPolicies) -> PromptContext {
    ctx.head_budget = Some(HeadBudget { tokens: Some(tokens), sections, ..HeadBudget::default() });
    ctx
}

fn allocation(ctx: &PromptContext) -> (String, HeadAllocation) {
    prompt::render_prefix_allocated(ctx)
}

fn need(alloc: &HeadAllocation, section: Section) -> u32 {
    alloc.sections.iter().find(|s| s.section == section).map_or(0, |s| s.need)
}

fn granted(alloc: &HeadAllocation, section: Section) -> u32 {
    alloc.sections.iter().find(|s| s.section == section).map_or(0, |s| s.granted)
}

/// A section's whole block, counted apart: the prefix of a context holding that section alone.
fn counted_alone(ctx: &PromptContext, section: Section) -> u32 {
    let mut alone = PromptContext::new(Audience::Primary);
    alone.model = ctx.model.clone();
    match section {
        Section::UserInfo => {
            alone.os = ctx.os.clone();
            alone.cwd = ctx.cwd.clone();
            alone.date = ctx.date.clone();
        }
        Section::GitStatus => alone.git_status = ctx.git_status.clone(),
        Section::Rules => alone.rules = ctx.rules.clone(),
        Section::Skills => alone.skills = ctx.skills.clone(),
        Section::Mcp => alone.mcp = ctx.mcp.clone(),
        Section::Memory => alone.memory = ctx.memory.clone(),
        Section::Reminders => unreachable!("not a section of the prefix"),
    }
    text_tokens(&prompt::render_prefix(&alone), Family::OpenAi).ceil() as u32
}

const SIZES: Sizes = Sizes { git: 40, rules: [60, 20, 8], skills: 30, mcp: 2, memory: 12 };

#[test]
fn a_workspace_over_budget_is_shared_as_worked_out_by_hand() {
    let ctx = workspace(SIZES);
    let (whole, unbounded) = allocation(&with_budget(ctx.clone(), u32::MAX, SectionPolicies::default()));
    // Each section asks for what its block costs alone.
    for section in Section::ALL {
        assert_eq!(need(&unbounded, section), counted_alone(&ctx, section), "{section:?}");
    }
    let [ui, rules, memory] = [Section::UserInfo, Section::Rules, Section::Memory].map(|s| need(&unbounded, s));
    // Room for the user info, the rules and memory whole, and 100 more; the skills listing
    // holds a reserve of 60.
    let budget = ui + rules + memory + 100;
    let policies = SectionPolicies { skills: Some(SectionPolicyOverride { reserve: Some(60), ..Default::default() }), ..Default::default() };
    let (prefix, alloc) = allocation(&with_budget(ctx.clone(), budget, policies));
    // By hand: the 60 are held for skills (priority 40); user info (100), rules (80) and memory
    // (70) are served whole from the rest; git status (60) gets the 40 left; MCP (50) nothing;
    // skills their reserve.
    let grants: Vec<(Section, u32)> = alloc.sections.iter().map(|s| (s.section, s.granted)).collect();
    assert_eq!(
        grants,
        vec![
            (Section::UserInfo, ui),
            (Section::GitStatus, 40),
            (Section::Rules, rules),
            (Section::Skills, 60),
            (Section::Mcp, 0),
            (Section::Memory, memory),
        ]
    );
    assert!(alloc.used <= budget, "used {} of {budget}", alloc.used);
    // What was served whole is there byte for byte.
    for rule in &ctx.rules {
        assert!(prefix.contains(&format!("<rule path=\"{}\">\n{}\n</rule>", rule.path, rule.text)), "{}", rule.path);
    }
    assert!(prefix.contains(ctx.memory.as_deref().unwrap()));
    assert!(whole.starts_with(&prefix[..prefix.find("<git_status>").unwrap()]), "the user info is as without a budget");
    // MCP left out: every server listed as cut, none in the prefix.
    assert!(!prefix.contains("<mcp_servers>"));
    let cut_servers: Vec<&str> = alloc.sections[4].cuts.iter().map(|c| c.what.as_str()).collect();
    assert_eq!(cut_servers, vec!["server-0", "server-1"]);
    assert!(alloc.sections[4].cuts.iter().all(|c| c.action == "left_out" && c.reason.contains("mcp was granted 0 of")));
    // Skills: the first ones listed, the rest counted by the marker the model reads and listed as cuts.
    let skills = &alloc.sections[3];
    let listed = (0..30).filter(|i| prefix.contains(&format!("<skill name=\"skill-{i}\""))).count();
    assert!(listed > 0 && listed < 30, "{listed} listed");
    assert!((0..listed).all(|i| prefix.contains(&format!("<skill name=\"skill-{i}\""))), "the first ones stay");
    assert!(prefix.contains(&format!("({} more skills not listed for space)", 30 - listed)));
    assert_eq!(skills.cuts.len(), 30 - listed);
    assert_eq!(skills.cuts[0].what, format!("skill-{listed}"));
    assert!(skills.used <= 60);
    // Git status shortened within its 40, with the marker.
    let git = &alloc.sections[1];
    assert!(git.used <= 40 && git.used > 0, "{git:?}");
    assert!(prefix.contains("more bytes not shown: over the head budget (headBudget)"));
    assert_eq!(git.cuts.len(), 1);
    assert_eq!(git.cuts[0].action, "shortened");
    assert!(prefix.contains("<git_status>\nM src/file line 0: keep"), "git status keeps its start: {prefix}");
}

#[test]
fn rules_give_way_broadest_first() {
    let ctx = workspace(Sizes { git: 0, rules: [60, 20, 8], skills: 0, mcp: 0, memory: 0 });
    let (_, unbounded) = allocation(&with_budget(ctx.clone(), u32::MAX, SectionPolicies::default()));
    let ui = need(&unbounded, Section::UserInfo);
    let [broad, middle, specific] = [0, 1, 2].map(|i| {
        let mut one = ctx.clone();
        one.rules = vec![ctx.rules[i].clone()];
        counted_alone(&one, Section::Rules)
    });
    // Room for the two specific rules whole and about half the broadest.
    let budget = ui + middle + specific + broad / 2;
    let (prefix, alloc) = allocation(&with_budget(ctx.clone(), budget, SectionPolicies::default()));
    let rules = &alloc.sections[1];
    assert_eq!(rules.section, Section::Rules);
    assert_eq!(rules.granted, budget - ui);
    for rule in &ctx.rules[1..] {
        assert!(prefix.contains(&format!("<rule path=\"{}\">\n{}\n</rule>", rule.path, rule.text)), "{} whole", rule.path);
    }
    let broadest = &ctx.rules[0];
    assert_eq!(rules.cuts.len(), 1);
    assert_eq!((rules.cuts[0].what.as_str(), rules.cuts[0].action.as_str()), (broadest.path.as_str(), "shortened"));
    assert!(prefix.contains(&format!("more bytes of {} not shown: over the head budget (headBudget)", broadest.path)));
    assert!(prefix.contains(&broadest.text[..200]), "its start is kept");
    // Less room: the broadest is left out and named where the model reads the rules.
    let budget = ui + middle + specific + 40;
    let (prefix, alloc) = allocation(&with_budget(ctx.clone(), budget, SectionPolicies::default()));
    assert!(!prefix.contains(&broadest.text[..50]));
    assert!(prefix.contains(&format!("(1 broader rules not loaded for space: {})", broadest.path)));
    assert_eq!(alloc.sections[1].cuts[0].action, "left_out");
}

#[test]
fn nothing_over_is_the_prefix_without_a_budget() {
    let ctx = workspace(SIZES);
    let (whole, unbounded) = allocation(&with_budget(ctx.clone(), u32::MAX, SectionPolicies::default()));
    assert!(unbounded.sections.iter().all(|s| s.cuts.is_empty() && s.granted == s.need));
    // Exactly the need: the same bytes; one token less: something is cut.
    let (exact, alloc) = allocation(&with_budget(ctx.clone(), unbounded.need, SectionPolicies::default()));
    assert_eq!(exact, whole);
    assert!(alloc.cuts().is_empty());
    let (short, alloc) = allocation(&with_budget(ctx.clone(), unbounded.need - 1, SectionPolicies::default()));
    assert_ne!(short, whole);
    assert!(!alloc.cuts().is_empty());
    // The default budget (a quarter of gpt-5's window) holds this workspace whole.
    assert_eq!(prompt::render_prefix(&ctx), whole);
    // A share of a window the host names.
    let mut shared = ctx.clone();
    shared.head_budget = Some(HeadBudget { tokens: None, window_share: Some(0.5), window: Some(2 * unbounded.need as u64 - 2), ..HeadBudget::default() });
    assert_eq!(allocation(&shared).1.budget, unbounded.need - 1);
}

#[test]
fn a_window_share_outside_its_range_is_refused_with_its_path() {
    for share in [0.0, 1.5, -0.1] {
        let value = serde_json::json!({"headBudget": {"windowShare": share}});
        let err = contextview::diagnostic::from_value::<PromptContext>(value).unwrap_err();
        assert!(err.starts_with("headBudget.windowShare: ") && err.contains("above 0 and at most 1"), "{err}");
    }
    let value = serde_json::json!({"headBudget": {"sections": {"skils": {"priority": 1}}}});
    let err = contextview::diagnostic::from_value::<PromptContext>(value).unwrap_err();
    assert!(err.contains("skils"), "{err}");
}

fn policy(priority: i32, reserve: u32, grow: u32) -> Option<SectionPolicyOverride> {
    Some(SectionPolicyOverride { priority: Some(priority), reserve: Some(reserve), grow: Some(grow) })
}

/// Policies for the six prefix sections and the reminders, in that order.
fn policies(p: &[(i32, u32, u32); 7]) -> SectionPolicies {
    let o = |i: usize| policy(p[i].0, p[i].1, p[i].2);
    SectionPolicies { user_info: o(0), git_status: o(1), rules: o(2), skills: o(3), mcp: o(4), memory: o(5), reminders: o(6) }
}

const SECTIONS: [Section; 7] = [Section::UserInfo, Section::GitStatus, Section::Rules, Section::Skills, Section::Mcp, Section::Memory, Section::Reminders];

fn sizes() -> impl Strategy<Value = Sizes> {
    (0usize..30, [0usize..40, 0usize..20, 0usize..10], 0usize..25, 0usize..4, 0usize..15)
        .prop_map(|(git, rules, skills, mcp, memory)| Sizes { git, rules, skills, mcp, memory })
}

fn section_policies() -> impl Strategy<Value = [(i32, u32, u32); 7]> {
    // Few priorities, so ties are common.
    let one = || (0i32..4, 0u32..80, 0u32..3);
    [one(), one(), one(), one(), one(), one(), one()]
}

/// The prefix without one section's block (its tag through its closing tag).
fn without(prefix: &str, section: Section) -> String {
    let tag = match section {
        Section::UserInfo => "user_info",
        Section::GitStatus => "git_status",
        Section::Rules => "rules",
        Section::Skills => "available_skills",
        Section::Mcp => "mcp_servers",
        Section::Memory => "memory",
        Section::Reminders => unreachable!("not a section of the prefix"),
    };
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    match (prefix.find(&open), prefix.find(&close)) {
        (Some(a), Some(b)) => format!("{}{}", &prefix[..a], &prefix[b + close.len()..]).replace("\n\n\n\n", "\n\n").trim().to_owned(),
        _ => prefix.trim().to_owned(),
    }
}

fn grow(ctx: &mut PromptContext, section: Section) {
    match section {
        Section::UserInfo => ctx.shell = Some("bash with a long profile".into()),
        Section::GitStatus => ctx.git_status = Some(format!("{}\n{}", ctx.git_status.clone().unwrap_or_default(), words("?? new", 5))),
        Section::Rules => ctx.rules.insert(0, rule("/etc/AGENTS.md", words("system", 10))),
        Section::Skills => {
            let listing = ctx.skills.get_or_insert_with(SkillListing::default);
            let n = listing.entries.len();
            listing.entries.extend((n..n + 5).map(skill));
        }
        Section::Mcp => {
            let n = ctx.mcp.len();
            ctx.mcp.push(server(n));
        }
        Section::Memory => ctx.memory = Some(format!("{}\n{}", ctx.memory.clone().unwrap_or_default(), words("also", 5))),
        Section::Reminders => unreachable!("not a section of the prefix"),
    }
}

proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(64)))]

    #[test]
    fn what_is_kept_is_whole_and_within_its_grant(sizes in sizes(), p in section_policies(), share in 0u32..=100) {
        let ctx = workspace(sizes);
        let need = allocation(&with_budget(ctx.clone(), u32::MAX, SectionPolicies::default())).1.need;
        let budget = need * share / 100;
        let (prefix, alloc) = allocation(&with_budget(ctx.clone(), budget, policies(&p)));
        if need > budget {
            prop_assert!(alloc.used <= budget, "used {} of {}", alloc.used, budget);
            prop_assert_eq!(alloc.sections.iter().map(|s| s.granted).sum::<u32>(), budget, "the budget is spent");
        }
        for s in &alloc.sections {
            prop_assert!(s.used <= s.granted && s.granted <= s.need, "{:?}", s);
            if s.section != Section::Reminders {
                prop_assert_eq!(s.cuts.is_empty(), s.granted == s.need, "{:?}", s);
            }
        }
        // The reminders' reserve is held from the prefix, as far as the budget holds it.
        let reminders = alloc.sections.iter().find(|s| s.section == Section::Reminders).map_or(0, |s| s.granted);
        let held: u32 = alloc.sections.iter().map(|s| s.reserve.min(s.need)).sum();
        if held <= budget {
            prop_assert_eq!(reminders, p[6].1);
        }
        prop_assert!(reminders <= p[6].1);
        prop_assert!(alloc.used + reminders <= budget, "the prefix leaves the reserve: {} + {} of {}", alloc.used, reminders, budget);
        let cut = |what: &str| alloc.cuts().into_iter().find(|c| c.what == what).map(|c| c.action);
        for rule in &ctx.rules {
            let element = format!("<rule path=\"{}\">\n{}\n</rule>", rule.path, rule.text);
            match cut(&rule.path).as_deref() {
                None => prop_assert!(prefix.contains(&element), "{} whole", rule.path),
                Some("shortened") => {
                    let open = format!("<rule path=\"{}\">\n", rule.path);
                    prop_assert!(prefix.contains(&open) && !prefix.contains(&element), "{} shortened", rule.path);
                }
                Some(_) => {
                    let open = format!("<rule path=\"{}\">", rule.path);
                    prop_assert!(!prefix.contains(&open), "{} left out", rule.path);
                }
            }
        }
        for entry in ctx.skills.iter().flat_map(|l| &l.entries) {
            prop_assert_eq!(prefix.contains(&format!("<skill name=\"{}\"", entry.name)), cut(&entry.name).is_none(), "{}", entry.name);
        }
        for server in &ctx.mcp {
            prop_assert_eq!(prefix.contains(&format!("<mcp_server name=\"{}\"", server.name)), cut(&server.name).is_none(), "{}", server.name);
        }
    }

    #[test]
    fn raising_a_priority_never_lowers_a_share(sizes in sizes(), p in section_policies(), share in 0u32..=100, which in 0usize..7, by in 1i32..4) {
        let ctx = workspace(sizes);
        let need = allocation(&with_budget(ctx.clone(), u32::MAX, SectionPolicies::default())).1.need;
        let budget = need * share / 100;
        let section = SECTIONS[which];
        let before = granted(&allocation(&with_budget(ctx.clone(), budget, policies(&p))).1, section);
        let mut raised = p;
        raised[which].0 += by;
        let after = granted(&allocation(&with_budget(ctx.clone(), budget, policies(&raised))).1, section);
        prop_assert!(after >= before, "{:?}: {} → {}", section, before, after);
    }

    #[test]
    fn more_low_priority_content_leaves_the_rest_byte_for_byte(sizes in sizes(), p in section_policies(), share in 0u32..=100, which in 0usize..6) {
        let ctx = workspace(sizes);
        let need = allocation(&with_budget(ctx.clone(), u32::MAX, SectionPolicies::default())).1.need;
        let budget = need * share / 100;
        let section = Section::ALL[which];
        let mut p = p;
        p[which].0 = -1; // strictly the lowest
        let (before, a) = allocation(&with_budget(ctx.clone(), budget, policies(&p)));
        // A reserve the section does not fill yet is its to fill: the rest holds once it is full.
        let filled = a.sections.iter().find(|s| s.section == section).map_or(p[which].1 == 0, |s| s.need >= s.reserve);
        if !filled {
            return Ok(());
        }
        let mut grown = ctx.clone();
        grow(&mut grown, section);
        let (after, b) = allocation(&with_budget(grown, budget, policies(&p)));
        let others = |x: &HeadAllocation| x.sections.iter().filter(|s| s.section != section).cloned().collect::<Vec<_>>();
        prop_assert_eq!(others(&a), others(&b));
        prop_assert_eq!(without(&before, section), without(&after, section));
        // And every block before it stays a byte-identical prefix.
        let start = |text: &str| text.find(&format!("<{}", match section {
            Section::UserInfo => "user_info", Section::GitStatus => "git_status", Section::Rules => "rules",
            Section::Skills => "available_skills", Section::Mcp => "mcp_servers", Section::Memory => "memory",
            Section::Reminders => unreachable!("not a section of the prefix"),
        })).unwrap_or(text.len());
        let (x, y) = (start(&before), start(&after));
        prop_assert_eq!(&before[..x.min(y)], &after[..x.min(y)]);
    }
}

#[test]
fn a_session_records_what_its_heads_cut_and_every_build_reports_it() {
    use contextview::session::{Command, Reply, Session};
    use contextview::update::Header;
    use serde_json::json;
    let dispatch = |s: &mut Session, value: serde_json::Value| {
        let p = s.dispatch(serde_json::from_value::<Command>(value).unwrap(), Some("2026-12-05T10:00:00Z".into())).unwrap();
        assert!(p.error.is_none(), "{:?}", p.error);
        p
    };
    let mut ctx = workspace(SIZES);
    ctx.model = None;
    let budget = 300;
    ctx.head_budget = Some(HeadBudget { tokens: Some(budget), ..HeadBudget::default() });
    let mut s = Session::create(Header::new("heads"));
    dispatch(&mut s, json!({"type": "switchModel", "provider": "openai-responses", "model": "gpt-5"}));
    dispatch(&mut s, json!({"type": "setPromptContext", "context": ctx}));
    dispatch(&mut s, json!({"type": "userMessage", "text": "Go."}));
    // What the heads cut is in the log with them.
    let log = s.snapshot().unwrap().log;
    let heads: serde_json::Value = log.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).find(|r| r["event"]["kind"] == "prompt_head_snapshot").unwrap();
    let recorded = heads["event"]["cuts"].as_array().unwrap().clone();
    let mut with_model = ctx.clone();
    with_model.model = Some("gpt-5".into());
    let expected = allocation(&with_model).1.cuts();
    assert!(!expected.is_empty());
    assert_eq!(recorded, serde_json::to_value(&expected).unwrap().as_array().unwrap().clone());
    // Each build reports them, from the session and from its log alike.
    let built = dispatch(&mut s, json!({"type": "buildRequest"}));
    let Some(Reply::Built { report, .. }) = built.reply else { panic!("not built") };
    assert_eq!(report.head_cuts, expected);
    let fresh = contextview::request::build_request(&contextview::request::BuildInput {
        log: Some(log),
        ..contextview::request::BuildInput::new(contextview::Provider::OpenAiResponses)
    })
    .unwrap();
    assert_eq!(fresh.built.report.head_cuts, expected);
    // The request opens with the prefix as cut, within the budget.
    let (prefix, alloc) = allocation(&with_model);
    assert!(alloc.used <= budget);
    let body: serde_json::Value = serde_json::from_str(&fresh.built.body).unwrap();
    assert!(body["input"][0]["content"][0]["text"].as_str().unwrap().starts_with(&prefix));
}

fn sourced(path: &str, source: RuleSource, home: bool, lines: usize) -> Rule {
    Rule { source, home, ..rule(path, words(path, lines)) }
}

#[test]
fn rules_leave_by_the_priority_of_their_source() {
    let mut ctx = workspace(Sizes { git: 0, rules: [0, 0, 0], skills: 0, mcp: 0, memory: 0 });
    let home = sourced("/home/me/.claude/CLAUDE.md", RuleSource::ClaudeMd, true, 20);
    let project = sourced("/repo/AGENTS.md", RuleSource::AgentsMd, false, 20);
    let cursor = sourced("/repo/.cursor/rules/style.mdc", RuleSource::CursorRules, false, 20);
    ctx.rules = vec![home.clone(), project.clone(), cursor.clone()];
    let ui = need(&allocation(&with_budget(ctx.clone(), u32::MAX, SectionPolicies::default())).1, Section::UserInfo);
    let whole = |rule: &Rule| format!("<rule path=\"{}\">\n{}\n</rule>", rule.path, rule.text);
    // Room for every rule but the one that leaves first, and a little more (too little for a
    // useful part of it): which one leaves is the priorities' choice.
    let case = |sources: RulePriorities, leaves: &Rule, note: &str| {
        let mut rest = ctx.clone();
        rest.rules.retain(|r| r.path != leaves.path);
        let budget = ui + counted_alone(&rest, Section::Rules) + 40;
        let mut c = with_budget(ctx.clone(), budget, SectionPolicies::default());
        c.head_budget.as_mut().unwrap().rule_sources = sources;
        let (prefix, alloc) = allocation(&c);
        let cuts: Vec<(String, String)> = alloc.cuts().into_iter().map(|c| (c.what, c.action)).collect();
        assert_eq!(cuts, vec![(leaves.path.clone(), "left_out".to_owned())], "{sources:?}");
        for rule in &ctx.rules {
            assert_eq!(prefix.contains(&whole(rule)), rule.path != leaves.path, "{}: {sources:?}", rule.path);
        }
        assert!(prefix.contains(&format!("(1 {note} not loaded for space: {})\n</rules>", leaves.path)), "{prefix}");
    };
    // No priorities: the broadest (the home rule, first) leaves first.
    case(RulePriorities::default(), &home, "broader rules");
    // Cursor's rules first.
    case(RulePriorities { cursor_rules: Some(-5), ..RulePriorities::default() }, &cursor, "rules");
    // The home rule kept over its source's priority; of the rest, the broadest first.
    case(RulePriorities { home: Some(10), claude_md: Some(-10), ..RulePriorities::default() }, &project, "rules");
    // Its source's priority when `home` is not given.
    case(RulePriorities { claude_md: Some(10), agents_md: Some(5), ..RulePriorities::default() }, &cursor, "rules");
}

#[test]
fn rule_priorities_read_from_json_with_their_path() {
    let value = serde_json::json!({"headBudget": {"ruleSources": {"cursor_rules": -5, "home": 10}}});
    let ctx = contextview::diagnostic::from_value::<PromptContext>(value).unwrap();
    assert_eq!(ctx.head_budget.unwrap().rule_sources, RulePriorities { cursor_rules: Some(-5), home: Some(10), ..RulePriorities::default() });
    let value = serde_json::json!({"headBudget": {"ruleSources": {"cursor": 1}}});
    let err = contextview::diagnostic::from_value::<PromptContext>(value).unwrap_err();
    assert!(err.starts_with("headBudget.ruleSources") && err.contains("cursor"), "{err}");
    let value = serde_json::json!({"headBudget": {"ruleSources": {"home": "high"}}});
    let err = contextview::diagnostic::from_value::<PromptContext>(value).unwrap_err();
    assert!(err.starts_with("headBudget.ruleSources.home: "), "{err}");
}

#[test]
fn the_reminders_reserve_is_held_from_the_prefix() {
    let ctx = workspace(SIZES);
    let (_, unbounded) = allocation(&with_budget(ctx.clone(), u32::MAX, SectionPolicies::default()));
    let [ui, rules, memory] = [Section::UserInfo, Section::Rules, Section::Memory].map(|s| need(&unbounded, s));
    let budget = ui + rules + memory + 100;
    let reserve = |n: u32| Some(SectionPolicyOverride { reserve: Some(n), ..Default::default() });
    let policies = SectionPolicies { skills: reserve(60), reminders: reserve(30), ..Default::default() };
    let (_, alloc) = allocation(&with_budget(ctx.clone(), budget, policies));
    // By hand: 60 held for skills, 30 for the reminders (priority 90); user info, rules and
    // memory whole; git status the 10 left (the 40 it had without the reminders' reserve).
    let grants: Vec<(Section, u32, u32)> = alloc.sections.iter().map(|s| (s.section, s.granted, s.used)).map(|(s, g, u)| (s, g, if s == Section::Reminders { u } else { 0 })).collect();
    assert_eq!(
        grants,
        vec![
            (Section::UserInfo, ui, 0),
            (Section::GitStatus, 10, 0),
            (Section::Rules, rules, 0),
            (Section::Skills, 60, 0),
            (Section::Mcp, 0, 0),
            (Section::Memory, memory, 0),
            (Section::Reminders, 30, 0),
        ]
    );
    assert!(alloc.used <= budget - 30);
    // Without a reserve the reminders are not a share of the prefix's allocation.
    let (_, alloc) = allocation(&with_budget(ctx, budget, SectionPolicies::default()));
    assert!(alloc.sections.iter().all(|s| s.section != Section::Reminders));
}

#[test]
fn a_request_s_reminders_take_what_the_prefix_leaves() {
    use contextview::session::{Command, Reply, Session};
    use contextview::update::Header;
    use serde_json::json;
    let dispatch = |s: &mut Session, value: serde_json::Value| {
        let p = s.dispatch(serde_json::from_value::<Command>(value).unwrap(), Some("2026-12-05T10:00:00Z".into())).unwrap();
        assert!(p.error.is_none(), "{:?}", p.error);
        p
    };
    let count = |text: &str| text_tokens(text, Family::OpenAi).ceil() as u32;
    let ctx = workspace(Sizes { git: 5, rules: [0, 10, 0], skills: 0, mcp: 0, memory: 0 });
    let prefix = prompt::render_prefix(&ctx);
    // The prefix whole, and 400 tokens more.
    let budget = count(&prefix) + 400;
    let mut ctx = with_budget(ctx, budget, SectionPolicies::default());
    ctx.model = None;
    let mut s = Session::create(Header::new("reminders"));
    dispatch(&mut s, json!({"type": "switchModel", "provider": "openai-responses", "model": "gpt-5"}));
    dispatch(&mut s, json!({"type": "setPromptContext", "context": ctx}));
    dispatch(&mut s, json!({"type": "userMessage", "text": "Go."}));
    let stop = "Tests fail: fix them before you stop.";
    let diagnostics = (0..300).map(|i| format!("src/a.rs:{i}: unused variable `x{i}`")).collect::<Vec<_>>().join("\n");
    for (kind, text) in [("date", "Today is 2026-12-05."), ("diagnostics", diagnostics.as_str()), ("stop_hook", stop)] {
        dispatch(&mut s, json!({"type": "enqueueReminder", "reminder": {"kind": kind, "text": text}}));
    }
    let built = dispatch(&mut s, json!({"type": "buildRequest"}));
    let Some(Reply::Built { report, body, .. }) = built.reply else { panic!("not built") };
    // What the log holds: the stop hook whole, the diagnostics shortened, within the 400.
    let injected = |s: &mut Session| -> Vec<(String, String)> {
        s.snapshot().unwrap().log.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r["event"]["kind"] == "reminder_injected")
            .map(|r| (r["event"]["reminder"].as_str().unwrap().to_owned(), r["event"]["text"].as_str().unwrap().to_owned()))
            .collect()
    };
    let told = injected(&mut s);
    assert_eq!(told.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), vec!["stop_hook", "diagnostics"]);
    assert_eq!(told[0].1, format!("<system-reminder>\n{stop}\n</system-reminder>"));
    let shortened = &told[1].1;
    assert!(shortened.starts_with("<system-reminder>\nsrc/a.rs:0: unused variable `x0`\nsrc/a.rs:1: "), "{shortened}");
    assert!(shortened.contains("more bytes not shown: over the head budget (headBudget)"));
    assert!(count(&told[0].1) + count(shortened) <= 400, "within what the prefix left");
    assert!(count(shortened) > 300, "most of what was left: {}", count(shortened));
    assert!(body.contains("src/a.rs:0: unused variable") && !body.contains("Today is 2026-12-05."));
    // The report says what was cut and why.
    let cuts: Vec<(&str, &str, &str)> = report.head_cuts.iter().map(|c| (c.section.as_str(), c.what.as_str(), c.action.as_str())).collect();
    assert_eq!(cuts, vec![("reminders", "diagnostics", "shortened"), ("reminders", "date", "deferred")]);
    assert!(report.head_cuts[0].reason.contains(&format!("over the head budget ({budget} tokens)")), "{}", report.head_cuts[0].reason);
    // The date waits for the next request, and is told then.
    let built = dispatch(&mut s, json!({"type": "buildRequest"}));
    let Some(Reply::Built { report, body, .. }) = built.reply else { panic!("not built") };
    assert!(report.head_cuts.is_empty(), "{:?}", report.head_cuts);
    assert!(body.contains("Today is 2026-12-05."));
    assert_eq!(injected(&mut s).len(), 3);
}
