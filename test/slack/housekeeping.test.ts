/**
 * Rows that only grow are pruned on a schedule (issue 10) through the real app: an unused
 * confirmation, a finished one and the pager buttons of an orders page, and a handled Events API
 * id are gone once old enough; a live confirmation and a running claim stay.
 */
import { describe, expect, it } from 'vitest';
import { CONFIRMATION_KEEP_MS } from '../../src/lookups/housekeeping.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { buttonOf, SIGNING_SECRET, useHarness } from '../helpers/platdesk-harness.js';
import { postEvent } from '../helpers/slack-http.js';
import { eventCallback, linkShared } from '../helpers/slack-payloads.js';

const { items, owners } = SANDBOX_FIXTURES;
const DAY = 24 * 60 * 60 * 1000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('housekeeping', () => {
  const h = useHarness({ housekeepingEveryMs: 50 });

  it('prunes expired and finished confirmations, pager rows and event ids on its schedule, never live ones', async () => {
    const store = h().platdesk.store;
    const unused = (await h().ask('/item', items.basic)).confirmation.confirm.value ?? '';
    const { confirmation } = await h().ask('/orders', owners.busy);
    const { answer } = await h().confirm(confirmation);
    const finished = confirmation.confirm.value ?? '';
    const pager = buttonOf(answer, 'platdesk.orders.next').value ?? '';
    const event = await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(
        linkShared({ links: [{ url: SANDBOX_FIXTURES.links.firstMarketplace, domain: 'item.taobao.com' }] }),
        {
          eventId: 'EvPRUNE0001',
        },
      ),
    );
    expect(event.status).toBe(200);
    await h().settle(100);
    for (const id of [unused, finished, pager]) expect(await store.pending.get(id), id).not.toBeNull();
    // Handled: seen again it is a retry (keeping a year of ids, so this check forgets nothing).
    expect(await store.unfurls.firstSeen('EvPRUNE0001', 365 * DAY)).toBe(false);

    // Several scheduled runs: nothing recent is removed.
    await sleep(200);
    for (const id of [unused, finished, pager]) expect(await store.pending.get(id), id).not.toBeNull();

    h().advance(CONFIRMATION_KEEP_MS + DAY);
    // Made after the jump: live, and a claim held (running) by this process.
    const live = (await h().ask('/item', items.basic)).confirmation.confirm.value ?? '';
    const running = await store.pending.create({
      userId: 'U1234',
      channelId: null,
      teamId: null,
      request: {},
      quote: {},
      summary: 'x',
      responseUrl: null,
      ttlMs: 1000,
    });
    expect(
      (await store.pending.claim(running.id, 'U1234', { instanceId: 'elsewhere/1/x', leaseMs: 10 * DAY })).ok,
    ).toBe(true);
    h().advance(2000);

    await expect
      .poll(() => Promise.all([unused, finished, pager].map((id) => store.pending.get(id))), {
        timeout: 3000,
        interval: 20,
      })
      .toEqual([null, null, null]);
    expect(await store.pending.get(live)).not.toBeNull();
    expect((await store.pending.get(running.id))?.state).toBe('running');
    // The event id was forgotten: seen again, it counts as new.
    expect(await store.unfurls.firstSeen('EvPRUNE0001', 365 * DAY)).toBe(true);
  });
});
