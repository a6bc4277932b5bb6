// Types of `contextview/inspector`: the <contextview-inspector> element.
import type { DiscoverFs, LazySource, PolicyName, WasmSource } from './index.js';

/** The what-if options the inspector builds each request with. */
export interface InspectorOptions {
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

/**
 * The context inspector as an element. Its state is in `data-state` (`loading`, `busy`, `ready`
 * or `error: …`), `data-done` counts finished actions, `data-walk` is `done` once every request's
 * figures are in; each change fires `contextview-state` with `{state, message}`.
 */
export declare class ContextviewInspector extends HTMLElement {
  /** Resolves once the library is loaded; feed the element after it. */
  readonly ready: Promise<ContextviewInspector>;
  /**
   * Shows a session: our log, or a Claude Code, Codex or pi file; with `children`, its
   * subagents' logs or files, each shown at the call it answered with its requests' cost.
   * Resolves once it is shown (another agent's file loads the lazy module, with the importers,
   * the first time); a failure is shown in the element's status, not thrown.
   */
  loadSession(text: string, name?: string, children?: string[]): Promise<void>;
  /** Records a provider's answer to the last request and shows the request after it. */
  recordAnswer(text: string, name?: string): Promise<void>;
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
