/**
 * What every fault case ends with (issue 7, "Fault suite"): a clear message to the user, a ledger
 * with one row per call that arrived at the sandbox and exactly the points it withheld, and no
 * unhandled rejection nor an error left to Bolt's error handler.
 */
import { expect } from 'vitest';
import {
  looksLikeStackTrace,
  type PlatdeskHarness,
  type SlackMessage,
  textOf,
} from '../helpers/platdesk-harness.js';

const allTime = () => ({ from: new Date(0), to: new Date(Date.now() + 365 * 24 * 3_600_000) });

/**
 * The ledger against the sandbox: one row per call that arrived there (charged or not, answered
 * or not), and the same points as it withheld.
 */
export async function expectLedgerMatchesSandbox(
  h: PlatdeskHarness,
): Promise<{ count: number; points: number }> {
  const rows = await h.platdesk.store.ledger.list(allTime());
  const { calls, charges } = h.sandbox.stats();
  const ledger = { count: rows.length, points: rows.reduce((sum, r) => sum + r.points, 0) };
  expect(ledger, 'ledger against the calls and charges counted at the sandbox').toEqual({
    count: calls,
    points: charges.points,
  });
  return ledger;
}

/**
 * The ledger rows written after the first `since` rows, oldest first, as what the money rule is
 * about: operation, envelope code (NO_ANSWER_CODE when no answer could be read), points and item
 * quota calls.
 */
export async function ledgerRowsAfter(
  h: PlatdeskHarness,
  since: number,
): Promise<{ operation: string; code: number; points: number; quotaCalls: number }[]> {
  return (await h.platdesk.store.ledger.list(allTime()))
    .reverse()
    .slice(since)
    .map(({ operation, code, points, quotaCalls }) => ({ operation, code, points, quotaCalls }));
}

/** A failure told the way DESIGN asks: the title and the remedy, no stack trace, privately. */
export function expectClearMessage(message: SlackMessage, title: string, remedy: string): string {
  const said = textOf(message);
  expect(said).toContain(title);
  expect(said).toContain(remedy);
  expect(looksLikeStackTrace(said)).toBe(false);
  return said;
}

/**
 * Collects unhandled rejections of this test file's process (each file runs in its own worker).
 * `stop()` removes the listener and returns what was seen.
 */
export function watchUnhandledRejections(): { seen: unknown[]; stop: () => unknown[] } {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => void seen.push(reason);
  process.on('unhandledRejection', listener);
  return {
    seen,
    stop: () => {
      process.off('unhandledRejection', listener);
      return seen;
    },
  };
}

/** Log lines (JSON) whose msg is exactly `msg`. */
export function logLines(h: PlatdeskHarness, msg: string): Record<string, unknown>[] {
  return h
    .logs()
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

/** Failures were handled by the app, never left to Bolt's error handler. */
export function expectNoListenerErrors(h: PlatdeskHarness): void {
  expect(logLines(h, 'unhandled error in a Slack listener')).toEqual([]);
}

/** `n` distinct SF-shaped waybill numbers (unknown to the sandbox), from `from` on. */
export function waybillNumbers(n: number, from: number): string[] {
  return Array.from({ length: n }, (_, i) => `SF${String(7_000_000_000_000 + from + i)}`);
}
