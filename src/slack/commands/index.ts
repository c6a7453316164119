import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { registerItemCommand } from './item.js';
import { registerOrdersCommand } from './orders.js';
import { registerPlatdeskCommand } from './platdesk.js';
import { registerShopCommand } from './shop.js';
import { registerUnknownCommand } from './unknown.js';
import { registerWaybillCommand } from './waybill.js';

export function registerCommands(app: App, deps: SlackDeps): void {
  registerItemCommand(app, deps);
  registerShopCommand(app, deps);
  registerWaybillCommand(app, deps);
  registerOrdersCommand(app, deps);
  registerPlatdeskCommand(app, deps);
  registerUnknownCommand(app, deps);
}
