// <contextview-inspector>: the context inspector as an element a web IDE embeds. The host feeds
// it a session (our log, or a Claude Code, Codex, pi, Gemini CLI or Copilot CLI file, or an Aider chat history), a workspace (any FileSystem the
// package takes) and the what-if options; the element shows each request the session sent, where
// its tokens went, what the cache should serve and what it cost, in its own shadow root. The
// same modules run the standalone page (www/ in the repository).
import * as cv from './browser.mjs';
import { mountInspector } from './inspector/inspector.mjs';
import { MARKUP } from './inspector/markup.mjs';
import { CSS } from './inspector/style.mjs';

let wasmSource;
let lazySource;

const Base = typeof HTMLElement === 'undefined' ? class {} : HTMLElement;

export class ContextviewInspector extends Base {
  #inspector = null;
  #ready = null;
  #resolve = null;

  constructor() {
    super();
    this.#ready = new Promise((resolve, reject) => (this.#resolve = { resolve, reject }));
  }

  /** Resolves once the library is loaded and the element can be fed. */
  get ready() {
    return this.#ready;
  }

  async connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${CSS}</style>${MARKUP}`;
    this.dataset.state = 'loading';
    try {
      await cv.init({ module: wasmSource, lazy: lazySource });
    } catch (e) {
      this.#resolve.reject(e);
      return;
    }
    this.#inspector = mountInspector({ root, host: this, cv });
    this.#inspector.ready(`contextview ${cv.version()} loaded`);
    this.#resolve.resolve(this);
  }

  disconnectedCallback() {
    this.#inspector?.destroy();
  }

  #mounted() {
    if (!this.#inspector) throw new cv.ContextviewError('not_ready', 'contextview-inspector: not ready yet (await element.ready)');
    return this.#inspector;
  }

  /**
   * Shows a session: our log, or another agent's file (imported, with what it kept and lost);
   * with `children`, its subagents' logs or files, each shown at the call it answered.
   */
  loadSession(text, name = 'session', children = []) {
    return this.#mounted().loadSession(text, name, children);
  }

  /** Selects request `index` (0-based) of the session shown, as a click on its column does. */
  select(index) {
    this.#mounted().select(index);
  }

  /**
   * What the element shows, as data (also its `data-view` attribute, JSON): `provider`,
   * `model`, `asRecorded`, `selected`, `requests`, the selected request's `figures`
   * (`tokens`, `context`, `cacheRead`, `cost`, `bytes`), the session's `totals` (`cacheRead`,
   * `cost`, `tokens`, `requests`; complete when `walk` is `done`), `pruning`, `reading` (a cut
   * or partly read file) and `subagents`.
   */
  get view() {
    return this.#mounted().view;
  }

  /** Records a provider's answer to the session's last request and shows the request after it. */
  recordAnswer(text, name = 'answer') {
    return this.#mounted().recordAnswer(text, name);
  }

  /**
   * Follows a session file while its agent writes it: `handle` (a File System Access file
   * handle, or anything with `getFile()`) is read again every `interval` ms and what it gained is
   * imported; the session grows in place. `unfollow()` stops.
   */
  follow(handle, options = {}) {
    return this.#mounted().follow(handle, options);
  }

  unfollow() {
    this.#mounted().unfollow();
  }

  /** Discovers the workspace at `cwd` in `fs`: its rules and skills, and the heads they make. */
  openWorkspace(fs, cwd, label = cwd) {
    return this.#mounted().openWorkspace(fs, cwd, label);
  }

  /**
   * The view's options: `asRecorded` (each request at the provider and model its session
   * recorded, without our pruning: how an imported session opens), or the what-if's
   * `provider`, `model`, `contextWindow`, `pruning` (a policy known by name, `policies()`;
   * another is refused with a ContextviewError naming them).
   */
  set options(o) {
    this.#mounted().setOptions(o);
  }

  get options() {
    return this.#mounted().options();
  }

  /** Prices the session under each pruning choice (the simulator) and shows the table. */
  priceOptions() {
    this.#mounted().priceOptions();
  }
}

/**
 * Registers the element as `name` (once; later calls return the class). `wasm` and `lazy` are
 * what `init` takes as `module` and `lazy`: the first-load `.wasm`'s URL and the lazy module's
 * (read when a session from another agent or a workspace first needs it) when a bundler moved
 * them.
 */
export function defineInspector({ name = 'contextview-inspector', wasm, lazy } = {}) {
  // A later call without `wasm` or `lazy` (another name) keeps the source an earlier one gave.
  if (wasm !== undefined) wasmSource = wasm;
  if (lazy !== undefined) lazySource = lazy;
  if (!customElements.get(name)) customElements.define(name, class extends ContextviewInspector {});
  return customElements.get(name);
}
