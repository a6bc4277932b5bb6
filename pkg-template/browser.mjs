// Browser entry: the `--target web` build. Call `await init()` once before using the API.
import wbgInit, * as wasm from './web/contextview.js';
import { bindDiscover } from './discover.mjs';
import { bindTimeline } from './timeline.mjs';

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

/**
 * Instantiates the wasm. `input` is anything wasm-bindgen accepts (URL, string path, Response,
 * BufferSource, WebAssembly.Module); it defaults to the .wasm shipped beside this file.
 * Later calls return the first call's promise.
 */
export function init(input) {
  ready ??= wbgInit({
    module_or_path: input ?? new URL('./web/contextview_bg.wasm', import.meta.url),
  }).then(() => undefined);
  return ready;
}

/** Discovers rules and skills (see discover.mjs); calls init() first if nobody has yet. */
export const { discover } = bindDiscover(wasm.WorkspaceEngine, () => init());

/** A log's request timeline (see timeline.mjs); call init() first. */
export const { Timeline } = bindTimeline(wasm);
