/**
 * Item links pasted into channels (issue 5). An unfurl never charges by itself: it says what the
 * link is and offers the lookup with its charge. Only in a channel an admin set to auto-lookup
 * does it look the item up without asking, within the channel's daily cap. The same item in the
 * same channel within 30 minutes is answered from the earlier result, and a Slack delivery seen
 * before (a retry, spec/notes.md "Slack") is never handled twice.
 *
 * link_shared fires in the composer (channel "COMPOSER": the channel is not known yet) and after
 * posting. A composer unfurl never looks anything up, so the pair can cost at most once.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { PlatNoAccountError } from '../plat/errors.js';
import type { Store, UnfurlRecord } from '../store/store.js';
import type { Refusal } from './access.js';
import { periodStarts } from './budgets.js';
import type { Actor, LookupService } from './lookup-service.js';
import { summarize } from './lookup-service.js';
import { type ItemRef, parseItemRef } from './parse/item-link.js';
import type { SpendSettings } from './settings.js';
import type { LookupOutcome, LookupRequest, Quote } from './types.js';

/** Issue 5: the same item in the same channel within 30 minutes is not looked up again. */
export const UNFURL_REPEAT_MS = 30 * 60 * 1000;
/** Slack retries an event within minutes; an hour of ids is plenty and stays small. */
export const EVENT_MEMORY_MS = 60 * 60 * 1000;
/** The cap of a channel set to auto-lookup without a number. */
export const DEFAULT_AUTO_CAP = 20;
export const MAX_AUTO_CAP = 1000;
/** Unfurl records, day counts and old shortcut offers are kept this long (the window and today suffice). */
export const UNFURL_KEEP_MS = 3 * 24 * 60 * 60 * 1000;
/** Links handled per message (Slack sends every link of a message in one event). */
export const MAX_LINKS_PER_EVENT = 10;

export const AUTO_LOOKUP_KEY = 'autolookup';

export const autoLookupSchema = lazySchema(() =>
  z.object({
    /** Channel id → its daily cap of automatic lookups. */
    channels: z.record(z.string(), z.object({ cap: z.number().int().min(1).max(MAX_AUTO_CAP) })).default({}),
  }),
);
export type AutoLookupSettings = z.infer<typeof autoLookupSchema>;

/** The auto-lookup channels, validated on read (a bad stored value means: none). */
export function autoLookupSettings(settings: Store['settings']) {
  const read = async (): Promise<AutoLookupSettings> => {
    const parsed = autoLookupSchema.safeParse((await settings.get(AUTO_LOOKUP_KEY)) ?? {});
    return parsed.success ? parsed.data : { channels: {} };
  };
  return {
    get: read,
    capOf: async (channelId: string): Promise<number | null> =>
      (await read()).channels[channelId]?.cap ?? null,
    /** Turns a channel on (with its cap) or off; audited with who did it. */
    async set(channelId: string, cap: number | null, actorId: string): Promise<AutoLookupSettings> {
      const current = await read();
      const channels = { ...current.channels };
      if (cap === null) delete channels[channelId];
      else channels[channelId] = { cap };
      const next = autoLookupSchema.parse({ channels });
      await settings.set(AUTO_LOOKUP_KEY, next, actorId);
      return next;
    },
  };
}

/** The day automatic lookups are counted in: the budgets' zone (the marketplaces' time by default). */
export async function autoLookupDay(now: Date, spend: SpendSettings): Promise<string> {
  return periodStarts(now, (await spend.budgets()).timezone)
    .day.toISOString()
    .slice(0, 10);
}

export interface EarlierResult {
  outcome: Extract<LookupOutcome, { kind: 'item' }>;
  at: Date;
  userId: string;
  auto: boolean;
}

type ItemOk = Extract<ItemRef, { ok: true }>;

/** Why an unfurl offers the button instead of an automatic answer, in an auto-lookup channel. */
export type AutoNote =
  | { kind: 'capped'; used: number; cap: number }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'running' }
  | { kind: 'failed_earlier'; at: Date };

