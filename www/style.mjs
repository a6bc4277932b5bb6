// The inspector's styles, one copy for the page and the package's <contextview-inspector>
// element (in its shadow root, the `:host` rules apply; on the page, the others).

export const CSS = `:host { display: block; }
.cv-inspector { --fg: #1d232a; --muted: #5b6673; --line: #d8dee4; --bg2: #f6f8fa; --accent: #0b5cad; }
* { box-sizing: border-box; }
.cv-inspector { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); margin: 0 auto; padding: 1rem; max-width: 1500px; }
.dragging > .cv-inspector { outline: 3px dashed var(--accent); outline-offset: -6px; }
:host(.dragging) .cv-inspector { outline: 3px dashed var(--accent); outline-offset: -6px; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: .2rem 1rem; }
header h1 { font-size: 1.3rem; margin: 0; }
header #alert { flex-basis: 100%; }
header h1 small { font-weight: 400; color: var(--muted); }
.lede { margin: 0; color: var(--muted); font-size: 13px; }
#status { font-weight: 600; margin: .2rem 0; flex-basis: 100%; }
[data-state^="error"] > .cv-inspector #status { color: #b00020; }
:host([data-state^="error"]) #status { color: #b00020; }
.inputs { display: flex; flex-wrap: wrap; gap: .5rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; display: flex; flex-wrap: wrap; gap: .3rem .8rem; align-items: center; min-width: 0; max-width: 100%; padding: .3rem .6rem; margin: 0; }
label.file { position: relative; display: inline-block; padding: .1rem .55rem; border: 1px solid #aab4bf; border-radius: 4px; background: #f3f5f7; cursor: pointer; }
label.file:hover { background: #e8ecf0; }
label.file:focus-within { outline: 2px solid var(--accent); outline-offset: 1px; }
label.file[aria-disabled="true"] { opacity: .5; cursor: default; }
label.file input { position: absolute; inset: 0; width: 100%; height: 100%; opacity: 0; cursor: inherit; font-size: 0; }
#window { width: 6.5rem; }
#model { width: 9rem; }
#alert { margin: .3rem 0; padding: .4rem .6rem; border-radius: 4px; background: #fdecea; color: #7a1b12; border: 1px solid #f0b8b0; font-weight: 600; }
#alert.warn { background: #fff6e0; color: #6b4a00; border-color: #ecd28f; }
legend { font-weight: 600; }
.hint, .muted { color: var(--muted); }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem 1.5rem; }
@media (max-width: 1100px) { main { grid-template-columns: minmax(0, 1fr); } }
section, main > *, .pair > * { min-width: 0; }
#overview { margin-top: .6rem; }
#overview h2 { margin: 0 0 .2rem; }
.badge { font-size: .75rem; font-weight: 600; padding: .05rem .4rem; border-radius: 999px; background: #e6f0fb; color: var(--accent); vertical-align: 2px; }
.badge.whatif { background: #fff1dc; color: #8a4b00; }
#session-summary, #session-cost { margin: .1rem 0; }
.totals { font-variant-numeric: tabular-nums; }
.legend { display: flex; flex-wrap: wrap; gap: .1rem .8rem; font-size: 12px; color: var(--muted); margin: .2rem 0; }
.chart-box { position: relative; }
.readout { position: absolute; top: 4px; max-width: 320px; background: rgba(29,35,42,.92); color: #fff; font-size: 12px; padding: .2rem .45rem; border-radius: 4px; pointer-events: none; }
#crumbs { font-size: 13px; margin-bottom: .2rem; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 1.2rem; }
@media (max-width: 700px) { .pair { grid-template-columns: minmax(0, 1fr); } }
.note { background: var(--bg2); border-left: 3px solid var(--accent); padding: .3rem .6rem; margin: .4rem 0; }
.notes li { font-size: 13px; }
.notes li b { font-variant-numeric: tabular-nums; }
#workspace-panel { margin-top: 1rem; border-top: 1px solid var(--line); }
#workspace-panel > summary { cursor: pointer; padding: .4rem 0; }
#workspace-panel > summary h2 { display: inline; border: 0; }
.subagents > li { border-bottom: 1px solid var(--line); padding: .15rem 0; }
.subagent-line { display: flex; gap: .5rem; align-items: flex-start; min-width: 0; }
.subagent-line > details { flex: 1; min-width: 0; }
.subagent-line summary { display: flex; gap: .4rem; align-items: baseline; cursor: pointer; min-width: 0; }
.subagent-line summary .task { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.subagent-line summary .num { white-space: nowrap; color: var(--muted); font-variant-numeric: tabular-nums; }
.subagent-line .at { white-space: nowrap; }
.status { font-size: 11px; padding: 0 .3rem; border-radius: 3px; background: #e3f3e9; color: #1c6b3a; }
.status.running { background: #e6f0fb; color: var(--accent); }
.status.failed { background: #fdecea; color: #7a1b12; }
.task-full { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16em; overflow: auto; margin: .3rem 0; font-size: 13px; }
section { min-width: 0; }
td, dd, li, p { overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: .95rem; margin: 1rem 0 .4rem; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: .15rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.shadowed td { color: var(--muted); text-decoration: line-through; }
.plain { list-style: none; padding: 0; margin: 0; }
.plain li { padding: .1rem 0; }
.figures { display: flex; flex-wrap: wrap; gap: .3rem 1.1rem; }
#request-title { font-size: .8rem; font-weight: 400; }
#request-panel h2, #session-panel h2 { margin-top: .4rem; }
.figure b { display: block; font-size: 1.15rem; font-variant-numeric: tabular-nums; }
.figure span { color: var(--muted); font-size: 12px; }
dl.grid { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; margin: 0; }
dl.grid dt { color: var(--muted); }
dl.grid dd { margin: 0; }
.bar { display: flex; height: 28px; border-radius: 4px; overflow: hidden; background: var(--bg2); }
.bar > div { min-width: 1px; }
.swatch.shared { background: linear-gradient(#1d232a 0 2px, #c9885f 2px); }
.swatch { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin-right: .35em; vertical-align: -1px; }
.gauge { position: relative; height: 22px; background: var(--bg2); border-radius: 4px; overflow: hidden; }
.gauge .before { position: absolute; inset: 0 auto 0 0; background: repeating-linear-gradient(135deg, #f2d49b 0 4px, #f8e8c6 4px 8px); }
.gauge .used { position: absolute; inset: 0 auto 0 0; background: #4c8bd6; }
.gauge .used.over-prune { background: #d69a2d; }
.gauge .used.over-compact { background: #c0392b; }
.gauge .mark { position: absolute; top: 0; bottom: 0; width: 2px; background: #222; }
.gauge .mark::after { content: attr(data-label); position: absolute; top: 2px; left: 4px; font-size: 11px; white-space: nowrap; }
canvas#timeline-chart { width: 100%; height: 160px; border: 1px solid var(--line); border-radius: 4px; display: block; cursor: pointer; }
.slider { display: flex; align-items: center; gap: .6rem; margin: .5rem 0; }
.slider input { flex: 1; }
.row { display: flex; gap: .5rem; margin-bottom: .4rem; }
.row.wrap { flex-wrap: wrap; align-items: center; }
.json { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--bg2); border-radius: 4px; padding: .4rem .6rem; max-height: 70vh; overflow: auto; }
.json:empty { display: none; }
.json details { margin-left: 1.1em; }
.json details > summary { margin-left: -1.1em; cursor: pointer; list-style-position: outside; }
.json .leaf { margin-left: 1.1em; white-space: pre-wrap; word-break: break-word; }
.json .k { color: #7a3e9d; }
.json .s { color: #0a6b2d; }
.json .n { color: #a14f00; }
.json .hint { font-style: italic; }
.json button.more { margin: .2rem 0 .2rem 1.1em; }
#diff li.added::before { content: "+ "; color: #0a6b2d; font-weight: 700; }
#diff li.removed::before { content: "− "; color: #b00020; font-weight: 700; }
#diff li.changed::before { content: "~ "; color: #a14f00; font-weight: 700; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
label.inline input { font-size: .85rem; width: 7em; }
tr.selected td { font-weight: 600; }
`;
