/**
 * The App Home's "Connect an AI client" (issue 37): the click makes the clicker a token exactly
 * as `/platdesk mcp token` does (lookups/mcp-tokens.ts connectAiClient), and shows the answer in
 * a modal: only the clicker sees it, and Slack keeps no modal once it is closed, so the token is
 * shown once (a view click has no response_url for an ephemeral answer, and a direct message would
 * keep it in the history). A token whose modal Slack did not open is revoked at once: nobody saw
 * it. While an admin has MCP off the Home has no such button; a click from an older Home is told
 * so, makes nothing, and the Home is published again without the button.
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { renderMcpConnectModal } from '../../blocks/mcp.js';
import { connectAiClient } from '../../lookups/mcp-tokens.js';
import { onViewClick } from '../clicks/view-click.js';
import type { SlackDeps } from '../deps.js';

export function registerMcpConnect(app: App, deps: SlackDeps): void {
  onViewClick(app, deps, ACTIONS.homeMcpConnect, async (click) => {
    const result = await connectAiClient({
      userId: click.userId,
      admin: await deps.isAdmin(click.userId),
      store: deps.store,
      now: deps.now(),
      url: deps.mcpUrl ?? null,
    });
    const w = await click.words();
    try {
      await click.openModal(renderMcpConnectModal(w, result));
    } catch (error) {
      if (result.kind === 'mcp-token')
        await deps.store.mcpTokens.revoke(result.name, click.userId, click.userId);
      deps.logger.warn({ err: error }, 'the new MCP token’s modal did not open: the token was revoked');
      await click.tell({ text: w.t('mcp.connectFailed') });
    }
    if (result.kind === 'mcp-off') await click.republishHome();
  });
}
