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
