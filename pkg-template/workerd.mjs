// Workers (workerd / wrangler) entry: the runtime compiles the .wasm import to a
// WebAssembly.Module, which is instantiated synchronously at module load.
import wasmModule from './web/contextview_bg.wasm';
import { initSync } from './web/contextview.js';

initSync({ module: wasmModule });

export * from './web/contextview.js';

/** The wasm is already instantiated; kept for symmetry with the browser entry. */
export function init() {
  return Promise.resolve();
}
