// The inspector's styles, one copy for the page and the package's <contextview-inspector>
// element (in its shadow root, the `:host` rules apply; on the page, the others).

export const CSS = `:host { display: block; }
.cv-inspector { --fg: #1d232a; --muted: #5b6673; --line: #d8dee4; --bg2: #f6f8fa; --accent: #0b5cad; }
* { box-sizing: border-box; }
.cv-inspector { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); margin: 0 auto; padding: 1rem; max-width: 1500px; }
.dragging > .cv-inspector { outline: 3px dashed var(--accent); outline-offset: -6px; }
:host(.dragging) .cv-inspector { outline: 3px dashed var(--accent); outline-offset: -6px; }
header h1 { font-size: 1.3rem; margin: 0; }
header h1 small { font-weight: 400; color: var(--muted); }
.lede { margin: .2rem 0; color: var(--muted); }
#status { font-weight: 600; margin: .3rem 0; }
[data-state^="error"] > .cv-inspector #status { color: #b00020; }
:host([data-state^="error"]) #status { color: #b00020; }
.inputs { display: flex; flex-wrap: wrap; gap: .75rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; display: flex; flex-wrap: wrap; gap: .5rem .9rem; align-items: center; }
legend { font-weight: 600; }
.hint, .muted { color: var(--muted); }
main { display: grid; grid-template-columns: minmax(300px, 1fr) minmax(0, 2fr); gap: 1rem 1.5rem; margin-top: 1rem; }
#request-panel, #timeline-panel { grid-column: 2; }
#workspace-panel { grid-row: 1 / span 2; }
#session-panel { grid-column: 1; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } #request-panel, #timeline-panel, #session-panel, #workspace-panel { grid-column: 1; grid-row: auto; } }
section { min-width: 0; }
h2 { font-size: 1.1rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: .95rem; margin: 1rem 0 .4rem; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: .15rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.shadowed td { color: var(--muted); text-decoration: line-through; }
.plain { list-style: none; padding: 0; margin: 0; }
.plain li { padding: .1rem 0; }
.figures { display: flex; flex-wrap: wrap; gap: .4rem 1.4rem; }
.figure b { display: block; font-size: 1.15rem; font-variant-numeric: tabular-nums; }
.figure span { color: var(--muted); font-size: 12px; }
dl.grid { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; margin: 0; }
dl.grid dt { color: var(--muted); }
dl.grid dd { margin: 0; }
.bar { display: flex; height: 28px; border-radius: 4px; overflow: hidden; background: var(--bg2); }
.bar > div { min-width: 1px; }
.swatch { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin-right: .35em; vertical-align: -1px; }
.gauge { position: relative; height: 22px; background: var(--bg2); border-radius: 4px; overflow: hidden; }
.gauge .used { position: absolute; inset: 0 auto 0 0; background: #4c8bd6; }
.gauge .used.over-prune { background: #d69a2d; }
.gauge .used.over-compact { background: #c0392b; }
.gauge .mark { position: absolute; top: 0; bottom: 0; width: 2px; background: #222; }
.gauge .mark::after { content: attr(data-label); position: absolute; top: 2px; left: 4px; font-size: 11px; white-space: nowrap; }
canvas#timeline-chart { width: 100%; height: 140px; border: 1px solid var(--line); border-radius: 4px; display: block; }
.slider { display: flex; align-items: center; gap: .6rem; margin: .5rem 0; }
.slider input { flex: 1; }
.row { display: flex; gap: .5rem; margin-bottom: .4rem; }
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
