// Load on the session service (examples/worker), run by `make bench` after `make build`: the
// service as wrangler bundles it, in workerd through Miniflare on this machine. Two runs:
//   - many sessions in parallel: SESSIONS sessions × COMMANDS commands each (rounds of a prompt,
//     a tool call, its result and a build), CONCURRENCY sessions in flight at a time, every
//     command with an idempotency key;
//   - many clients on one session: CLIENTS clients each sending PER_CLIENT commands at once.
// Each prints throughput (commands/s) and latency percentiles (ms, from dispatch to the whole
// reply read), beside the floor measured in the same process: a request the Worker refuses
// before any Durable Object (no token), the cost of a round trip through workerd itself.
import { performance } from 'node:perf_hooks';

import { mintToken } from '../examples/worker/src/auth.mjs';
import { SECRET, bundleService, startService } from '../tests/workerd/service-host.mjs';

const SESSIONS = Number(process.env.SESSIONS ?? 200);
const COMMANDS = Number(process.env.COMMANDS ?? 50);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 20);
const CLIENTS = Number(process.env.CLIENTS ?? 20);
const PER_CLIENT = Number(process.env.PER_CLIENT ?? 25);

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** A session's n-th command: a model switch, then rounds of prompt, tool call, result, build. */
function commandAt(n) {
  if (n === 0) return { path: 'commands', body: { type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 } };
  switch (n % 4) {
    case 1: return { path: 'commands', body: { type: 'userMessage', text: `Step ${n}: look at file ${n}.` } };
    case 2: return { path: 'commands', body: { type: 'assistantResponse', text: `Reading ${n}.`, toolCalls: [{ id: `c${n}`, name: 'read', input: { path: `src/f${n}.rs` } }], usage: { inputTokens: 1000 + n * 40, outputTokens: 20 } } };
    case 3: return { path: 'commands', body: { type: 'toolResult', toolCallId: `c${n - 1}`, output: `fn f${n}() {}\n`.repeat(20) } };
    default: return { path: 'build', body: { provider: 'anthropic', model: 'claude-sonnet-4-5' } };
  }
}

const bundle = bundleService();
const mf = await startService(bundle.dir);
const token = await mintToken(SECRET, { prefix: 'load-' });
const auth = { authorization: `Bearer ${token}` };

async function timed(method, path, body, headers = auth) {
  const t0 = performance.now();
  const res = await mf.dispatchFetch(`http://service${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (process.env.VERBOSE && res.status !== 200) console.log(res.status, path, text.slice(0, 300));
  const ms = performance.now() - t0;
  return { ms, status: res.status };
}

function report(name, latencies, seconds, errors, floor) {
  const p50 = pct(latencies, 50);
  console.log(`| ${name} | ${latencies.length} | ${(latencies.length / seconds).toFixed(0)} | ${p50.toFixed(1)} | ${pct(latencies, 95).toFixed(1)} | ${pct(latencies, 99).toFixed(1)} | ${(p50 / floor).toFixed(1)}× | ${errors} |`);
}

try {
  // The floor: a refusal by the Worker before any Durable Object.
  const floorRuns = [];
  for (let i = 0; i < 300; i++) floorRuns.push((await timed('GET', '/v1/sessions/load-x/log', undefined, {})).ms);
  const floor = pct(floorRuns, 50);
  console.log(`session service in workerd (Miniflare), floor: a refused request's round trip, median ${floor.toFixed(2)} ms`);
  console.log('| run | commands | commands/s | p50 ms | p95 ms | p99 ms | p50 / floor | errors |');
  console.log('|---|---|---|---|---|---|---|---|');

  // One client, one session, one command at a time: the cost of a command without queueing.
  {
    const id = 'load-alone';
    await timed('PUT', `/v1/sessions/${id}`);
    const latencies = [];
    let errors = 0;
    const t0 = performance.now();
    for (let n = 0; n < 200; n++) {
      const { path, body } = commandAt(n);
      const r = await timed('POST', `/v1/sessions/${id}/${path}`, body, { ...auth, 'idempotency-key': `${id}-${n}` });
      latencies.push(r.ms);
      if (r.status !== 200) errors++;
    }
    report('1 client, 1 session, 200 commands in turn', latencies, (performance.now() - t0) / 1000, errors, floor);
  }

  // Many sessions in parallel.
  {
    const latencies = [];
    const failures = new Map();
    let errors = 0;
    let next = 0;
    const t0 = performance.now();
    const worker = async () => {
      for (;;) {
        const s = next++;
        if (s >= SESSIONS) return;
        const id = `load-s${s}`;
        await timed('PUT', `/v1/sessions/${id}`);
        for (let n = 0; n < COMMANDS; n++) {
          const { path, body } = commandAt(n);
          const r = await timed('POST', `/v1/sessions/${id}/${path}`, body, { ...auth, 'idempotency-key': `${id}-${n}` });
          latencies.push(r.ms);
          if (r.status !== 200) {
            errors++;
            failures.set(`${path} ${body.type ?? ''} ${r.status}`, (failures.get(`${path} ${body.type ?? ''} ${r.status}`) ?? 0) + 1);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    report(`${SESSIONS} sessions × ${COMMANDS} commands, ${CONCURRENCY} in flight`, latencies, (performance.now() - t0) / 1000, errors, floor);
    if (failures.size) console.log('failures:', JSON.stringify([...failures]));
  }

  // Many clients on one session.
  {
    const id = 'load-shared';
    await timed('PUT', `/v1/sessions/${id}`);
    await timed('POST', `/v1/sessions/${id}/commands`, commandAt(0).body);
    const latencies = [];
    let errors = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; i < PER_CLIENT; i++) {
        const r = await timed('POST', `/v1/sessions/${id}/commands`, { type: 'userMessage', text: `client ${c} message ${i}` }, { ...auth, 'idempotency-key': `c${c}-${i}` });
        latencies.push(r.ms);
        if (r.status !== 200) errors++;
      }
    }));
    report(`${CLIENTS} clients × ${PER_CLIENT} commands on one session`, latencies, (performance.now() - t0) / 1000, errors, floor);
  }
} finally {
  await mf.dispose();
  bundle.cleanup();
}
