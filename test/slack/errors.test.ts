/**
 * Failures of the plat API as the user sees them, through the sandbox's faults: each message
 * names the failure and its remedy, never a stack trace; account failures (no balance, a
 * refused token) also alert the admins by direct message.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  buttonsOf,
  type Lookup,
  looksLikeStackTrace,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';

const { owners, shops, waybills } = SANDBOX_FIXTURES;

describe('error answers', () => {
  /** A different account id each time: a successful answer may be cached, an error never is. */
  let n = 0;
  const shopIdRequest = () => `ww errors_case_${++n}`;

  const h = useHarness({
    resetSandboxAfterEach: true,
    // A short deadline so a hung call fails in milliseconds; fast retries for 101 storms.
    platTimeouts: { deadlineMs: 300 },
    platRetry: { baseDelayMs: 1, maxDelayMs: 2 },
  });

  /** A confirmed lookup (counted once no more calls arrive) whose answer is a warning, never a stack trace. */
  async function answerTo(command: string, text: string): Promise<Lookup> {
    const looked = await h().lookup(command, text, { settle: true });
    const said = textOf(looked.answer);
    expect(said).toContain(':warning:');
    expect(looksLikeStackTrace(said)).toBe(false);
    return looked;
  }

  it('an unauthorized shop (302) gets the authorization link as a button', async () => {
    const { answer, calls } = await answerTo('/orders', owners.unauthorized);
    const said = textOf(answer);
    expect(said).toContain('The shop has not authorized platdesk');
    expect(said).toContain('the shop owner must open the authorization link and scan the code');
    expect(said).toContain('code 302');
    const link = buttonsOf(answer).find((b) => b.actionId === 'platdesk.link.auth');
    expect(link?.url).toBe(SANDBOX_FIXTURES.authUrlFor(owners.unauthorized));
    expect(calls).toBe(1);
    // Clicking the URL button only has to be acknowledged.
    const click = await h().click('platdesk.link.auth', undefined);
    expect(click.status).toBe(200);
    expect(click.ms).toBeLessThan(1000);
  });

  it('an unauthorized shop on print data (302) names the waybills and the remedy', async () => {
    const { answer, calls } = await answerTo('/waybill', `${waybills.ok[0]} shop:${shops.unauthorized}`);
    const said = textOf(answer);
    expect(said).toContain('The shop has not authorized platdesk');
    expect(calls).toBe(1);
  });

  it('an empty balance (204) says so with its remedy and alerts the admins by DM', async () => {
    h().sandbox.setBalance(0);
    const { answer, calls } = await answerTo('/shop', shopIdRequest());
    const said = textOf(answer);
    expect(said).toContain('The plat account is out of balance');
    expect(said).toContain('run out of calls or balance; an admin must recharge it');
    expect(calls).toBe(1);
    const dm = await h().fake.waitFor('chat.postMessage', (c) => String(c.body.text).includes('code 204'));
    expect(dm.body.channel).toBe(SLACK.adminId);
    expect(String(dm.body.text)).toContain('out of calls or balance');
    expect(String(dm.body.text)).toContain(`<@${SLACK.userId}>`);
  });

  it('a refused token (401) says an admin must refresh it and alerts the admins by DM', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 401 }]);
    const { answer, calls } = await answerTo('/shop', shopIdRequest());
    const said = textOf(answer);
    expect(said).toContain('The plat access token is not valid');
    expect(said).toContain('an admin must refresh PLAT_TOKEN');
    expect(said).not.toContain('sandbox'); // the token itself is never shown
    expect(calls).toBe(1);
    const dm = await h().fake.waitFor('chat.postMessage', (c) => String(c.body.text).includes('code 401'));
    expect(dm.body.channel).toBe(SLACK.adminId);
    expect(String(dm.body.text)).toContain('PLAT_TOKEN');
  });

  it('three 101 answers in a row: two retries, then the timeout message', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 101, count: 3 }]);
    const { answer, calls } = await answerTo('/shop', shopIdRequest());
    const said = textOf(answer);
    expect(said).toContain('The data service timed out');
    expect(said).toContain('try again in a moment');
    expect(calls).toBe(3);
  });

  it('two 101 answers, then success: the answer comes after the retries', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 101, count: 2 }]);
    const { answer, calls } = await h().lookup('/shop', shopIdRequest(), { settle: true });
    expect(textOf(answer)).toContain('No shop was found');
    expect(calls).toBe(3);
  });

  it('a system error (200) is not retried and says whom to contact', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 200 }]);
    const { answer, calls } = await answerTo('/shop', shopIdRequest());
    const said = textOf(answer);
    expect(said).toContain('The data service reported a system error');
    expect(said).toContain('contact the data service support');
    expect(calls).toBe(1);
  });

  it('a call that never answers ends at the deadline with the timeout message', async () => {
    h().sandbox.setFaults([{ kind: 'hang', count: 1 }]);
    const { answer, calls } = await answerTo('/shop', shopIdRequest());
    const said = textOf(answer);
    expect(said).toContain('The data service did not answer in time');
    expect(said).toContain('the service may still have counted the call');
    expect(calls).toBe(1);
  });

  it('an HTML error page (HTTP 500) is an unreadable answer, not a crash', async () => {
    h().sandbox.setFaults([{ kind: 'http500', count: 1 }]);
    const { answer, calls } = await answerTo('/shop', shopIdRequest());
    expect(textOf(answer)).toContain('The data service sent an unreadable answer');
    expect(calls).toBe(1);
  });

  it('no message carries a stack trace or the plat token, and all fit Slack limits', () => {
    const everything = h()
      .messages()
      .map((m) => JSON.stringify(m));
    expect(everything.length).toBeGreaterThan(20);
    for (const m of everything) {
      expect(looksLikeStackTrace(m.replaceAll('\\n', '\n'))).toBe(false);
      expect(m).not.toContain('Bearer');
    }
    h().assertAllWithinLimits();
    // Failures are told to the user, never left to Bolt's error handler.
    expect(h().logs().join('\n')).not.toContain('unhandled error in a Slack listener');
  });
});
