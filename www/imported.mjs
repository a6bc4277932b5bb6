// What an import of another agent's file kept and lost, as the session panel lists it: its
// format, lines and records, what was not mapped, the agent's own heads its file does not hold,
// and what the source agent's model saw at the file's end against what our view holds.
import { el, fmt } from './views.mjs';

/** Fills `dl` from an import's report (`null` for our own log: nothing to say). */
export function renderImportReport(dl, report) {
  dl.replaceChildren();
  if (!report) return;
  const add = (k, v, key, title) => dl.append(el('dt', { text: k, title }), el('dd', { text: v, 'data-key': key }));
  add('format', report.format, 'format');
  add('lines read → records', `${fmt(report.lines)} → ${fmt(report.records)}`, 'records');
  add('written', Object.entries(report.written).map(([k, v]) => `${k} ${v}`).join(', '), 'written');
  add('not mapped', Object.entries(report.unmapped).map(([k, v]) => `${k} ${v}`).join(', ') || 'nothing', 'unmapped');
  if (report.audience) add('audience', report.audience, 'audience');
  if (report.headTokens) add("the agent's own heads", `about ${fmt(report.headTokens)} tokens of system prompt and tools per request, by its usage; its file does not hold them`, 'head-tokens');
  const f = report.fidelity;
  if (f) {
    const c = (x) => `${x.prompts} prompts, ${x.assistantTexts} texts, ${x.reasoning} reasoning, ${x.toolCalls} tool calls, ${x.images} images`;
    add("at the file's end, the model saw", c(f.source), 'fidelity-source', "what the source agent's model held at the end of the file (after its own compactions), not over the whole session");
    add('our view holds', c(f.view), 'fidelity-view');
    add('missing', String(f.missing?.length ?? 0), 'fidelity-missing');
  }
}
