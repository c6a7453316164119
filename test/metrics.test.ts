/**
 * /metrics through prom-client: the process metrics it collects by default (event-loop lag, GC,
 * heap) beside platdesk's own series, in Prometheus text.
 */
import { describe, expect, it } from 'vitest';
import { Metrics } from '../src/metrics.js';

describe('Metrics (prom-client)', () => {
  it('exposes event-loop lag, GC and heap metrics by default', async () => {
    const metrics = new Metrics();
    // GC metrics appear once a collection was observed.
    const waste = Array.from({ length: 200_000 }, (_, i) => ({ i }));
    expect(waste).toHaveLength(200_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    (globalThis as { gc?: () => void }).gc?.();
    const text = await metrics.render();
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
      'process_resident_memory_bytes',
    ])
      expect(text).toContain(`# TYPE ${name} `);
  });

  it('renders counters with labels, histograms and gauges read at scrape time', async () => {
    const metrics = new Metrics({ processMetrics: false });
    metrics.inc('platdesk_plat_calls_total', 'Plat calls', {
      operation: 'platdybw',
      outcome: 'ok',
      code: 'none',
    });
    metrics.inc(
      'platdesk_plat_calls_total',
      'Plat calls',
      { operation: 'platdybw', outcome: 'ok', code: 'none' },
      2,
    );
    metrics.observe('platdesk_plat_call_ms', 'Plat call duration', [25, 50], 30, { operation: 'platdybw' });
    let queued = 3;
    metrics.gauge('platdesk_limiter_queued', 'Queued', () => queued);
    let text = await metrics.render();
    expect(text).toContain('# TYPE platdesk_plat_calls_total counter');
    expect(text).toContain('platdesk_plat_calls_total{operation="platdybw",outcome="ok",code="none"} 3');
    expect(text).toContain('platdesk_plat_call_ms_bucket{le="25",operation="platdybw"} 0');
    expect(text).toContain('platdesk_plat_call_ms_bucket{le="50",operation="platdybw"} 1');
    expect(text).toContain('platdesk_plat_call_ms_count{operation="platdybw"} 1');
    expect(text).toContain('platdesk_limiter_queued 3');
    queued = 0;
    text = await metrics.render();
    expect(text).toContain('platdesk_limiter_queued 0');
    expect(text).not.toContain('nodejs_');
  });
});
