// Browser entry: the `--target web` build. Call `await init()` once before using the API.
import wbgInit, * as wasm from './web/contextview.js';
import { bindDiscover } from './discover.mjs';

export * from './web/contextview.js';
export { Workspace, memoryFs, browserFs } from './discover.mjs';

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
