/**
 * Prometheus text exposition of a few counters and gauges, without a client library: platdesk
 * has a handful of series and no histograms yet.
 */
type Labels = Record<string, string | number>;

interface Series {
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, number>;
}

const labelKey = (labels: Labels) =>
  Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${String(v).replace(/["\\\n]/g, '_')}"`)
    .join(',');

export class Metrics {
  private readonly series = new Map<string, Series>();
  private readonly gauges = new Map<string, { help: string; read: () => number }>();
  private readonly histograms = new Map<
    string,
    { help: string; buckets: number[]; values: Map<string, { counts: number[]; sum: number; count: number }> }
  >();

  /** Records one observation in a histogram with fixed upper bounds. */
  observe(name: string, help: string, buckets: number[], value: number, labels: Labels = {}): void {
    let h = this.histograms.get(name);
    if (!h) {
      h = { help, buckets, values: new Map() };
      this.histograms.set(name, h);
    }
    const key = labelKey(labels);
    let v = h.values.get(key);
    if (!v) {
      v = { counts: h.buckets.map(() => 0), sum: 0, count: 0 };
      h.values.set(key, v);
    }
    h.buckets.forEach((bound, i) => {
      if (value <= bound && v) v.counts[i] = (v.counts[i] ?? 0) + 1;
    });
    v.sum += value;
    v.count += 1;
  }

  /** Adds to a counter. */
  inc(name: string, help: string, labels: Labels = {}, by = 1): void {
    let s = this.series.get(name);
    if (!s) {
      s = { help, type: 'counter', values: new Map() };
      this.series.set(name, s);
    }
    const key = labelKey(labels);
    s.values.set(key, (s.values.get(key) ?? 0) + by);
  }

  /** A gauge read when scraped. */
  gauge(name: string, help: string, read: () => number): void {
    this.gauges.set(name, { help, read });
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, s] of this.series) {
      lines.push(`# HELP ${name} ${s.help}`, `# TYPE ${name} ${s.type}`);
      for (const [key, value] of s.values) lines.push(`${name}${key ? `{${key}}` : ''} ${value}`);
    }
    for (const [name, h] of this.histograms) {
      lines.push(`# HELP ${name} ${h.help}`, `# TYPE ${name} histogram`);
      for (const [key, v] of h.values) {
        const sep = key ? `${key},` : '';
        for (const [i, bound] of h.buckets.entries())
          lines.push(`${name}_bucket{${sep}le="${bound}"} ${v.counts[i] ?? 0}`);
        lines.push(`${name}_bucket{${sep}le="+Inf"} ${v.count}`);
        lines.push(
          `${name}_sum${key ? `{${key}}` : ''} ${v.sum}`,
          `${name}_count${key ? `{${key}}` : ''} ${v.count}`,
        );
      }
    }
    for (const [name, g] of this.gauges) {
      lines.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`, `${name} ${g.read()}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
