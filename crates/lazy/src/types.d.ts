// What the lazy module's own results, and discovery's and the importers' types, look like in
// JSON, for TypeScript (the core's types are in crates/js/src/types.d.ts; the same rules apply).


/**
 * One OpenCode session's files from its storage folder (OpenCode up to 1.1), their texts in any
 * order (`importOpenCodeStorage`).
 */
export interface OpenCodeStorage {
    /**
     * `session/<project>/<session id>.json`.
     */
    session: string;
    /**
     * Each of `message/<session id>/*.json`.
     */
    messages: string[];
    /**
     * Each of `part/<message id>/*.json`, for each of those messages.
     */
    parts: string[];
}

/**
 * A session imported with its subagents' own files (`importTree`).
 */
export interface ImportTreeResult {
    parent: ImportResult;
    /**
     * Each child file given, in order: its log's header names the parent's session and the
     * call it answered when the parent links it.
     */
    children: ImportResult[];
    /**
     * Sessions of subagents the parent links to a call whose files were not given.
     */
    missing: string[];
    /**
     * Child files the parent does not link to any call, by session id.
     */
    unlinked: string[];
}

/**
 * What a followed file's growth adds to its log (`IncrementalImport.push`, `.replace`,
 * `.settle`).
 */
export interface ImportAppended {
    /**
     * JSON Lines to append to the log: the header first, the first time there is anything.
     */
    log: string;
    /**
     * Records in `log`.
     */
    records: number;
    /**
     * A settled record changed (a rewrite, a rewind in the file): `log` starts with a `rewind`.
     */
    rewound: boolean;
    /**
     * JSON Lines after the log that the file may still change (its last model turn and what
     * follows it): shown with the log (`log + pending`), not stored; each push's replaces the
     * last push's, and `settle()` appends them.
     */
    pending: string;
}

/**
 * An imported session: our log as JSON Lines text, and what the import kept and left out.
 */
export interface ImportResult {
    log: string;
    report: ImportReport;
}

/**
 * A directory entry as the host lists it.
 */
export interface DirEntry {
    name: string;
    kind: EntryKind;
    /**
     * A symlink's target as written (relative to the directory, or absolute).
     */
    target?: string;
    size?: number;
}

/**
 * A skill's body, read on demand.
 */
export interface LoadedSkill {
    name: string;
    path: string;
    body: string;
    frontmatter: Record<string, Value>;
    diagnostics: Diagnostic[];
}

/**
 * A source element our view does not hold.
 */
export interface Missing {
    kind: ElementKind;
    /**
     * The line of the source file it came from.
     */
    line: number;
    /**
     * Its id in the source (a tool call id, an entry id), when it has one.
     */
    id?: string;
    /**
     * The start of its text, to recognise it by.
     */
    excerpt?: string;
}

/**
 * Counts of each kind, on one side.
 */
export interface Counts {
    /**
     * Real user prompts (not harness messages, summaries or tool results).
     */
    prompts: number;
    /**
     * Assistant text runs that are not only whitespace.
     */
    assistantTexts: number;
    reasoning: number;
    /**
     * Tool calls that have a result.
     */
    toolCalls: number;
    images: number;
}

/**
 * Discovery options (camelCase in JSON).
 */
export interface DiscoveryOptions {
    /**
     * Absolute, `/`-separated.
     */
    cwd: string;
    home?: string | null;
    /**
     * Names whose presence (as a directory or a file) marks a repository root.
     */
    rootMarkers?: string[];
    conventions?: Conventions;
    outsideRepo?: OutsideRepo;
    ignore?: IgnoreOptions;
    limits?: DiscoveryLimits;
    skills?: SkillOptions;
}

/**
 * File content: bytes (preferred: invalid UTF-8 can be reported) or text.
 */
export type FileContent = string | Uint8Array;

/**
 * One read the engine needs.
 */
export interface HostRequest {
    id: number;
    op: Op;
    path: string;
    /**
     * readFile: the most bytes wanted (a host that can should read no more than this + 1).
     */
    maxBytes?: number;
}

/**
 * Session formats we import.
 */
export type Format = "claude-code" | "codex" | "pi" | "gemini-cli" | "copilot-cli" | "aider" | "cline" | "roo-code" | "kilo-code" | "opencode";

/**
 * Sizes and depths (bytes are UTF-8 bytes).
 */
export interface DiscoveryLimits {
    /**
     * One rule file; beyond it the text is cut with a visible marker and a diagnostic.
     */
    ruleFileBytes?: number;
    /**
     * All always-loaded rules together; the least specific give way first.
     */
    ruleTotalBytes?: number;
    /**
     * The skills listing in the prompt.
     */
    skillListingBytes?: number;
    /**
     * One skill's description in the listing.
     */
    skillEntryBytes?: number;
    /**
     * How deep rule directories and skill roots are walked.
     */
    walkDepth?: number;
    /**
     * Any file read whole (a skill body).
     */
    maxFileBytes?: number;
    /**
     * How much of a SKILL.md is read to find its frontmatter.
     */
    frontmatterBytes?: number;
    /**
     * `@path` import hops (Claude Code allows 4).
     */
    importHops?: number;
}

