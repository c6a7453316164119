/**
 * Which of Slack's read tiers a deployment's history checks keep (issue 33 finding 10), through
 * the real Bolt app against the local Slack stand-in, on both engines: a digest's post meets an
 * unclear answer (Slack stored it, then the connection was cut) and its history check reads
 *  - in distributed mode, 15 messages a request within the workspace's shared allowance (a
 *    commercially distributed app not approved for the Slack Marketplace), with the stand-in
 *    enforcing 1 request a minute: never a 429, the digest found, posted once;
 *  - with SLACK_MARKETPLACE_APPROVED=1, or in single-workspace mode (an internal app), Slack's
 *    normal tier: pages of 200.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addAdmin } from '../../src/lookups/settings.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const ADMIN = SLACK.adminId;
const CHANNEL = SLACK.channelId;
const TEAM = 'T0TIERTEAM';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let h: PlatdeskHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** The next whole hour at least an hour away, and its Shanghai wall time. */
function dueSlot(now: number): { at: number; local: string } {
  const at = Math.ceil(now / HOUR) * HOUR + HOUR;
  const hours = (new Date(at).getUTCHours() + 8) % 24;
  return { at, local: `${String(hours).padStart(2, '0')}:00` };
}

async function advance(clock: FakeClock, ms: number): Promise<void> {
  await clock.advanceAsync(ms);
  await h?.platdesk.schedulersIdle();
}

/**
 * Adds a digest as the admin of `teamId`, lets its post meet an unclear answer, runs its history
 * check; returns the check's requests to conversations.history.
 */
async function unclearDigest(clock: FakeClock, teamId?: string) {
  if (!h) throw new Error('no harness');
  const harness = h;
  const due = dueSlot(clock.now());
  const added = await harness.command(
    '/orders',
    `digest add ${SANDBOX_FIXTURES.owners.small} here ${due.local}`,
    { userId: ADMIN, ...(teamId ? { teamId } : {}) },
  );
  expect(textOf(await harness.nextResponse(added.responseUrlId))).toContain('Digest #1 added');
  harness.fake.limitReads({ perMinute: 1, pageSize: 15 });
  harness.fake.fault('chat.postMessage', 'accept-then-cut', 1, (c) => Boolean(c.body.metadata));
  await advance(clock, due.at - clock.now());
  await advance(clock, 2 * MINUTE);
  const digests = harness.fake.messages(CHANNEL).filter((m) => m.metadata?.event_type === 'platdesk_digest');
  expect(digests).toHaveLength(1);
  expect(harness.fake.rateLimited()).toHaveLength(0);
  return harness.fake.callsTo('conversations.history');
}

describe.each(ENGINES)("Slack's read tiers (%s)", (engine) => {
  const distributed = (env: Record<string, string> = {}) => {
    const clock = createFakeClock(Date.now() - 2 * HOUR);
    return {
      clock,
      start: async () => {
        h = await startPlatdeskHarness({
          clock,
          slackNow: () => clock.now(),
          engine,
          env,
          installations: async (tenant) =>
            tenant === TEAM ? { botToken: 'xoxb-tier', botUserId: 'UBOTTIER', botId: 'BBOTTIER' } : null,
          platAccounts: (baseUrl) => ({ accountFor: async () => ({ baseUrl, token: 'sandbox' }) }),
        });
        await addAdmin(h.platdesk.store.forTenant(TEAM).settings, ADMIN, ADMIN);
      },
    };
  };

  it('distributed mode: 15 messages a request within the shared allowance, never a 429, posted once', async () => {
    const { clock, start } = distributed();
    await start();
    const reads = await unclearDigest(clock, TEAM);
    expect(reads).toHaveLength(1);
    expect(reads[0]?.body.limit).toBe('15');
    expect(reads[0]?.token).toBe('xoxb-tier');
  });

  it('SLACK_MARKETPLACE_APPROVED=1 keeps the normal tier', async () => {
    const { clock, start } = distributed({ SLACK_MARKETPLACE_APPROVED: '1' });
    await start();
    const reads = await unclearDigest(clock, TEAM);
    expect(reads).toHaveLength(1);
    expect(reads[0]?.body.limit).toBe('200');
  });

  it('single-workspace mode (an internal app) keeps the normal tier', async () => {
    const clock = createFakeClock(Date.now() - 2 * HOUR);
    h = await startPlatdeskHarness({ clock, slackNow: () => clock.now(), engine });
    const reads = await unclearDigest(clock);
    expect(reads).toHaveLength(1);
    expect(reads[0]?.body.limit).toBe('200');
  });
});
