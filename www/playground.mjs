// Playground: builds the request for examples/session.jsonl with the browser entry of pkg/.
// For tests: document.body.dataset.status is "ok" or "error: …" after each build, and
// window.__contextviewResult holds a summary of the last one.
import * as cv from '../pkg/browser.mjs';

const $ = (id) => document.getElementById(id);
const select = $('provider');

function setStatus(status) {
  document.body.dataset.status = status;
  $('status').textContent = status;
}

function summarize(provider, payload, report) {
  const list = payload.messages ?? payload.input ?? payload.contents ?? [];
  return {
    version: cv.version(),
    provider,
    keys: Object.keys(payload),
    entries: list.length,
    roles: list.map((m) => m.role ?? m.type ?? null),
    tools: Array.isArray(payload.tools) ? payload.tools.length : 0,
    report: {
      provider: report.provider,
      items: report.items,
      bytes: report.bytes,
      repairs: (report.repairs ?? []).map((r) => ({ kind: r.kind, callId: r.callId })),
    },
    // Spec-level check done in wasm, so the test does not have to trust the summary alone.
    violations: cv.validatePayload(provider, payload),
    payload,
  };
}

let log;

async function render() {
  const provider = select.value;
  setStatus('building ' + provider);
  try {
    const { payload, report } = cv.buildRequest({ log, provider });
    $('payload').textContent = JSON.stringify(payload, null, 2);
    $('report').textContent = JSON.stringify(report, null, 2);
    window.__contextviewResult = summarize(provider, payload, report);
    setStatus('ok');
  } catch (e) {
    window.__contextviewResult = { provider, error: { code: e?.code, message: String(e?.message ?? e) } };
    setStatus(`error: ${e?.code ? e.code + ': ' : ''}${e?.message ?? e}`);
  }
}

async function start() {
  try {
    await cv.init();
    const res = await fetch(new URL('../examples/session.jsonl', import.meta.url));
    if (!res.ok) throw new Error(`fetch examples/session.jsonl: HTTP ${res.status}`);
    log = await res.text();
  } catch (e) {
    setStatus(`error: ${e?.message ?? e}`);
    return;
  }
  select.addEventListener('change', render);
  await render();
}

start();
