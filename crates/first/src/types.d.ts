// What the first-load module's own results look like in JSON, for TypeScript (the core's types
// are in crates/js/src/types.d.ts; the same rules apply).


/**
 * A built request as the body string to send.
 */
export interface BuildStringResult {
    body: string;
    report: Report;
    diagnostics: Diagnostic[];
}

/**
 * A built request as the body's UTF-8 bytes, which `fetch` and the Workers runtime take as a
 * body without decoding them into a string first.
 */
export interface BuildBytesResult {
    body: Uint8Array<ArrayBuffer>;
    report: Report;
    diagnostics: Diagnostic[];
}

/**
 * A parsed log.
 */
export interface ParsedLog {
    header: Header | null;
    /**
     * Records in their wire form (`{seq, ts, update | event}`).
     */
    records: Value[];
    diagnostics: Diagnostic[];
}

/**
 * The requests the agent sent in a log, in order (see `RequestPoint`).
 */
export interface RequestPoints {
    points: RequestPoint[];
    diagnostics: Diagnostic[];
}
