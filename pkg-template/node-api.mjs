// The Node API, written once: scripts/build.sh bundles this module (and the JavaScript modules it
// imports) into index.cjs, the package's CommonJS entry, which node.mjs re-exports. `import` and
// `require` so share one wasm instance (the `--target nodejs` build, loaded synchronously with fs)
// and one copy of every class (StorageError, DurableSession, Timeline, …), so `instanceof` holds
// across them.
import * as cv from './node/contextview.js';
import { bindDiscover } from './discover.mjs';
import { bindTimeline } from './timeline.mjs';
import { bindLazy } from './lazy.mjs';

export const {
  version,
  parseLog,
  replay,
  requestPoints,
  buildRequest,
  buildRequestString,
  validatePayload,
  Session,
  renderHeads,
  simulate,
  costModels,
  policies,
  policy,
  endpoint,
} = cv;

// The lazy module (see lazy.mjs): its CommonJS glue is required, and the .wasm read, on first
// use only (the glue reads the web build's copy, as the first-load glue does).
const lazy = bindLazy(async () => require('./node/contextview_lazy.js'), { acceptsSource: false });
export const { loadLazyModule, lazyModuleLoaded, importSession, importTree, importOpenCodeStorage } = lazy;

// Discovery of rules and skills (JavaScript driver over the lazy module's WorkspaceEngine; see
// discover.mjs).
export const { discover } = bindDiscover(async () => (await lazy.loadLazyModule()).WorkspaceEngine);
export { Workspace, memoryFs, browserFs, fileListFs } from './discover.mjs';

/** A log's request timeline (see timeline.mjs). */
export const { Timeline } = bindTimeline(cv);
export { nodeFs } from './node-fs.mjs';

// Session-log storage (see storage.mjs): a JSON Lines file, the shared error class, fault injection.
export { nodeFileStorage } from './storage-node.mjs';
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
export const openSession = (storage, options) => DurableSession.open(Session, storage, options);
export const openSubagent = (start, storage, options) => DurableSession.forSubagent(Session, start, storage, options);

/**
 * The wasm is already instantiated in Node; kept for symmetry with the browser entry. Node reads
 * the lazy module from the package's files: a `{lazy}` source is refused (`invalid_argument`).
 */
export const init = lazy.initReady;

/** Synchronous counterpart of init(); a no-op in Node. */
export function initSync() {}
