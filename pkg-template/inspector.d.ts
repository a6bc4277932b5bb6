// Types of `contextview/inspector`: the <contextview-inspector> element.
import type { DiscoverFs, ImportFormat, LazySource, PolicyName, WasmSource } from './index.js';

/** The view's options: as recorded, or the what-if the inspector builds each request with. */
export interface InspectorOptions {
  /**
   * Each request at the provider and model its session recorded, without our pruning (how a
   * session that records them opens). Giving `provider`, `model` or `pruning` without it is a
   * what-if.
   */
  asRecorded?: boolean;
  provider?: 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';
  /** The session's own model when empty. */
  model?: string;
  contextWindow?: number;
  /**
   * A policy known by name (`policies()` lists them, as `simulate` takes them): `default`,
   * `eager` or `off`. Any other is refused with a ContextviewError naming them.
   */
  pruning?: PolicyName;
}

/** What the inspector shows, as data: its `view` and its `data-view` attribute (JSON). */
export interface InspectorView {
  session: string | null;
  /** 0 for the session loaded, 1 for a subagent opened from it, … */
  depth: number;
  provider: string | null;
  model: string | null;
  asRecorded: boolean;
  /** The selected request (0-based), null with none. */
  selected: number | null;
  requests: number;
  /** `running` while the requests' figures are computed, `done` once the totals are whole. */
  walk: 'running' | 'done' | 'error' | null;
  /** The selected request's figures (`cost`: its input in US dollars). */
  figures: { tokens: number; context: number; cacheRead: number; cost: number; bytes: number } | null;
  /** The session's totals over its requests (those walked so far while `walk` is `running`). */
  totals: { cacheRead: number; cost: number; tokens: number; requests: number };
  pruning: { cleared: number; trimmed: number } | null;
  /** How much of the file was read: `cut` when its last line is incomplete. */
  reading: { cut: boolean; skipped: number; line: number | null } | null;
  subagents: number;
  /** The file followed while its agent writes it (`follow`), by name. */
  following: string | null;
}

/**
 * The context inspector as an element. Its state is in `data-state` (`loading`, `busy`, `ready`
 * or `error: …`), `data-done` counts finished actions, `data-walk` is `done` once every request's
 * figures are in, `data-view` is what it shows as JSON (`view`); each change fires `contextview-state` with `{state, message}`.
 */
export declare class ContextviewInspector extends HTMLElement {
  /** Resolves once the library is loaded; feed the element after it. */
  readonly ready: Promise<ContextviewInspector>;
  /**
   * Shows a session: our log, or another agent's file (any `ImportFormat`); with `children`, its
   * subagents' logs or files, each shown at the call it answered with its requests' cost.
   * Resolves once it is shown (another agent's file loads the lazy module, with the importers,
   * the first time); a failure is shown in the element's status, not thrown.
   */
  loadSession(text: string, name?: string, children?: string[]): Promise<void>;
  /** Selects request `index` (0-based), as a click on its column does. */
  select(index: number): void;
  /** What the element shows (also its `data-view` attribute, as JSON). */
  readonly view: InspectorView;
  /** Records a provider's answer to the last request and shows the request after it. */
  recordAnswer(text: string, name?: string): Promise<void>;
  /**
   * Follows a session file while its agent writes it: `handle` (a `FileSystemFileHandle`, or
   * anything with `getFile()`) is read again every `interval` ms (1000 when not given) and what
   * it gained is imported (`format` when the file does not tell it); the timeline grows, a request
   * selected stays selected, and when the newest was, the newest is. Resolves after the first
   * read; a failure later is shown in the status, and following goes on.
   */
  follow(handle: { getFile(): Promise<Blob & { lastModified: number }>; name?: string }, options?: { interval?: number; format?: ImportFormat | null }): Promise<void>;
  /** Stops following. */
  unfollow(): void;
  /** Discovers the workspace at `cwd` in `fs`. */
  openWorkspace(fs: DiscoverFs, cwd: string, label?: string): Promise<void>;
  options: InspectorOptions;
  /** Prices the session under each pruning choice and shows the table. */
  priceOptions(): void;
}

/**
 * Registers the element (`contextview-inspector` unless named); `wasm` and `lazy` are what
 * `init` takes as `module` and `lazy`.
 */
export declare function defineInspector(options?: { name?: string; wasm?: WasmSource; lazy?: LazySource }): typeof ContextviewInspector;

declare global {
  interface HTMLElementTagNameMap {
    'contextview-inspector': ContextviewInspector;
  }
  interface HTMLElementEventMap {
    'contextview-state': CustomEvent<{ state: string; message: string }>;
  }
}
