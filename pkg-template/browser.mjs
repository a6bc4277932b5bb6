// Browser entry: the `--target web` build. Call `await init()` once before using the API; the
// importers and discovery load their own module when first called (see lazy.mjs).
import wbgInit, * as wasm from './web/contextview.js';
import { bindDiscover } from './discover.mjs';
import { bindTimeline } from './timeline.mjs';
import { bindLazy } from './lazy.mjs';

export * from './web/contextview.js';
export { Workspace, memoryFs, browserFs, fileListFs } from './discover.mjs';
// Session-log storage (see storage.mjs): IndexedDB, the shared error class, fault injection.
export { indexedDbStorage } from './storage-indexeddb.mjs';
export { StorageError, faultyStorage } from './storage.mjs';
export { DurableSession } from './durable.mjs';
// A provider's answer into a session as it streams (see receive.mjs), and a whole turn that
// survives the provider: retries, recoveries, continuations (see send.mjs).
export { receive, AnswerStream } from './receive.mjs';
export { send, Turn } from './send.mjs';
// Every error the package throws (see errors.mjs).
export { ContextviewError, ContextviewTypeError, ProviderError } from './errors.mjs';
import { DurableSession } from './durable.mjs';

/** Opens the session `storage` holds (or a new one, `options.sessionId`), driving its effects. */
export const openSession = (storage, options) => DurableSession.open(wasm.Session, storage, options);
export const openSubagent = (start, storage, options) => DurableSession.forSubagent(wasm.Session, start, storage, options);

let ready;

// The lazy module (see lazy.mjs): its glue and its .wasm are fetched on first use only.
const lazy = bindLazy(async (source) => {
  const glue = await import('./web/contextview_lazy.js');
  await glue.default({ module_or_path: source ?? new URL('./web/contextview_lazy_bg.wasm', import.meta.url) });
  return glue;
});

/**
 * Instantiates the first-load wasm. `input` is anything wasm-bindgen accepts (URL, string path,
 * Response, BufferSource, WebAssembly.Module), or `{module, lazy}`: `module` that source,
 * `lazy` where the lazy module (importers, discovery) is read from when first needed (a source,
 * or a function returning one). Both default to the .wasm files shipped beside this file.
 * Later calls return the first call's promise (a `lazy` they give still applies).
 */
export function init(input) {
  let module;
  try {
    module = lazy.initInput(input);
  } catch (e) {
    return Promise.reject(e);
  }
  ready ??= wbgInit({
    module_or_path: module ?? new URL('./web/contextview_bg.wasm', import.meta.url),
  }).then(() => undefined);
  return ready;
}

export const { loadLazyModule, lazyModuleLoaded, importSession, importTree, importOpenCodeStorage } = lazy;

/**
 * Discovers rules and skills (see discover.mjs) with the lazy module's engine, loading it on
 * first use.
 */
export const { discover } = bindDiscover(async () => (await lazy.loadLazyModule()).WorkspaceEngine);

/** A log's request timeline (see timeline.mjs); call init() first. */
export const { Timeline } = bindTimeline(wasm);
