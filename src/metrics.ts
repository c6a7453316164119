/**
 * Prometheus metrics through prom-client, one registry per platdesk instance (tests run several
 * in one process): its default process metrics (event-loop lag, GC, heap, CPU, handles) plus
 * platdesk's own series. Call sites name a series where they count it; the first use creates it
 * with the label names of that call, so a series keeps one label set.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

type Labels = Record<string, string | number>;

export class Metrics {
  readonly registry = new Registry();
  private readonly counters = new Map<string, Counter>();
  private readonly histograms = new Map<string, Histogram>();

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Adds to a counter. */
  inc(name: string, help: string, labels: Labels = {}, by = 1): void {
    let counter = this.counters.get(name);
    if (!counter) {
      counter = new Counter({ name, help, labelNames: Object.keys(labels), registers: [this.registry] });
      this.counters.set(name, counter);
    }
    counter.inc(labels, by);
  }

  /** Records one observation in a histogram with fixed upper bounds. */
  observe(name: string, help: string, buckets: number[], value: number, labels: Labels = {}): void {
    let histogram = this.histograms.get(name);
    if (!histogram) {
      histogram = new Histogram({
        name,
        help,
        buckets,
        labelNames: Object.keys(labels),
        registers: [this.registry],
      });
      this.histograms.set(name, histogram);
    }
    histogram.observe(labels, value);
  }

  /** A gauge read when scraped. */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** A gauge with one label, each of its values read when scraped. */
  labelledGauge(name: string, help: string, label: string, read: () => Record<string, number>): void {
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      collect() {
        for (const [value, n] of Object.entries(read())) this.set({ [label]: value }, n);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