export type UnfurlDecision =
  | { kind: 'short_link'; url: string }
  /** The workspace has no plat account yet: what the link is, and no Look up button. */
  | { kind: 'no_account'; url: string; ref: ItemOk }
  /** What the link is and a Look up button stating the charge. */
  | { kind: 'offer'; url: string; ref: ItemOk; quote: Quote; note: AutoNote | null }
  /** Looked up in this channel within the window: shown again, no new lookup. */
  | { kind: 'earlier'; url: string; ref: ItemOk; quote: Quote; earlier: EarlierResult }
  /** Looked up automatically now. `cached`: the answer came from the cache (no charge, not counted). */
  | {
      kind: 'auto';
      url: string;
      ref: ItemOk;
      quote: Quote;
      outcome: Extract<LookupOutcome, { kind: 'item' }> & { shared?: boolean };
      used: number;
      cap: number;
      cached: { ageMs: number } | null;
    }
  /** The automatic lookup was made and failed (it may still have been charged). */
  | {
      kind: 'auto_failed';
      url: string;
      ref: ItemOk;
      quote: Quote;
      error: unknown;
      used: number;
      cap: number;
    };

export interface UnfurlPlace {
  /** null in the composer: the channel is not known yet. */
  channelId: string | null;
  /** The link's poster: the actor of an automatic lookup (access, budgets and ledger are theirs). */
  userId: string;
  teamId: string | null;
}

export interface UnfurlService {
  /** False when this Events API delivery was handled before (a retry): do nothing. */
  firstDelivery(eventId: string): Promise<boolean>;
  /** What to show for one link; looks the item up only in an auto-lookup channel. */
  decide(url: string, place: UnfurlPlace): Promise<UnfurlDecision | null>;
  /** The earlier result of an item in a channel within the window, if any. */
  earlier(channelId: string, itemId: string): Promise<EarlierResult | null>;
  /** A Look up click was offered this pending lookup: its result becomes the earlier result. */
  rememberOffered(channelId: string, itemId: string, userId: string, pendingId: string): Promise<void>;
}

export const itemRequest = (itemId: string): LookupRequest => ({ kind: 'item', itemId, withPrices: false });

function parseItemOutcome(json: string | null): EarlierResult['outcome'] | null {
  if (!json) return null;
  try {
    const value = JSON.parse(json) as LookupOutcome;
    return value && value.kind === 'item' ? value : null;
  } catch {
    return null;
  }
}

