/**
 * undici, loaded with the plat client's first call (not at start).
 *
 * undici is a CommonJS package: its `default` is its module.exports both under Node (tsc build,
 * tests) and in the esbuild bundle, whose chunk for a dynamically imported CommonJS package
 * exports `default` only — its named exports (`Pool`, `fetch`…) are undefined there.
 */
export type Undici = typeof import('undici').default;

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici').then((module) => module.default);
  return loading;
}
