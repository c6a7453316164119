import type { App } from '@slack/bolt';
import { LINK_ACTION_PATTERN } from '../../blocks/action-ids.js';
import { onLinkClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';
import { registerConfirmActions } from './confirm.js';
import { registerItemButtons } from './item-buttons.js';
import { registerMcpConsent } from './mcp-consent.js';
import { registerOrdersPager } from './orders-pager.js';
import { registerWaybillDownload } from './waybill-download.js';

export function registerActions(app: App, deps: SlackDeps): void {
  registerConfirmActions(app, deps);
  registerMcpConsent(app, deps);
  registerOrdersPager(app, deps);
  registerItemButtons(app, deps);
  registerWaybillDownload(app, deps);
  // URL buttons (authorization link, item page) still send an action that must be acknowledged.
  onLinkClick(app, LINK_ACTION_PATTERN);
}
