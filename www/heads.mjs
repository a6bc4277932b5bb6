// A session's log with the workspace's prompt heads put at its start: what the inspector builds
// from when "workspace prompt" is on, as an agent in this workspace would have recorded when
// the session began (a log that records heads of its own later still uses those from there on).
import { LOG_FORMAT } from './load.mjs';

/**
 * `log` with a `prompt_head_snapshot` record (`heads`: the workspace's, `{system,
 * firstUserPrefix, allocation}`) before its first record; `log` itself when `heads` is null or
 * the log has no header to start from.
 */
export function withHeads(log, heads) {
  if (!heads) return log;
  const lines = log.split('\n');
  const headerAt = lines.findIndex((l) => l.trim() !== '');
  let firstRecord = null;
  for (const l of lines.slice(headerAt + 1)) {
    if (l.trim() === '') continue;
    try {
      firstRecord = JSON.parse(l);
    } catch {
      // a bad line: the parser reports it
    }
    break;
  }
  let header;
  try {
    header = JSON.parse(lines[headerAt] ?? '{}');
  } catch {
    return log;
  }
  if (header?.format !== LOG_FORMAT) return log; // a headerless log has nowhere to start from
  const ts = firstRecord?.ts ?? header.createdAt ?? new Date(0).toISOString();
  const cuts = heads.allocation.sections.flatMap((s) => s.cuts ?? []);
  const event = { kind: 'prompt_head_snapshot', system: heads.system, firstUserPrefix: heads.firstUserPrefix, ...(cuts.length ? { cuts } : {}) };
  const record = JSON.stringify({ seq: 0, ts, event });
  return [...lines.slice(0, headerAt + 1), record, ...lines.slice(headerAt + 1)].join('\n');
}
