// Node ESM entry: re-exports the CommonJS `--target nodejs` build (which loads the wasm
// synchronously with fs), so `import` and `require` share one wasm instance.
import { createRequire } from 'node:module';
import { bindDiscover } from './discover.mjs';
import { bindTimeline } from './timeline.mjs';

const require = createRequire(import.meta.url);
const cv = require('./node/contextview.js');

export const {
  version,
  parseLog,
  replay,
  requestPoints,
  buildRequest,
  buildRequestString,
  validatePayload,
  importSession,
  Session,
  WorkspaceEngine,
  renderHeads,
} = cv;

// Discovery of rules and skills (JavaScript driver over WorkspaceEngine; see discover.mjs).
export const { discover } = bindDiscover(WorkspaceEngine);
export { Workspace, memoryFs, browserFs, fileListFs } from './discover.mjs';

/** A log's request timeline (see timeline.mjs). */
export const { Timeline } = bindTimeline(cv);
export { nodeFs } from './node-fs.mjs';

// Session-log storage (see storage.mjs): a JSON Lines file, the shared error class, fault injection.
export { nodeFileStorage } from './storage-node.mjs';
export { StorageError, faultyStorage } from './storage.mjs';
export { DurableSession } from './durable.mjs';
// A provider's answer into a session as it streams (see receive.mjs).
export { receive, AnswerStream, ProviderError } from './receive.mjs';
import { DurableSession } from './durable.mjs';

/** Opens the session `storage` holds (or a new one, `options.sessionId`), driving its effects. */
export const openSession = (storage, options) => DurableSession.open(Session, storage, options);

/** The wasm is already instantiated in Node; kept for symmetry with the browser entry. */
export function init() {
  return Promise.resolve();
}

/** Synchronous counterpart of init(); a no-op in Node. */
export function initSync() {}
