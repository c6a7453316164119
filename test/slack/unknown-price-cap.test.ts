/**
 * Caps are never passed silently (issue 10 point 4), through the real Bolt app, the fake Slack
 * Web API and the in-process sandbox (no PLAT_PRICES, so prices are unknown until a charge is
 * seen): under an active cap a lookup whose price is not known yet is refused for everyone but
 * admins, with what is left of the cap and how an admin sets the price; an admin's run holds
 * PLAT_PRICE_CEILING against the caps (issue 33 finding 7) and teaches the price; an item lookup
 * refused by a points cap speaks of quota calls, never "about 0 points".
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { confirmationOf, textOf, useHarness } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';

const { items, wwids } = SANDBOX_FIXTURES;

describe('unknown prices under an active cap', () => {
  // A call of an unknown price holds this many points against the caps (issue 33 finding 7).
  const h = useHarness({ env: { PLAT_PRICE_CEILING: '10' } });

  /** A lookup refused before any confirmation: its text; no confirmation button, no call. */
  async function refusedLookup(name: string, text: string): Promise<string> {
    const before = h().calls();
    const sent = await h().command(name, text);
    expect(sent.status).toBe(200);
    const answer = await h().nextResponse(sent.responseUrlId);
    expect(answer.response_type).toBe('ephemeral');
    expect(() => confirmationOf(answer)).toThrow();
    await h().settle(100);
    expect(h().calls()).toBe(before);
    return textOf(answer);
  }

  async function admin(text: string): Promise<string> {
    const sent = await h().command('/platdesk', text, { userId: SLACK.adminId });
    return textOf(await h().nextResponse(sent.responseUrlId));
  }

  it('without a cap, a price not known yet still asks for confirmation (nothing to protect)', async () => {
    const { confirmation } = await h().ask('/shop', `ww ${wwids.known}`);
    expect(confirmation.text).toContain('not known yet');
  });

  it('under a 12-point daily cap a non-admin is refused, told what is left and how to set the price; no call', async () => {
    expect(await admin('budget user daily 12')).toContain('12');
    const before = h().calls();
    const said = await refusedLookup('/shop', `ww ${wwids.known}`);
    expect(said).toContain('The price of Shop id is not known yet');
    expect(said).toContain('your daily cap (12 of 12 points left)');
    expect(said).toContain('PLAT_PRICES');
    expect(said).toContain('App Home (Prices)');
    expect(said).toContain('nothing was charged');
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it("an admin's lookup of an unknown price holds the ceiling: refused when it would pass what is left, saying so; no call", async () => {
    expect(await admin('budget user daily 8')).toContain('8');
    const before = h().calls();
    const sent = await h().command('/shop', `ww ${wwids.unknown}`, { userId: SLACK.adminId });
    const answer = await h().nextResponse(sent.responseUrlId);
    expect(() => confirmationOf(answer)).toThrow();
    expect(textOf(answer)).toContain(
      'This lookup (price not known yet, up to 10 points held until it is charged) would exceed your daily cap: 0 of 8 points used, by 2 points (¥0.02).',
    );
    await h().settle(100);
    expect(h().calls()).toBe(before);
    expect(await admin('budget user daily 12')).toContain('12');
  });

  it('an admin may run it (the confirmation says the price is unknown); then the price is known and others are asked', async () => {
    const { confirmation } = await h().ask('/shop', `ww ${wwids.unknown}`, { userId: SLACK.adminId });
    expect(confirmation.text).toContain('not known yet');
    const { answer } = await h().confirm(confirmation, { userId: SLACK.adminId });
    expect(textOf(answer)).toContain('Charged 2 points');

    // The charge seen is now the quote: the cap can be checked, so the agent gets a confirmation.
    const { confirmation: agents } = await h().ask('/shop', `ww ${wwids.knownChinese}`);
    expect(agents.text).toContain('2 points');
    const { answer: agentsAnswer } = await h().confirm(agents);
    expect(textOf(agentsAnswer)).toContain('Charged 2 points');
  });

  it('an item lookup refused by a points cap speaks of quota calls, not "about 0 points"; no call', async () => {
    // The agent has spent 2 points today; a 1-point cap is already passed.
    expect(await admin(`budget <@${SLACK.userId}|agent> daily 1`)).toContain('1');
    const before = h().calls();
    const said = await refusedLookup('/item', items.basic);
    expect(said).toContain('1 call of the item quota, no points');
    expect(said).toContain('your daily cap: 2 of 1 points used');
    expect(said).not.toMatch(/about 0 points/);
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });
});
