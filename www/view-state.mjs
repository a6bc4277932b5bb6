// What the inspector shows, as data: the host's `data-view` (JSON) and its `view`, so a host or
// a test reads the figures a person sees, from the same objects the panels are drawn from.

/** A session's totals over the walk's requests (`figuresOf` each, walk.mjs). */
export function totalsOf(requests) {
  return {
    cacheRead: requests.reduce((n, r) => n + r.cacheRead, 0),
    cost: requests.reduce((n, r) => n + r.inputDollars, 0),
    tokens: requests.reduce((n, r) => n + r.tokens, 0),
    requests: requests.length,
  };
}

/**
 * The view of an inspector's state (`state`: its session, timeline, selection, the selected
 * request's report and the walk's figures; `walk`: the host's `data-walk`): the session, the
 * mode, the selected request's figures and the session's totals (whole when `walk` is `done`).
 */
export function viewOf(state, walk) {
  const t = state.timeline;
  const r = state.report;
  return {
    session: state.session?.name ?? null,
    depth: Math.max(state.stack.length - 1, 0),
    provider: r?.provider ?? null,
    model: r?.model ?? null,
    asRecorded: state.asRecorded,
    selected: t && t.length ? state.index : null,
    requests: t?.length ?? 0,
    walk: walk ?? null,
    figures: r ? { tokens: r.tokens.request, context: r.tokens.context.used, cacheRead: r.forecast?.cacheRead ?? 0, cost: r.forecast?.inputDollars ?? 0, bytes: r.bytes } : null,
    totals: totalsOf(state.requests),
    pruning: r ? { cleared: r.pruning.cleared, trimmed: r.pruning.trimmed } : null,
    reading: state.session?.reading ?? null,
    subagents: state.links.length,
    following: state.following?.name ?? null,
  };
}
