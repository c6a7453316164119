/**
 * One registration per kind of surface (CONVENTIONS 16, issue 20 point 5): every element a
 * renderer puts in a view (the App Home, a modal) that sends a click is answered by the view
 * registration (clicks/view-click.ts, whose context has no `respond`), every one on a message by
 * the message registration (clicks/message-click.ts), and nothing else in src/ registers a click.
 * The renders are every renderer's output (test/blocks/every-render.ts), in both languages, with
 * realistic and extreme data, and the Home in the states it can be in: admin and member, lists
 * empty or full, each language choice.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { renderHome } from '../../src/blocks/home.js';
import { type Words, wordsFor } from '../../src/blocks/i18n/words.js';
import type { HomeData } from '../../src/lookups/home-data.js';
import { budgetsSchema } from '../../src/lookups/settings.js';
import type { MessageClick } from '../../src/slack/clicks/message-click.js';
import { clickSurfacesOf } from '../../src/slack/clicks/registry.js';
import type { ViewClick } from '../../src/slack/clicks/view-click.js';
import { EXTREME_TEXT, everyRender, REALISTIC_TEXT, type Render } from '../blocks/every-render.js';
import { NOW } from '../helpers/domain-factories.js';
import { useHarness } from '../helpers/platdesk-harness.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The elements of a surface that send block_actions: every element of an actions block, a
 * section's accessory (not an image), and an input's element when the input dispatches
 * (https://docs.slack.dev/reference/block-kit/blocks/input-block: dispatch_action).
 */
function clickable(payload: unknown): { actionId: string | undefined; type: string }[] {
  const found: { actionId: string | undefined; type: string }[] = [];
  const blocksOf = (p: unknown): unknown[] => {
    if (!isObject(p)) return [];
    const own = Array.isArray(p.blocks) ? p.blocks : [];
    const attached = Array.isArray(p.attachments) ? p.attachments.flatMap(blocksOf) : [];
    return [...own, ...attached];
  };
  const add = (el: unknown) => {
    if (isObject(el) && el.type !== 'image')
      found.push({
        actionId: typeof el.action_id === 'string' ? el.action_id : undefined,
        type: String(el.type),
      });
  };
  for (const block of blocksOf(payload)) {
    if (!isObject(block)) continue;
    if (block.type === 'actions' && Array.isArray(block.elements)) block.elements.forEach(add);
    if (block.type === 'section' && block.accessory) add(block.accessory);
    if (block.type === 'input' && block.dispatch_action === true) add(block.element);
  }
  return found;
}

function homeStates(w: Words): Render[] {
  const empty = { points: 0, calls: 0, quotaCalls: 0 };
  const member: HomeData = {
    userId: 'U1234',
    admin: false,
    timeZone: 'Asia/Shanghai',
    today: empty,
    month: empty,
    recent: [],
    recentMore: 0,
    mcpEnabled: true,
    adminHome: null,
  };
  const admin: HomeData = {
    ...member,
    admin: true,
    adminHome: {
      agentFeedback: { good: 0, bad: 0, recent: [] },
      agentSpend: { points: 0, quotaCalls: 0, calls: 0 },
      report: {
        period: 'month',
        from: NOW,
        to: NOW,
        timeZone: 'Asia/Shanghai',
        userId: null,
        totals: empty,
        byOperation: [],
        byUser: [],
        byDay: [],
        days: [],
      },
      alerts: [],
      budgetAlerts: [],
      access: { mode: 'everyone', users: [], groups: [], channels: [] },
      autoLookup: [],
      prices: [],
      overrides: {},
      digests: [],
      shipAlerts: [],
      steps: [],
      dailyCap: null,
      budgets: budgetsSchema.parse({}),
    },
  };
  const renders: Render[] = [];
  for (const [name, data] of [
    ['member', member],
    ['admin-empty', admin],
  ] as const)
    for (const own of [null, 'en', 'zh-CN'] as const)
      renders.push({
        name: `home-${name}-${own ?? 'auto'}`,
        surface: 'home',
        payload: renderHome(w, data, NOW, { effective: own ?? w.locale, own }),
      });
  return renders;
}

describe('one registration per kind of surface', () => {
  const h = useHarness();

  const renders = (['en', 'zh-CN'] as const).flatMap((locale) => {
    const w = wordsFor(locale);
    return [...everyRender(w, REALISTIC_TEXT), ...everyRender(w, EXTREME_TEXT), ...homeStates(w)].map(
      (r) => ({ ...r, name: `${locale}/${r.name}` }),
    );
  });

  it('the renders hold the Home in both roles and clickable elements on every kind of surface', () => {
    const surfaces = new Set(renders.filter((r) => clickable(r.payload).length > 0).map((r) => r.surface));
    expect([...surfaces].sort()).toEqual(['home', 'message', 'modal']);
    const homeIds = renders
      .filter((r) => r.surface === 'home')
      .flatMap((r) => clickable(r.payload).map((c) => c.actionId));
    // Admin buttons and everyone's language buttons are there to check.
    expect(homeIds).toContain('platdesk.home.alert_add');
    expect(homeIds).toContain('platdesk.home.alert_remove.1');
    expect(homeIds).toContain('platdesk.home.digest_remove.1');
    expect(homeIds).toContain('platdesk.home.language.auto');
  });

  it('every clickable element in the Home and in modals is registered as a view click, and only so', () => {
    const wrong: string[] = [];
    for (const r of renders.filter((r) => r.surface !== 'message'))
      for (const c of clickable(r.payload)) {
        const surfaces = c.actionId === undefined ? [] : clickSurfacesOf(h().platdesk.app, c.actionId);
        if (surfaces.length !== 1 || surfaces[0] !== 'view')
          wrong.push(`${r.name}: ${c.type} ${c.actionId ?? '(no action_id)'} → [${surfaces.join(', ')}]`);
      }
    expect(wrong).toEqual([]);
  });

  it('every clickable element on a message is registered as a message click, and only so', () => {
    const wrong: string[] = [];
    for (const r of renders.filter((r) => r.surface === 'message'))
      for (const c of clickable(r.payload)) {
        const surfaces = c.actionId === undefined ? [] : clickSurfacesOf(h().platdesk.app, c.actionId);
        if (surfaces.length !== 1 || surfaces[0] !== 'message')
          wrong.push(`${r.name}: ${c.type} ${c.actionId ?? '(no action_id)'} → [${surfaces.join(', ')}]`);
      }
    expect(wrong).toEqual([]);
  });

  it('nothing in src/ registers a click except the registrations (message, view, Work Object panel)', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts')) files.push(path);
      }
    };
    walk('src');
    const registering = files.filter((f) => /\bapp\.action\s*[<(]/.test(readFileSync(f, 'utf8'))).sort();
    expect(registering).toEqual([
      'src/slack/clicks/entity-click.ts',
      'src/slack/clicks/message-click.ts',
      'src/slack/clicks/view-click.ts',
    ]);
  });

  it('a view click has no respond (calling it does not compile); a message click has', () => {
    expectTypeOf<ViewClick>().not.toHaveProperty('respond');
    expectTypeOf<MessageClick>().toHaveProperty('respond');
    const handler = async (click: ViewClick) => {
      // @ts-expect-error a click in a view has no response_url, so there is no respond to call
      await click.respond({ text: 'x' });
    };
    expect(typeof handler).toBe('function');
  });
});