/**
 * The host's answer to one request (exactly one of the optional fields is set).
 */
export interface HostAnswer {
    id: number;
    entries?: DirEntry[];
    content?: FileContent;
    /**
     * Full size of the file in bytes, when known.
     */
    size?: number;
    notFound?: boolean;
    error?: string;
}

/**
 * What a refresh changed.
 */
export interface Changes {
    rules: Delta<Rule>;
    skills: Delta<Skill>;
    environment: Environment | null;
}

/**
 * What an import kept, what it could not map, and what was wrong with the input.
 */
export interface ImportReport {
    format: Format | null;
    /**
     * Input lines read (blank lines not counted).
     */
    lines: number;
    records: number;
    /**
     * Records written per kind (`user_message_chunk`, `tool_call`, `usage_anchor`, …).
     */
    written: Record<string, number>;
    /**
     * Input entries our layers cannot hold, per kind; kept out of the log, never silently.
     */
    unmapped: Record<string, number>;
    /**
     * Whose view the session is: `primary`, or `subagent` for a subagent's own transcript.
     */
    audience?: string;
    /**
     * The source agent's own heads (system prompt, tools, framing) its usage counted, as
     * estimated from its anchors: the ledger counts this package's heads in their place (see
     * `calibrate`). Absent when the file reports no usage.
     */
    headTokens?: number;
    /**
     * What the source agent's model saw at the end of the file against what our view holds,
     * and every element of it our view lacks (see [`fidelity`]).
     */
    fidelity?: Fidelity;
    /**
     * The sessions of the subagents that answered this session's calls (Claude Code's
     * `agent-<id>.jsonl` files beside it): the log links each to its call; their own
     * conversations are in their files, imported on their own.
     */
    subagents?: string[];
    /**
     * A subagent's session read from the progress entries its parent's file carries (its file
     * was not given): its report is in the parent's result, not in this log.
     */
    fromProgress?: boolean;
    diagnostics: Diagnostic[];
}

/**
 * What is scanned when cwd is not inside a repository.
 */
export type OutsideRepo = "cwd" | "ancestors";

/**
 * What kind of content an element is.
 */
export type ElementKind = "prompt" | "assistant_text" | "reasoning" | "tool_call" | "image";

/**
 * What the source agent's model saw against what our view holds.
 */
export interface Fidelity {
    source: Counts;
    view: Counts;
    missing: Missing[];
}

/**
 * Which conventions are read (all on by default).
 */
export interface Conventions {
    /**
     * `.grok/rules`, `~/.grok/rules`, `.grok/skills`.
     */
    grok?: boolean;
    /**
     * `CLAUDE.md`, `CLAUDE.local.md`, `.claude/CLAUDE.md`, `.claude/rules`, `@path` imports, `.claude/skills`.
     */
    claude?: boolean;
    /**
     * `.mdc` rule files anywhere under `.cursor/rules`, `.cursorrules`, `.cursor/skills`.
     */
    cursor?: boolean;
    /**
     * `AGENTS.md`, `Agents.md`, `AGENT.md`, `.agents/skills`.
     */
    agents?: boolean;
    /**
     * `AGENTS.override.md`, `~/.codex/AGENTS.md`, `.codex/skills`.
     */
    codex?: boolean;
}

export interface BundledSkill {
    name: string;
    description: string;
    body?: string;
}

export interface Delta<T> {
    added: T[];
    /**
     * Paths (rules) or names (skills) that are gone.
     */
    removed: string[];
    edited: T[];
}

export interface IgnoreOptions {
    /**
     * Honour `.gitignore` in rule directories: the files of the directories from the repository
     * root to cwd (nested ones inside rule directories are not read yet).
     */
    gitignore?: boolean;
    /**
     * Path prefixes (absolute, or relative to the repository root) never looked into.
     */
    paths?: string[];
}

export interface Plugin {
    name: string;
    root: string;
}

export interface SkillOptions {
    /**
     * Extra skill roots from configuration (absolute).
     */
    paths?: string[];
    /**
     * Skill names never offered.
     */
    disabled?: string[];
    /**
     * Skills the host ships with its agent.
     */
    bundled?: BundledSkill[];
    /**
     * Plugin roots: each holds `skills/<name>/SKILL.md`.
     */
    plugins?: Plugin[];
}

export type EntryKind = "file" | "dir" | "symlink" | "other";

export type Op = "readDir" | "readFile";
