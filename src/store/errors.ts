/**
 * The store's one failure that callers handle: the database cannot be reached (PostgreSQL down
 * or unreachable, SQLite locked or its disk failing). Nothing was done; the caller answers
 * "temporarily unavailable" and tries again later.
 */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable';
  constructor(
    readonly engine: 'sqlite' | 'postgres',
    /** Where, without secrets (engine.ts describeUrl). */
    readonly location: string,
    cause: unknown,
  ) {
    const reason =
      cause instanceof Error
        ? cause.message || (cause as { code?: string }).code || cause.name
        : String(cause);
    super(
      `The ${engine === 'postgres' ? 'PostgreSQL' : 'SQLite'} store at ${location} is unreachable: ${reason}`,
      { cause },
    );
    this.name = 'StoreUnavailableError';
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

/**
 * PostgreSQL: another platdesk process holds the database in a way this one may not join (one
 * without REDIS_URL must be alone; replicas with REDIS_URL share it). store/sole-lock.ts.
 */
export class DatabaseInUseError extends Error {
  readonly code = 'database_in_use';
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseInUseError';
  }
}
