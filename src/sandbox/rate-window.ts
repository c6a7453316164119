/**
 * Sliding-window accounting of call arrivals (spec §8: 10 calls per second on every endpoint).
 * The sandbox never refuses a call for its rate; it only records how close the client came to the
 * limit, so tests and benchmarks can assert that the client's limiter held (DESIGN rule 4).
 *
 * Arrival times live in a growable ring buffer: each arrival is pushed once and dropped once, so
 * `record` is O(1) amortized however long the run.
 */
export interface RateWindowOptions {
  windowMs: number;
  limit: number;
}

export interface RateWindowSnapshot {
  /** Largest number of arrivals seen inside any window of `windowMs` (ending at an arrival). */
  maxInWindow: number;
  /** Arrivals that found `limit` or more earlier arrivals within the previous `windowMs`. */
  violations: number;
}

export class RateWindow {
  readonly #windowMs: number;
  readonly #limit: number;
  #times = new Float64Array(64);
  #head = 0;
  #size = 0;
  #maxInWindow = 0;
  #violations = 0;

  constructor(options: RateWindowOptions) {
    this.#windowMs = options.windowMs;
    this.#limit = options.limit;
  }

  /** Records one arrival at `at` (ms, monotonic) and returns how many arrivals the window now holds. */
  record(at: number): number {
    // An arrival exactly windowMs after an earlier one is in a new window: a limiter that starts
    // its 11th call at t0 + 1000 ms has kept to "10 per 1000 ms".
    while (this.#size > 0 && at - this.#peekOldest() >= this.#windowMs) {
      this.#head = (this.#head + 1) % this.#times.length;
      this.#size -= 1;
    }
    this.#push(at);
    if (this.#size > this.#maxInWindow) this.#maxInWindow = this.#size;
    if (this.#size > this.#limit) this.#violations += 1;
    return this.#size;
  }

  snapshot(): RateWindowSnapshot {
    return { maxInWindow: this.#maxInWindow, violations: this.#violations };
  }

  reset(): void {
    this.#head = 0;
    this.#size = 0;
    this.#maxInWindow = 0;
    this.#violations = 0;
  }

  #peekOldest(): number {
    return this.#times[this.#head] ?? Number.NEGATIVE_INFINITY;
  }

  #push(at: number): void {
    if (this.#size === this.#times.length) this.#grow();
    this.#times[(this.#head + this.#size) % this.#times.length] = at;
    this.#size += 1;
  }

  #grow(): void {
    const next = new Float64Array(this.#times.length * 2);
    for (let i = 0; i < this.#size; i += 1) next[i] = this.#times[(this.#head + i) % this.#times.length] ?? 0;
    this.#times = next;
    this.#head = 0;
  }
}
