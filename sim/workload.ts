/**
 * The workload: what people do in a simulated run, drawn from the seed (fast-check arbitraries)
 * and then done through Slack's front door (slack-driver.ts), never through the app's insides.
 *
 * - lookups by slash command (`/shop ww`, `/shop <link>`, `/waybill`, `/item`) across users and
 *   channels, each confirmed with one click, a double click (two action_ts, often on two
 *   replicas), a redelivery (the same click again with `x-slack-retry-num`), or not at all;
 * - message shortcuts ("Look up waybills", "Look up items"): the modal's Confirm, sometimes twice;
 * - digests: scheduled ones due when the processes start (setup), and "Run now";
 * - ship-by alerts: adding one checks at once;
 * - admins' lookups whose price is not known yet (no PLAT_PRICES entry for get-shop-info);
 * - caps set before anything is spent: the workspace's, some users' and some channels'.
 */
import fc from 'fast-check';
import { ACTIONS } from '../src/blocks/action-ids.js';
import { SHOPS } from '../src/sandbox/fixtures.js';
import { SANDBOX_FIXTURES } from '../src/sandbox/index.js';
import { buttonOf, type Delivery, type SlackDriver, type SlackTarget, textOf } from './slack-driver.js';

export const USERS = ['USIM01', 'USIM02', 'USIM03', 'USIM04'] as const;
export const ADMINS = ['USIMADM1', 'USIMADM2'] as const;
export const CHANNELS = ['CSIM01', 'CSIM02', 'CSIM03'] as const;
/** Channels of the digests (one each) and of the alerts. */
export const DIGEST_CHANNELS = ['CSIMDG1', 'CSIMDG2', 'CSIMDG3', 'CSIMDG4'] as const;
export const ALERT_CHANNELS = ['CSIMAL1', 'CSIMAL2'] as const;

export type LookupKind = 'shop-ww' | 'shop-link' | 'waybill' | 'item';

export interface Click {
  replica: number;
  afterMs: number;
  /** The previous click delivered again (same action_ts, `x-slack-retry-num: 1`). */
  redelivery: boolean;
}

export type WorkloadAction =
  | {
      kind: 'lookup';
      at: number;
      user: number;
      channel: number;
      /** An admin asks (their lookups of an unknown price may run). */
      admin: boolean;
      what: LookupKind;
      /** Which argument (a unique one when past the fixtures). */
      arg: number;
      ask: number;
      clicks: Click[];
    }
  | {
      kind: 'shortcut';
      at: number;
      user: number;
      channel: number;
      what: 'waybills' | 'items';
      refs: number;
      replica: number;
      submits: number[];
    }
  | {
      /** Many people confirm distinct lookups at once, across replicas: the limiter's test. */
      kind: 'burst';
      at: number;
      size: number;
      /** The confirms are spread over this many ms. */
      spreadMs: number;
      /** Which replica the first lookup is asked on (the next ones go round). */
      replica: number;
    }
  | { kind: 'digest-run'; at: number; digest: number; replica: number }
  | { kind: 'alert-add'; at: number; channel: number; replica: number };

export interface SetupPlan {
  /** Workspace daily cap in points. */
  workspaceDaily: number;
  /** Daily caps of some users (index into USERS). */
  userDaily: { user: number; points: number }[];
  /** Daily caps of some channels (index into CHANNELS); README promises channel caps. */
  channelDaily: { channel: number; points: number }[];
  /** Digests due when the processes start (scheduled runs, claimed by whoever comes first). */
  scheduledDigests: number;
  /** Digests for "Run now" (due later today: no scheduled run of theirs in the run). */
  manualDigests: number;
  /** get-shop-info has no configured price: the first such lookups are of an unknown price. */
  unknownShopInfoPrice: boolean;
}

