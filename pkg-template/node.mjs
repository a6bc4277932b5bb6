// Node ESM entry: the CommonJS entry (index.cjs, bundled from node-api.mjs at build time)
// re-exported, so `import` and `require` share one wasm instance and one copy of every class.
export * from './index.cjs';
