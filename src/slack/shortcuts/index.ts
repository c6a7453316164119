import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { registerChooseModal } from './choose.js';
import { registerGlobalShortcut } from './global-shortcut.js';
import { registerMessageShortcuts } from './message-shortcuts.js';

export function registerShortcuts(app: App, deps: SlackDeps): void {
  registerMessageShortcuts(app, deps);
  registerGlobalShortcut(app, deps);
  registerChooseModal(app, deps);
}
