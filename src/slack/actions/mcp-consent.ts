/**
 * Confirm and Deny in the DM an AI client's paid tool call sends its token's owner (issue 37,
 * mcp/tool-calls.ts). Confirm is the same single-use claim as a command's Confirm; its run is
 * charged with source 'mcp' and keeps its outcome with the row, which the waiting tool call
 * reads (on whichever replica it waits). Deny cancels the row. Either way the DM is replaced by
 * one line saying what happened; a second click, another person's or a late one changes nothing.
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { renderMcpDecided } from '../../blocks/mcp.js';
import { mcpClientOf, mcpFailureJson, mcpResultJson } from '../../lookups/mcp-calls.js';
import { onMessageClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';
import { answerInterrupted, answerRefusedClaim } from './confirm.js';

export function registerMcpConsent(app: App, deps: SlackDeps): void {
  onMessageClick(app, deps, ACTIONS.mcpConfirm, async ({ action, body, reply }) => {
    const claimed = await deps.lookups.claim(action.value ?? '', body.user.id);
    if (!claimed.ok && claimed.reason === 'interrupted' && claimed.pending)
      return answerInterrupted(deps, claimed.pending, reply, body.response_url ?? null);
    if (!claimed.ok) return answerRefusedClaim(deps, body.user.id, claimed, reply);
    const { pending } = claimed;
    const client = mcpClientOf(pending.summary) ?? 'MCP';
    const w = await deps.language.user(body.user.id);
    let decided: Parameters<typeof renderMcpDecided>[2];
    try {
      const outcome = await deps.lookups.run(pending, {
        source: 'mcp',
        resultJson: mcpResultJson,
        failureJson: mcpFailureJson,
      });
      decided = { kind: 'confirmed', outcome };
    } catch (error) {
      decided = { kind: 'failed', error };
    }
    await reply({
      response_type: 'ephemeral',
      replace_original: true,
      ...renderMcpDecided(w, client, decided),
    });
  });

  onMessageClick(app, deps, ACTIONS.mcpDeny, async ({ action, body, reply }) => {
    const cancelled = await deps.lookups.cancel(action.value ?? '', body.user.id);
    if (!cancelled.ok) return answerRefusedClaim(deps, body.user.id, cancelled, reply);
    const w = await deps.language.user(body.user.id);
    const client = mcpClientOf(cancelled.pending.summary) ?? 'MCP';
    await reply({
      response_type: 'ephemeral',
      replace_original: true,
      ...renderMcpDecided(w, client, { kind: 'denied' }),
    });
  });
}
