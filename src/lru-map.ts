/**
 * A map that keeps at most `max` entries: reading an entry makes it the most recently used, and
 * adding one past the bound drops the least recently used. For caches keyed by something that
 * keeps coming (people, SQL texts), so a long-running process does not keep every key it met.
 */
export class LruMap<K, V> {
  /** Least recently used first: Map iterates in insertion order, and a use re-inserts. */
  private readonly entries = new Map<K, V>();

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1)
      throw new Error(`LruMap: max must be a whole number ≥ 1, not ${max}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used; undefined if absent. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Adds or replaces, as the most recently used; drops the least recently used past max. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