export function setupArbitrary(): fc.Arbitrary<SetupPlan> {
  return fc.record({
    workspaceDaily: fc.integer({ min: 80, max: 400 }),
    userDaily: fc.uniqueArray(
      fc.record({
        user: fc.integer({ min: 0, max: USERS.length - 1 }),
        points: fc.integer({ min: 8, max: 40 }),
      }),
      { maxLength: 2, selector: (c) => c.user },
    ),
    channelDaily: fc.uniqueArray(
      fc.record({
        channel: fc.integer({ min: 0, max: CHANNELS.length - 1 }),
        points: fc.integer({ min: 10, max: 60 }),
      }),
      { maxLength: 1, selector: (c) => c.channel },
    ),
    scheduledDigests: fc.integer({ min: 0, max: 2 }),
    manualDigests: fc.integer({ min: 1, max: 2 }),
    unknownShopInfoPrice: fc.boolean(),
  });
}

function clicksArbitrary(replicas: number): fc.Arbitrary<Click[]> {
  const replica = fc.integer({ min: 0, max: replicas - 1 });
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.tuple(replica, fc.integer({ min: 0, max: 800 })).map(([r, d]) => [click(r, d)]),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(replica, replica, fc.integer({ min: 0, max: 800 }), fc.integer({ min: 0, max: 300 }))
        .map(([a, b, d, gap]) => [click(a, d), click(b, d + gap)]),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(replica, replica, fc.integer({ min: 0, max: 800 }), fc.integer({ min: 200, max: 3500 }))
        .map(([a, b, d, gap]) => [click(a, d), { ...click(b, d + gap), redelivery: true }]),
    },
    { weight: 1, arbitrary: fc.constant([] as Click[]) },
  );
}

const click = (replica: number, afterMs: number): Click => ({ replica, afterMs, redelivery: false });

export function workloadArbitrary(replicas: number, spanMs: number): fc.Arbitrary<WorkloadAction[]> {
  const at = fc.integer({ min: 0, max: spanMs });
  const replica = fc.integer({ min: 0, max: replicas - 1 });
  const lookup = fc.record({
    kind: fc.constant('lookup' as const),
    at,
    user: fc.integer({ min: 0, max: USERS.length - 1 }),
    channel: fc.integer({ min: 0, max: CHANNELS.length - 1 }),
    admin: fc.boolean(),
    what: fc.constantFrom<LookupKind>('shop-ww', 'shop-ww', 'waybill', 'waybill', 'shop-link', 'item'),
    arg: fc.integer({ min: 0, max: 12 }),
    ask: replica,
    clicks: clicksArbitrary(replicas),
  });
  const shortcut = fc.record({
    kind: fc.constant('shortcut' as const),
    at,
    user: fc.integer({ min: 0, max: USERS.length - 1 }),
    channel: fc.integer({ min: 0, max: CHANNELS.length - 1 }),
    what: fc.constantFrom<'waybills' | 'items'>('waybills', 'items'),
    refs: fc.integer({ min: 1, max: 3 }),
    replica,
    submits: fc.array(replica, { minLength: 1, maxLength: 2 }),
  });
  const burst = fc.record({
    kind: fc.constant('burst' as const),
    at,
    size: fc.integer({ min: 6, max: 20 }),
    spreadMs: fc.integer({ min: 0, max: 600 }),
    replica,
  });
  const digestRun = fc.record({
    kind: fc.constant('digest-run' as const),
    at,
    digest: fc.integer({ min: 0, max: 1 }),
    replica,
  });
  const alertAdd = fc.record({
    kind: fc.constant('alert-add' as const),
    at,
    channel: fc.integer({ min: 0, max: ALERT_CHANNELS.length - 1 }),
    replica,
  });
  return fc
    .tuple(
      fc.array(lookup, { minLength: 6, maxLength: 16 }),
      fc.array(burst, { minLength: 1, maxLength: 2 }),
      fc.array(shortcut, { maxLength: 2 }),
      fc.array(digestRun, { maxLength: 2 }),
      fc.array(alertAdd, { maxLength: 1 }),
    )
    .map(([a, b, c, d, e]) => [...a, ...b, ...c, ...d, ...e]);
}

// ---- doing it ----------------------------------------------------------------------------------

/** What the workload saw of one action (for the report; the checker does not trust it). */
export interface ActionOutcome {
  action: WorkloadAction;
  /** A few words: "confirmed 2×, answered", "refused: cap", "not acked". */
  result: string;
}

