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
    for (const [name, g] of this.gauges) {
      lines.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`, `${name} ${g.read()}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