export function createUnfurlService(deps: {
  lookups: LookupService;
  store: Store;
  now: () => Date;
}): UnfurlService {
  const { lookups, store, now } = deps;
  const auto = autoLookupSettings(store.settings);
  /** Automatic lookups running in this process, so a second unfurl of the item can wait for the first. */
  const running = new Map<number, Promise<unknown>>();
  const since = () => new Date(now().getTime() - UNFURL_REPEAT_MS);

  type Scan = { done: EarlierResult | null; running: UnfurlRecord | null; failed: UnfurlRecord | null };
  async function scan(channelId: string, itemId: string): Promise<Scan> {
    const out: Scan = { done: null, running: null, failed: null };
    for (const r of await store.unfurls.recent(channelId, itemId, since())) {
      if (r.state === 'done') {
        const outcome = parseItemOutcome(r.outcomeJson);
        if (outcome) {
          out.done = { outcome, at: r.createdAt, userId: r.userId, auto: r.auto };
          return out;
        }
      } else if (r.state === 'offered' && r.pendingId) {
        const pending = await store.pending.get(r.pendingId);
        const outcome = pending?.state === 'done' ? parseItemOutcome(pending.resultJson) : null;
        if (pending && outcome) {
          out.done = { outcome, at: pending.stateChangedAt, userId: pending.userId, auto: false };
          return out;
        }
      } else if (r.state === 'running') out.running ??= r;
      else if (r.state === 'failed') out.failed ??= r;
    }
    return out;
  }

  async function autoLookup(
    url: string,
    ref: ItemOk,
    quote: Quote,
    channelId: string,
    cap: number,
    actor: Actor,
  ): Promise<UnfurlDecision> {
    const request = itemRequest(ref.itemId);
    const day = await autoLookupDay(now(), lookups.settings);
    const begun = await store.unfurls.beginAuto({
      channelId,
      itemId: ref.itemId,
      userId: actor.userId,
      since: since(),
      day,
      cap,
    });
    if (!begun.started) {
      if (begun.reason === 'capped')
        return { kind: 'offer', url, ref, quote, note: { kind: 'capped', used: begun.used, cap } };
      // Another delivery got there first: wait for it when it runs here, then show its result.
      await running.get(begun.record.id)?.catch(() => undefined);
      const again = await scan(channelId, ref.itemId);
      if (again.done) return { kind: 'earlier', url, ref, quote, earlier: again.done };
      if (again.failed)
        return {
          kind: 'offer',
          url,
          ref,
          quote,
          note: { kind: 'failed_earlier', at: again.failed.createdAt },
        };
      return { kind: 'offer', url, ref, quote, note: { kind: 'running' } };
    }
    const record = begun.record;
    const work = (async (): Promise<UnfurlDecision> => {
      const prepared = await lookups.prepare(request, actor, summarize(request), { allowAuto: false });
      switch (prepared.kind) {
        case 'refused':
          await store.unfurls.abandonAuto(record.id, day);
          return { kind: 'offer', url, ref, quote, note: { kind: 'refused', refusal: prepared.refusal } };
        case 'cached': {
          const outcome = prepared.outcome;
          if (outcome.kind !== 'item') throw new Error('cached outcome of an item request is not an item');
          // No call: keep it as the earlier result, but it does not count against the cap.
          await store.unfurls.abandonAuto(record.id, day, { outcomeJson: JSON.stringify(outcome) });
          return {
            kind: 'auto',
            url,
            ref,
            quote,
            outcome,
            used: begun.used - 1,
            cap,
            cached: { ageMs: prepared.ageMs },
          };
        }
        case 'auto':
        case 'confirm': {
          const claimed =
            prepared.kind === 'auto'
              ? { ok: true as const, pending: prepared.pending }
              : await lookups.claim(prepared.pending.id, actor.userId);
          if (!claimed.ok) {
            await store.unfurls.abandonAuto(record.id, day);
            return { kind: 'offer', url, ref, quote, note: { kind: 'running' } };
          }
          try {
            const outcome = await lookups.run(claimed.pending, {
              source: 'unfurl',
              resultJson: (o) => (o.kind === 'item' ? JSON.stringify(o) : null),
            });
            if (outcome.kind !== 'item') throw new Error('item request answered with another kind');
            await store.unfurls.finishAuto(record.id, 'done', JSON.stringify(outcome), claimed.pending.id);
            return { kind: 'auto', url, ref, quote, outcome, used: begun.used, cap, cached: null };
          } catch (error) {
            await store.unfurls
              .finishAuto(record.id, 'failed', null, claimed.pending.id)
              .catch(() => undefined);
            return { kind: 'auto_failed', url, ref, quote, error, used: begun.used, cap };
          }
        }
      }
    })();
    running.set(record.id, work);
    try {
      return await work;
    } catch (error) {
      await store.unfurls.finishAuto(record.id, 'failed', null, null).catch(() => undefined);
      throw error;
    } finally {
      running.delete(record.id);
    }
  }

  return {
    async firstDelivery(eventId) {
      const first = await store.unfurls.firstSeen(eventId, EVENT_MEMORY_MS);
      if (first) await store.unfurls.prune(new Date(now().getTime() - UNFURL_KEEP_MS));
      return first;
    },

    async decide(url, place) {
      const ref = parseItemRef(url);
      if (!ref.ok) return ref.reason === 'short_link' ? { kind: 'short_link', url } : null;
      let quote: Quote;
      try {
        quote = await lookups.quote(itemRequest(ref.itemId));
      } catch (error) {
        if (error instanceof PlatNoAccountError) return { kind: 'no_account', url, ref };
        throw error;
      }
      if (place.channelId === null) return { kind: 'offer', url, ref, quote, note: null };
      const found = await scan(place.channelId, ref.itemId);
      if (found.done) return { kind: 'earlier', url, ref, quote, earlier: found.done };
      const cap = await auto.capOf(place.channelId);
      if (cap === null) return { kind: 'offer', url, ref, quote, note: null };
      if (found.failed && !found.running)
        return {
          kind: 'offer',
          url,
          ref,
          quote,
          note: { kind: 'failed_earlier', at: found.failed.createdAt },
        };
      return autoLookup(url, ref, quote, place.channelId, cap, {
        userId: place.userId,
        channelId: place.channelId,
        teamId: place.teamId,
        responseUrl: null,
      });
    },

    earlier: async (channelId, itemId) => (await scan(channelId, itemId)).done,

    async rememberOffered(channelId, itemId, userId, pendingId) {
      await store.unfurls.recordOffered({ channelId, itemId, userId, pendingId });
    },
  };
}

