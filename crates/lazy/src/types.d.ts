// What the lazy module's own results look like in JSON, for TypeScript (the core's types are in
// crates/js/src/types.d.ts; the same rules apply).


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
 * An imported session: our log as JSON Lines text, and what the import kept and left out.
 */
export interface ImportResult {
    log: string;
    report: ImportReport;
}
