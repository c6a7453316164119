/**
 * What the bundle gets for `import … from 'prom-client'` (scripts/build.mjs, PART_ENTRIES): only
 * the parts platdesk uses, each loaded when first read. prom-client's own index also loads the
 * Summary (t-digest), the Pushgateway (an HTTP client) and the cluster aggregator (node:cluster).
 * tsc and the tests still see the real package; test/start.test.ts checks the bundle's names.
 */
const parts = {
  Counter: () => require('prom-client/lib/counter.js'),
  Gauge: () => require('prom-client/lib/gauge.js'),
  Histogram: () => require('prom-client/lib/histogram.js'),
  Registry: () => require('prom-client/lib/registry.js'),
  collectDefaultMetrics: () => require('prom-client/lib/defaultMetrics.js'),
};
Object.defineProperty(exports, '__esModule', { value: true });
for (const [name, load] of Object.entries(parts)) {
  Object.defineProperty(exports, name, { enumerable: true, get: load });
}