export interface WorkloadContext {
  slack: SlackDriver;
  /** Where Slack delivers a request meant for `replica` (a live one: a load balancer's choice). */
  target(replica: number): SlackTarget;
  /** Subscription ids of the "Run now" digests. */
  manualDigests: readonly number[];
  /** Owner id the alerts watch. */
  alertOwner: string;
  /** Unique per run: makes each argument past the fixtures distinct. */
  runTag: string;
  sleep(ms: number): Promise<void>;
}

/** Generous: the machine may be loaded, and a slow answer is not what the checker judges. */
const ANSWER_WAIT_MS = 15_000;
const FINAL_WAIT_MS = 25_000;
const LOOKING_UP = 'Looking up';

/** The text a lookup kind sends, for its argument. */
export function lookupText(what: LookupKind, arg: number, tag: string): { command: string; text: string } {
  const { waybills, links, items, wwids } = SANDBOX_FIXTURES;
  switch (what) {
    case 'shop-ww':
      // Known ids repeat (cache and single flight); the others are distinct, each a charged call.
      return { command: '/shop', text: `ww ${arg < 2 ? wwids.known : `${tag}x${arg}`}` };
    case 'shop-link': {
      const list = [links.firstMarketplace, links.brandedStore, links.mobile];
      return { command: '/shop', text: list[arg % list.length] ?? links.firstMarketplace };
    }
    case 'waybill': {
      // Print data by shop (platdybw), or waybill information by owner (platdzmd) for numbers
      // whose carrier their shape tells.
      const byShop = arg % 2 === 0;
      const ok = byShop ? waybills.ok : waybills.ok.filter((n) => /^[A-Z]/.test(n));
      const numbers = Array.from({ length: 1 + (arg % 3) }, (_, i) => ok[(arg + i) % ok.length]).join(' ');
      const whose = byShop ? `shop:${SHOPS.clothing.shopId}` : `owner:${SHOPS.clothing.ownerId}`;
      return { command: '/waybill', text: `${numbers} ${whose}` };
    }
    case 'item': {
      const list = [items.basic, items.withVideo, items.manySkus, items.tea];
      return { command: '/item', text: list[arg % list.length] ?? items.basic };
    }
  }
}

const describe = (d: Delivery) => (d.ok ? `HTTP ${d.status}` : `not acked (${d.reason})`);

export async function doAction(
  action: WorkloadAction,
  n: number,
  ctx: WorkloadContext,
): Promise<ActionOutcome> {
  try {
    switch (action.kind) {
      case 'lookup':
        return { action, result: await doLookup(action, n, ctx) };
      case 'shortcut':
        return { action, result: await doShortcut(action, n, ctx) };
      case 'burst':
        return { action, result: await doBurst(action, n, ctx) };
      case 'digest-run':
        return { action, result: await doDigestRun(action, ctx) };
      case 'alert-add':
        return { action, result: await doAlertAdd(action, ctx) };
    }
  } catch (error) {
    return { action, result: `error: ${error instanceof Error ? error.message : String(error)}` };
  }
}

