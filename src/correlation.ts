/**
 * The correlation id of the Slack request being handled, carried through async calls with
 * AsyncLocalStorage: the request's log line, the lookup and the plat calls it makes all carry
 * the same id (the logger adds it to every line written inside the request).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<{ correlationId: string }>();

export function withCorrelationId<T>(correlationId: string, fn: () => T): T {
  return storage.run({ correlationId }, fn);
}

export function currentCorrelationId(): string | null {
  return storage.getStore()?.correlationId ?? null;
}
