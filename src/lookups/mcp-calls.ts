/**
 * What an MCP tool call (mcp/tool-calls.ts) keeps with its pending row, shared with the Slack
 * click that decides it (slack/actions/mcp-consent.ts): the row's language-free summary, which
 * names the tool, the token and the client (for the DM's closing line and the ledger's pending
 * row), and the outcome or failure the click's run stores for the waiting call to read.
 */
import { isPlatError } from '../plat/errors.js';
import { encodeFailure, encodeOutcome } from './outcome-codec.js';
import type { LookupOutcome } from './types.js';

/** The pending row's summary: language-free, with the client and token for the DM's closing line. */
export const mcpSummary = (call: { tool: string; token: { name: string }; client: string }, what: string) =>
  `mcp|${call.tool}|${call.token.name}|${what}|${call.client}`;
export function mcpClientOf(summary: string): string | null {
  if (!summary.startsWith('mcp|')) return null;
  return summary.split('|').slice(4).join('|') || null;
}

/** What a finished lookup keeps with its row (the click's run writes it; a retry reads it). */
export const mcpResultJson = (outcome: LookupOutcome): string =>
  JSON.stringify({ outcome: encodeOutcome(outcome), ageMs: null });
export const mcpFailureJson = (error: unknown): string | null =>
  isPlatError(error) ? encodeFailure(error) : null;