async function doLookup(
  action: Extract<WorkloadAction, { kind: 'lookup' }>,
  n: number,
  ctx: WorkloadContext,
): Promise<string> {
  const { slack } = ctx;
  const userId = action.admin
    ? (ADMINS[action.user % ADMINS.length] ?? ADMINS[0])
    : (USERS[action.user] ?? USERS[0]);
  const channelId = CHANNELS[action.channel] ?? CHANNELS[0];
  const { command, text } = lookupText(action.what, action.arg, ctx.runTag);
  const askId = slack.nextId('ask');
  const asked = await slack.command(ctx.target(action.ask), {
    command,
    text,
    userId,
    channelId,
    responseUrlId: askId,
  });
  if (!asked.ok || asked.status !== 200) return `ask ${describe(asked)}`;
  const first = await slack.response(askId, () => true, ANSWER_WAIT_MS);
  if (!first) return 'no answer to the command';
  const confirm = buttonOf(first, ACTIONS.confirm);
  if (!confirm) return `answered without a confirmation: ${textOf(first).slice(0, 80).replace(/\s+/g, ' ')}`;
  if (action.clicks.length === 0) return 'confirmation left unclicked';
  const actionTs = `${Math.floor(Date.now() / 1000)}.${String(n).padStart(6, '0')}`;
  let last = { ts: actionTs, responseUrlId: '' };
  let clickNo = 0;
  const answers: Promise<string>[] = [];
  for (const c of action.clicks) {
    await ctx.sleep(c.afterMs);
    clickNo += 1;
    // A redelivery is the previous click's payload again: its action_ts and response_url.
    const ts = c.redelivery ? last.ts : `${actionTs}${clickNo}`;
    const responseUrlId = c.redelivery && last.responseUrlId ? last.responseUrlId : slack.nextId('click');
    last = { ts, responseUrlId };
    const sent = await slack.click(ctx.target(c.replica), {
      actionId: ACTIONS.confirm,
      value: confirm.value,
      label: confirm.label,
      userId,
      channelId,
      responseUrlId,
      actionTs: ts,
      ...(c.redelivery ? { retryNum: 1 } : {}),
    });
    // Only the first click is answered; a second one on a running lookup gets no message
    // (docs/money.md), a redelivery is dropped.
    if (clickNo > 1) {
      answers.push(Promise.resolve(`${c.redelivery ? 'redelivered' : 'clicked again'}: ${describe(sent)}`));
      continue;
    }
    answers.push(
      sent.ok
        ? slack
            .response(responseUrlId, (b) => !textOf(b).includes(LOOKING_UP), FINAL_WAIT_MS)
            .then((b) => (b ? textOf(b).slice(0, 60).replace(/\s+/g, ' ') : 'no final answer'))
        : Promise.resolve(describe(sent)),
    );
  }
  const said = await Promise.all(answers);
  return `clicked ${action.clicks.length}×: ${said.join(' | ')}`;
}

async function doBurst(
  action: Extract<WorkloadAction, { kind: 'burst' }>,
  n: number,
  ctx: WorkloadContext,
): Promise<string> {
  const { slack } = ctx;
  const replicas = (i: number) => action.replica + i;
  const asked = await Promise.all(
    Array.from({ length: action.size }, async (_, i) => {
      const userId = USERS[i % USERS.length] ?? USERS[0];
      const channelId = CHANNELS[i % CHANNELS.length] ?? CHANNELS[0];
      const responseUrlId = slack.nextId('burst-ask');
      const sent = await slack.command(ctx.target(replicas(i)), {
        command: '/shop',
        text: `ww ${ctx.runTag}b${n}x${i}`,
        userId,
        channelId,
        responseUrlId,
      });
      const answer = sent.ok ? await slack.response(responseUrlId, () => true, ANSWER_WAIT_MS) : null;
      const confirm = answer ? buttonOf(answer, ACTIONS.confirm) : null;
      return confirm ? { i, userId, channelId, confirm } : null;
    }),
  );
  const ready = asked.filter((a) => a !== null);
  const answered = await Promise.all(
    ready.map(async ({ i, userId, channelId, confirm }) => {
      await ctx.sleep((i * action.spreadMs) / action.size);
      const responseUrlId = slack.nextId('burst-click');
      const sent = await slack.click(ctx.target(replicas(i + 1)), {
        actionId: ACTIONS.confirm,
        value: confirm.value,
        label: confirm.label,
        userId,
        channelId,
        responseUrlId,
        actionTs: `${Math.floor(Date.now() / 1000)}.${String(n).padStart(4, '0')}${String(i).padStart(2, '0')}`,
      });
      if (!sent.ok) return false;
      return (
        (await slack.response(responseUrlId, (b) => !textOf(b).includes(LOOKING_UP), FINAL_WAIT_MS)) !== null
      );
    }),
  );
  return `${action.size} asked, ${ready.length} confirmations, ${answered.filter(Boolean).length} answered`;
}

