// The lazy module: what a build-and-answer loop never calls — the importers of other agents'
// sessions (`importSession`, `importTree`) and the discovery engine behind `discover` — is a
// second `.wasm` (web/contextview_lazy_bg.wasm), loaded on first use rather than with the
// package. Each entry point binds this loader to its own way of loading that module (the
// browser fetches it, Workers import it, Node reads it from the package's files); the calls that
// need it return promises. A module that cannot be loaded is a `ContextviewError` with code
// `lazy_module_unavailable` (its `cause` the underlying failure), and the next call tries again.

import { ContextviewError, ContextviewTypeError } from './errors.mjs';

/** What the lazy module exports, once loaded. */
const EXPORTS = ['importSession', 'importTree', 'importOpenCodeStorage', 'IncrementalImport', 'WorkspaceEngine'];

/**
 * Binds the loader to one entry's `load(source)`, which resolves to the lazy module's glue once
 * it is instantiated (`source` as the host gave it, or undefined for the package's own copy).
 * `acceptsSource` says whether this entry can load from a host-given source.
 */
export function bindLazy(load, { acceptsSource = true } = {}) {
  let configured;
  let loaded;
  let pending;

  function checkSource(source, argument) {
    if (source === undefined) return;
    if (!acceptsSource) {
      throw new ContextviewTypeError(argument, `${argument}: this entry reads the lazy module from the package's files and takes no source`);
    }
    if (source === null || (typeof source !== 'object' && typeof source !== 'string' && typeof source !== 'function')) {
      throw new ContextviewTypeError(argument, `${argument} must be a URL, a path, a Response, bytes, a WebAssembly.Module or a function returning one (or a promise of one), got ${source === null ? 'null' : typeof source}`);
    }
  }

  /**
   * Reads init()'s argument: `{module, lazy}` sets where the lazy module is loaded from when it
   * is first needed and gives `module`; anything else is the first-load module's own source.
   * Throws on a lazy source that is none.
   */
  function initInput(input) {
    if (input === null || typeof input !== 'object' || Object.getPrototypeOf(input) !== Object.prototype) return input;
    if (input.lazy !== undefined) {
      checkSource(input.lazy, 'lazy');
      configured = input.lazy;
    }
    return input.module;
  }

  /** init() for an entry whose first-load module is ready at import (Node, Workers). */
  function initReady(input) {
    try {
      initInput(input);
    } catch (e) {
      return Promise.reject(e);
    }
    return Promise.resolve();
  }

  /**
   * Loads the lazy module now (a host that knows it will import or discover soon may start it
   * early) and resolves to its exports: `importSession` and `importTree`, synchronous once it is
   * loaded, and the `WorkspaceEngine` class. `source` (browsers and Workers) overrides where it
   * is read from, for this load; a module already loaded is returned as it is.
   */
  function loadLazyModule(source) {
    try {
      checkSource(source, 'source');
    } catch (e) {
      return Promise.reject(e);
    }
    if (loaded) return Promise.resolve(loaded);
    pending ??= (async () => {
      let given = source ?? configured;
      try {
        if (typeof given === 'function') given = await given();
        const glue = await load(await given);
        loaded = Object.freeze(Object.fromEntries(EXPORTS.map((name) => [name, glue[name]])));
        return loaded;
      } catch (cause) {
        const why = cause?.message ?? String(cause);
        throw new ContextviewError('lazy_module_unavailable', `the lazy module (importers and discovery) could not be loaded: ${why}`, { cause });
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  }

  /** Imports another agent's session file into our log format (see the lazy module). */
  async function importSession(text, format) {
    return (await loadLazyModule()).importSession(text, format);
  }

  /** Imports a session with its subagents' own files, each linked to its call. */
  async function importTree(text, children, format) {
    return (await loadLazyModule()).importTree(text, children, format);
  }

  /** Imports an OpenCode session from its storage folder's files, with its subagents'. */
  async function importOpenCodeStorage(session, children) {
    return (await loadLazyModule()).importOpenCodeStorage(session, children);
  }

  /** Whether the lazy module is loaded (it is only once something needed it). */
  const lazyModuleLoaded = () => loaded !== undefined;

  return { initInput, initReady, loadLazyModule, importSession, importTree, importOpenCodeStorage, lazyModuleLoaded };
}