// ---- /platdesk autolookup [#channel on|off [cap N]] -----------------------------------------

/** The auto-lookup channels, with today's use; `changed`: the channel just set (cap null: turned off). */
export interface AutoLookupView {
  channels: { channelId: string; cap: number; usedToday: number }[];
  changed: { channelId: string; cap: number | null } | null;
}

export type AutoLookupCommandResult =
  | { kind: 'autolookup'; view: AutoLookupView }
  | {
      kind: 'invalid';
      problems: {
        code: 'autolookup_channel' | 'autolookup_usage' | 'autolookup_cap';
        values?: Record<string, number>;
      }[];
    };

/** The channels and their caps, with today's use. */
export async function autoLookupChannels(
  store: Store,
  spend: SpendSettings,
  now: Date,
): Promise<AutoLookupView['channels']> {
  const day = await autoLookupDay(now, spend);
  const channels = Object.entries((await autoLookupSettings(store.settings).get()).channels);
  return Promise.all(
    channels.map(async ([channelId, { cap }]) => ({
      channelId,
      cap,
      usedToday: await store.unfurls.autoUsed(channelId, day),
    })),
  );
}

/**
 * `/platdesk autolookup` lists; `#channel on [cap N]` / `#channel off` changes (admins only,
 * checked by the caller). `channelId` is parsed from the escaped mention by the caller.
 */
export async function runAutoLookupCommand(
  args: { channelId: string | null; rest: string[] },
  ctx: { store: Store; spend: SpendSettings; userId: string; now: Date },
): Promise<AutoLookupCommandResult> {
  const { channelId, rest } = args;
  const view = async (changed: AutoLookupView['changed']): Promise<AutoLookupCommandResult> => ({
    kind: 'autolookup',
    view: { channels: await autoLookupChannels(ctx.store, ctx.spend, ctx.now), changed },
  });
  if (channelId === null && rest.length === 0) return view(null);
  const usage: AutoLookupCommandResult = { kind: 'invalid', problems: [{ code: 'autolookup_usage' }] };
  if (channelId === null) return { kind: 'invalid', problems: [{ code: 'autolookup_channel' }] };
  const [mode = '', capWord, capValue] = rest.map((t) => t.toLowerCase());
  let cap: number | null;
  if (mode === 'off') {
    if (rest.length > 1) return usage;
    cap = null;
  } else if (mode === 'on') {
    if (capWord === undefined) cap = DEFAULT_AUTO_CAP;
    else if (capWord === 'cap' && capValue !== undefined && /^\d{1,4}$/.test(capValue))
      cap = Number(capValue);
    else return usage;
    if (cap < 1 || cap > MAX_AUTO_CAP)
      return { kind: 'invalid', problems: [{ code: 'autolookup_cap', values: { max: MAX_AUTO_CAP } }] };
  } else return usage;
  await autoLookupSettings(ctx.store.settings).set(channelId, cap, ctx.userId);
  return view({ channelId, cap });
}