async function doShortcut(
  action: Extract<WorkloadAction, { kind: 'shortcut' }>,
  n: number,
  ctx: WorkloadContext,
): Promise<string> {
  const { slack } = ctx;
  const userId = USERS[action.user] ?? USERS[0];
  const channelId = CHANNELS[action.channel] ?? CHANNELS[0];
  const { waybills, items } = SANDBOX_FIXTURES;
  const refs =
    action.what === 'waybills'
      ? waybills.ok.slice(0, action.refs)
      : [items.basic, items.withVideo, items.tea]
          .slice(0, action.refs)
          .map((id) => `https://item.taobao.com/item.htm?id=${id}`);
  const triggerId = `${ctx.runTag}.${n}.shortcut`;
  const sent = await slack.messageShortcut(ctx.target(action.replica), {
    callbackId: action.what === 'waybills' ? 'platdesk.shortcut.waybills' : 'platdesk.shortcut.items',
    text: `please check ${refs.join(' and ')}`,
    userId,
    channelId,
    triggerId,
    responseUrlId: slack.nextId('shortcut'),
  });
  if (!sent.ok) return `shortcut ${describe(sent)}`;
  const view = await slack.viewOpened(triggerId, ANSWER_WAIT_MS);
  if (!view) return 'no modal opened';
  const values = chooseAll(view);
  const results: string[] = [];
  for (const replica of action.submits) {
    const submitted = await slack.viewSubmission(ctx.target(replica), {
      callbackId: String(view.callback_id ?? ''),
      privateMetadata: String(view.private_metadata ?? ''),
      values,
      userId,
      triggerId: `${triggerId}.submit`,
    });
    results.push(describe(submitted));
  }
  return `modal submitted ${action.submits.length}×: ${results.join(', ')}`;
}

/** The modal's state with every offered lookup chosen, answered to the user only. */
function chooseAll(view: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const blocks = Array.isArray(view.blocks) ? (view.blocks as Record<string, unknown>[]) : [];
  for (const b of blocks) {
    const el = b.element as Record<string, unknown> | undefined;
    if (b.type !== 'input' || !el || el.type !== 'checkboxes') continue;
    values[String(b.block_id)] = {
      [String(el.action_id)]: { type: 'checkboxes', selected_options: el.options },
    };
  }
  values.answer = { 'platdesk.shortcut.answer': { type: 'radio_buttons', selected_option: { value: 'me' } } };
  return values;
}

async function doDigestRun(
  action: Extract<WorkloadAction, { kind: 'digest-run' }>,
  ctx: WorkloadContext,
): Promise<string> {
  const id = ctx.manualDigests[action.digest % Math.max(1, ctx.manualDigests.length)];
  if (id === undefined) return 'no manual digest';
  const responseUrlId = ctx.slack.nextId('digest');
  const sent = await ctx.slack.command(ctx.target(action.replica), {
    command: '/orders',
    text: `digest run ${id}`,
    userId: ADMINS[0],
    channelId: CHANNELS[0],
    responseUrlId,
  });
  if (!sent.ok) return `digest run ${describe(sent)}`;
  const answer = await ctx.slack.response(responseUrlId, () => true, FINAL_WAIT_MS);
  return answer ? textOf(answer).slice(0, 80).replace(/\s+/g, ' ') : 'no answer';
}

async function doAlertAdd(
  action: Extract<WorkloadAction, { kind: 'alert-add' }>,
  ctx: WorkloadContext,
): Promise<string> {
  const channel = ALERT_CHANNELS[action.channel] ?? ALERT_CHANNELS[0];
  const responseUrlId = ctx.slack.nextId('alert');
  const sent = await ctx.slack.command(ctx.target(action.replica), {
    command: '/orders',
    text: `alert add ${ctx.alertOwner} <#${channel}|${channel.toLowerCase()}> within:12 hours:00:00-23:59 UTC`,
    userId: ADMINS[0],
    channelId: channel,
    responseUrlId,
  });
  if (!sent.ok) return `alert add ${describe(sent)}`;
  const answer = await ctx.slack.response(responseUrlId, () => true, ANSWER_WAIT_MS);
  return answer ? textOf(answer).slice(0, 80).replace(/\s+/g, ' ') : 'no answer';
}
