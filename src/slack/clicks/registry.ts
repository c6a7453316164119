/**
 * Which surface each click listener was registered for, per Bolt app. Only the registrations
 * (view-click.ts, message-click.ts, entity-click.ts) write here, so a test can ask, for every action_id a renderer
 * puts on a surface, which registration answers it (test/slack/click-registration.test.ts).
 */
import type { App } from '@slack/bolt';

/** 'entity': a Work Object's details panel (clicks/entity-click.ts). */
export type ClickSurface = 'view' | 'message' | 'entity';

interface Registration {
  surface: ClickSurface;
  actionId: string | RegExp;
}

const registrations = new WeakMap<App, Registration[]>();

export function recordClickRegistration(app: App, surface: ClickSurface, actionId: string | RegExp): void {
  const list = registrations.get(app) ?? [];
  list.push({ surface, actionId });
  registrations.set(app, list);
}

/** The surfaces whose registration matches `actionId` on this app (empty: nothing answers it). */
export function clickSurfacesOf(app: App, actionId: string): ClickSurface[] {
  return (registrations.get(app) ?? [])
    .filter((r) => (typeof r.actionId === 'string' ? r.actionId === actionId : r.actionId.test(actionId)))
    .map((r) => r.surface);
}
