// The whole timeline walked in slices of about 30 ms, so the page stays responsive while every
// request's figures come in: one walk (`Timeline.walk`) per option set, each request's figures
// the ones its panel shows (the timeline keeps the walk's reports).

/** What the chart and the totals keep of a request's report. */
export function figuresOf(report) {
  return {
    bytes: report.bytes,
    tokens: report.tokens.request,
    sources: report.sources,
    shared: report.prefix?.sharedBytes ?? 0,
    cacheRead: report.forecast?.cacheRead ?? 0,
    inputDollars: report.forecast?.inputDollars ?? 0,
  };
}

/**
 * Walks `timeline` under `options`, handing each slice's figures to `onSlice(figures)` and, at
 * the end, `onDone()`; a build that throws ends it with `onError(e)`. Returns `stop()`, after
 * which nothing more is handed.
 */
export function walkInSlices(timeline, options, { onSlice, onDone, onError }) {
  let stopped = false;
  const walk = timeline.walk(options);
  const slice = () => {
    if (stopped) return;
    const until = performance.now() + 30;
    const figures = [];
    try {
      for (;;) {
        const { value, done } = walk.next();
        if (done) {
          onSlice(figures);
          onDone();
          return;
        }
        figures.push(figuresOf(value.report));
        if (performance.now() > until) break;
      }
    } catch (e) {
      onError(e);
      return;
    }
    onSlice(figures);
    setTimeout(slice, 0);
  };
  setTimeout(slice, 0);
  return () => {
    stopped = true;
  };
}
