/**
 * Single flight: identical work asked for while it is already running is not run again; the
 * askers that came second (followers) share the first one's (the leader's) answer or failure.
 * Two engines serve this contract: in this process (below), and across every process with the
 * same REDIS_URL (./redis-single-flight.ts). Lookups use it so that identical confirmed lookups
 * make one plat call and one charge, the leader's.
 */

/** The answer and who produced it: `shared` is true for a follower (it ran nothing). */
export interface Flight<T> {
  value: T;
  shared: boolean;
}

/**
 * How a follower learns the leader failed: run() rejects with this, `error` being the leader's
 * error (in another process: a copy of it, see FlightCodec). The leader itself gets its own error.
 */
export class SharedFlightFailure extends Error {
  readonly error: unknown;
  constructor(error: unknown) {
    super('the identical work this shared failed', { cause: error });
    this.name = 'SharedFlightFailure';
    this.error = error;
  }
}

export interface SingleFlight<T> {
  /**
   * Runs `work` as the leader, unless work of the same `key` is in flight (anywhere the engine
   * reaches): then waits for it and shares its answer. Rejects with work's own error for the
   * leader and with SharedFlightFailure for a follower; an engine that cannot coordinate (Redis
   * unreachable) rejects before running anything.
   */
  run(key: string, work: () => Promise<T>): Promise<Flight<T>>;
  /** Lets go of any connection; runs still in progress settle on their own. */
  stop(): Promise<void>;
}

/** Values and failures as text, for engines that hand them to another process. */
export interface FlightCodec<T> {
  encode(value: T): string;
  decode(text: string): T;
  encodeError(error: unknown): string;
  decodeError(text: string): unknown;
}

/**
 * The coalescing every engine starts with: within one process, a second run of a key in flight
 * joins the first at once (synchronously, so two runs started in the same tick never both lead).
 * `lead` is how the first run of a key gets its answer (runs the work, or, across processes, may
 * itself follow another process).
 */
export function createCoalescer<T>(): (key: string, lead: () => Promise<Flight<T>>) => Promise<Flight<T>> {
  const inFlight = new Map<string, Promise<Flight<T>>>();
  return (key, lead) => {
    const first = inFlight.get(key);
    if (first)
      return first.then(
        (flight) => ({ value: flight.value, shared: true }),
        (error: unknown) => {
          throw error instanceof SharedFlightFailure ? error : new SharedFlightFailure(error);
        },
      );
    const running = lead();
    inFlight.set(key, running);
    const forget = () => {
      if (inFlight.get(key) === running) inFlight.delete(key);
    };
    void running.then(forget, forget);
    return running;
  };
}

/** The in-process engine: without REDIS_URL, one process is the whole app. */
export function createLocalSingleFlight<T>(): SingleFlight<T> {
  const coalesce = createCoalescer<T>();
  return {
    run: (key, work) => coalesce(key, async () => ({ value: await work(), shared: false })),
    stop: async () => {},
  };
}
