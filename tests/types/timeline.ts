// The request timeline and the inspector's inputs, with precise types.
import { Timeline, fileListFs, discover, requestPoints, type RequestPoint, type Report, type TimelineRequest } from 'contextview';

declare const log: string;
declare const picked: FileList;

const timeline = new Timeline(log);
const first: RequestPoint | undefined = timeline.points[0];
const next: boolean | undefined = first?.next;
const text: string = timeline.logAt(0);
const built = timeline.buildAt(timeline.length - 1, { provider: 'anthropic', contextWindow: 200_000 });
const previous: string | null = built.previous;
const shared: number | undefined = built.report.prefix?.sharedBytes;
for (const step of timeline.walk({ provider: 'gemini' })) {
  const r: Report = step.report;
  const s: TimelineRequest = step;
  void r, s;
}
const points: RequestPoint[] = requestPoints(log).points;
// As recorded: each request at the provider and model its log names.
const recorded = timeline.buildAt(0, { asRecorded: true, contextWindow: 60_000 });
const went: 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini' | undefined = timeline.points[0]?.provider;
const model: string | undefined = timeline.points[0]?.model;
const sent = timeline.optionsAt(0, { asRecorded: true });
timeline.free();

async function inspect() {
  const ws = await discover({ cwd: '/proj' }, fileListFs(picked));
  const looked = await ws.rulesMatching('/proj/src/app.ts');
  const attached = await ws.rulesForPath('/proj/src/app.ts');
  ws.free();
  return [looked, attached, fileListFs([{ path: 'proj/AGENTS.md', file: new Blob(['x']) }], { mount: '/' })];
}

// @ts-expect-error: buildAt needs build options
timeline.buildAt(0);
// @ts-expect-error: asRecorded is true or false
timeline.walk({ asRecorded: 'yes' });
// @ts-expect-error: a Timeline is made from the log's text
new Timeline(42);

void [next, text, previous, shared, points, inspect, recorded, went, model, sent];
