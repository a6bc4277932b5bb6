// The timeline chart: a column per request the session sent, stacked by where its bytes went,
// with the prefix it shares with the request before it shaded (what a provider's cache can
// serve), a bytes axis, a legend, the selected column outlined, a hover readout, and selection
// by click and by keys. Plain canvas; it knows the figures it is given, not the library.
import { SOURCES, el, fmt, dollars } from './views.mjs';

const AXIS = 52; // px left of the columns for the bytes axis
const SHARED = 'rgba(255, 255, 255, 0.55)'; // laid over the shared part: faded
const EDGE = '#1d232a'; // the shared part's top edge
const FRAMING = '#e3e7eb';

/** Rounds `n` up to a tidy axis maximum (1, 2 or 5 times a power of ten). */
function niceMax(n) {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * p).find((m) => m >= n);
}

function shortBytes(n) {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}

/** The legend: a swatch per source, framing and the shared prefix. */
export function chartLegend(box) {
  box.replaceChildren(
    ...SOURCES.map(([key, label, color]) => el('span', { 'data-source': key }, el('span', { class: 'swatch', style: `background: ${color}` }), label)),
    el('span', {}, el('span', { class: 'swatch', style: `background: ${FRAMING}` }), 'JSON framing'),
    el('span', { 'data-source': 'shared' }, el('span', { class: 'swatch shared' }), 'faded below the line: shared with the request before (the prefix a cache can serve)'),
  );
}

/**
 * A chart over `canvas` that selects with `onSelect(index)`: a click on a column, or the arrow,
 * Home, End, PageUp and PageDown keys while it has focus; `readout` shows the hovered column's
 * figures. `draw(requests, selected)` redraws it (each request: `{bytes, sources, shared,
 * tokens, cacheRead, inputDollars}`; `count`: how many columns the timeline will have).
 */
export function timelineChart(canvas, readout, onSelect) {
  let requests = [];
  let count = 0;
  let selected = -1;

  const geometry = () => {
    const width = canvas.clientWidth || 600;
    const height = canvas.clientHeight || 160;
    const n = Math.max(count, requests.length, 1);
    return { width, height, n, w: (width - AXIS) / n, top: 8, bottom: height - 16 };
  };

  function draw(next = requests, chosen = selected, total = count) {
    requests = next;
    selected = chosen;
    count = total;
    const dpr = globalThis.devicePixelRatio || 1;
    const { width, height, w, top, bottom } = geometry();
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    const ctx = canvas.getContext('2d');
    ctx.scale(dpr, dpr);
    ctx.clearRect(0, 0, width, height);
    const max = niceMax(Math.max(0, ...requests.map((r) => r.bytes)));
    const scale = (bottom - top) / max;
    // The bytes axis: 0, half and the top, with faint gridlines.
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const v of [0, max / 2, max]) {
      const y = bottom - v * scale;
      ctx.fillStyle = '#5b6673';
      ctx.fillText(shortBytes(v), AXIS - 6, y);
      ctx.fillStyle = '#eef1f4';
      ctx.fillRect(AXIS, Math.round(y), width - AXIS, 1);
    }
    // The request axis: first, middle and last request numbers (1-based, as the panel says).
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.fillStyle = '#5b6673';
    const n = Math.max(count, requests.length);
    for (const i of [...new Set([0, Math.floor((n - 1) / 2), n - 1])].filter((i) => i >= 0)) {
      ctx.fillText(String(i + 1), Math.min(Math.max(AXIS + (i + 0.5) * w, AXIS + 8), width - 10), bottom + 3);
    }
    const colW = Math.max(w - (w > 3 ? 1 : 0), 0.75);
    requests.forEach((r, i) => {
      const x = AXIS + i * w;
      let y = bottom;
      let content = 0;
      for (const [key, , color] of SOURCES) {
        const h = (r.sources[key] ?? 0) * scale;
        content += r.sources[key] ?? 0;
        ctx.fillStyle = color;
        ctx.fillRect(x, y - h, colW, h);
        y -= h;
      }
      // Sources are content bytes; the rest of the body is JSON framing.
      const framing = Math.max(r.bytes - content, 0) * scale;
      ctx.fillStyle = FRAMING;
      ctx.fillRect(x, y - framing, colW, framing);
      // The shared prefix: the body's first bytes, so the column's foot, faded to its height
      // with its edge marked; what is new since the request before stays bright above it.
      const shared = Math.min(r.shared, r.bytes) * scale;
      if (shared > 0) {
        ctx.fillStyle = SHARED;
        ctx.fillRect(x, bottom - shared, colW, shared);
        ctx.fillStyle = EDGE;
        ctx.fillRect(x, bottom - shared - 1, colW, 2);
      }
    });
    // Where the columns start, for whoever maps a column to a point (a test, a tool).
    canvas.dataset.plotLeft = String(AXIS);
    canvas.setAttribute('aria-valuenow', String(selected + 1));
    canvas.setAttribute('aria-valuemax', String(n));
    if (selected >= 0 && selected < n) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1.5;
      ctx.strokeRect(AXIS + selected * w + 0.75, top - 6, Math.max(w - 1.5, 1.5), bottom - top + 6);
    }
  }

  /** The column under a pointer's x (CSS pixels from the canvas's left), or -1. */
  function columnAt(clientX) {
    const box = canvas.getBoundingClientRect();
    const { n, w } = geometry();
    const i = Math.floor((clientX - box.left - AXIS) / w);
    return i >= 0 && i < n ? i : -1;
  }

  function showReadout(i, clientX) {
    const r = requests[i];
    if (i < 0) {
      readout.hidden = true;
      return;
    }
    readout.hidden = false;
    readout.dataset.index = String(i);
    readout.textContent = r
      ? `request ${i + 1}: ${fmt(r.bytes)} bytes, ${fmt(r.tokens)} tokens, ${fmt(r.cacheRead)} cached, ${dollars(r.inputDollars)} input`
      : `request ${i + 1}: not walked yet`;
    const box = canvas.getBoundingClientRect();
    readout.style.left = `${Math.min(Math.max(clientX - box.left + 12, 0), Math.max(box.width - 320, 0))}px`;
  }

  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'slider');
  canvas.setAttribute('aria-label', 'requests: click a column or use the arrow keys to select one');
  canvas.addEventListener('click', (ev) => {
    const i = columnAt(ev.clientX);
    if (i >= 0) onSelect(i);
  });
  canvas.addEventListener('mousemove', (ev) => showReadout(columnAt(ev.clientX), ev.clientX));
  canvas.addEventListener('mouseleave', () => showReadout(-1, 0));
  canvas.addEventListener('keydown', (ev) => {
    const n = Math.max(count, requests.length);
    if (n === 0) return;
    const page = Math.max(1, Math.round(n / 10));
    const to = {
      ArrowLeft: selected - 1, ArrowRight: selected + 1, ArrowDown: selected - 1, ArrowUp: selected + 1,
      Home: 0, End: n - 1, PageDown: selected - page, PageUp: selected + page,
    }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    onSelect(Math.min(Math.max(to, 0), n - 1));
  });
  return { draw, columnAt };
}
