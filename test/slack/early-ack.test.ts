/**
 * Ack before Bolt (issue 21.2, src/slack/early-ack.ts), through the real app in HTTP mode: a
 * signed slash command is answered 200 with an empty body before Bolt's middleware runs, and is
 * then handled as before; everything else (interactivity, ssl_check, failed checks, bodies over
 * the limit) is answered by Bolt as before. A global Bolt middleware that waits 1.5 s stands for
 * slow work before the listeners: a command's ack does not wait for it, a button click's does.
 */
import { describe, expect, it } from 'vitest';
import { SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import { signedRequest } from '../helpers/slack-http.js';
import { blockAction, slashCommand } from '../helpers/slack-payloads.js';

const SLOW_MS = 1500;

describe('slash commands are acked before Bolt', () => {
  const h = useHarness();
  let slow = false;
  let installed = false;

  function slowBolt() {
    if (!installed) {
      installed = true;
      h().platdesk.app.use(async ({ next }) => {
        if (slow) await new Promise((r) => setTimeout(r, SLOW_MS));
        await next();
      });
    }
    slow = true;
  }

  const help = (id: string, extra: { signature?: string; timestamp?: number } = {}) =>
    signedRequest(h().eventsUrl, SIGNING_SECRET, {
      kind: 'form',
      body: slashCommand({ command: '/item', text: 'help', responseUrl: h().fake.responseUrl(id) }),
      ...extra,
    });

  it('a command gets an empty 200 at once, while Bolt is slow; the answer follows as before', async () => {
    slowBolt();
    try {
      const sent = await help('early-1');
      expect(sent.status).toBe(200);
      expect(sent.body).toBe('');
      expect(sent.ms).toBeLessThan(SLOW_MS / 2);
      const started = Date.now();
      expect(textOf(await h().nextResponse('early-1', 10_000))).toContain('How to use /item');
      expect(Date.now() - started).toBeGreaterThan(SLOW_MS / 2);
    } finally {
      slow = false;
    }
  });

  it('a button click stays on Bolt’s path: its ack waits for Bolt', async () => {
    slowBolt();
    try {
      const res = await signedRequest(h().eventsUrl, SIGNING_SECRET, {
        kind: 'form',
        body: {
          payload: blockAction({
            actionId: 'platdesk.cancel',
            value: 'nothing',
            responseUrl: h().fake.responseUrl('click'),
          }),
        },
      });
      expect(res.status).toBe(200);
      expect(res.ms).toBeGreaterThanOrEqual(SLOW_MS - 50);
    } finally {
      slow = false;
    }
  });

  it('a forged or stale command is refused with 401 and never reaches a listener', async () => {
    const forged = await help('forged', { signature: 'v0=00' });
    const stale = await help('stale', { timestamp: Math.floor(Date.now() / 1000) - 10 * 60 });
    expect([forged.status, stale.status]).toEqual([401, 401]);
    await h().settle(200);
    expect(h().responses('forged')).toEqual([]);
    expect(h().responses('stale')).toEqual([]);
  });

  it('ssl_check is answered 200 with no listener run', async () => {
    const res = await signedRequest(h().eventsUrl, SIGNING_SECRET, {
      kind: 'form',
      body: {
        ssl_check: '1',
        token: 'x',
        command: '/item',
        text: 'help',
        response_url: h().fake.responseUrl('ssl'),
      },
      // Well formed (a request without one is refused before it is read) but not a valid one.
      signature: `v0=${'0'.repeat(64)}`,
    });
    expect(res.status).toBe(200);
    await h().settle(200);
    expect(h().responses('ssl')).toEqual([]);
  });

  it('a body over the size limit is refused with 413', async () => {
    const res = await signedRequest(h().eventsUrl, SIGNING_SECRET, {
      kind: 'form',
      body: {
        command: '/item',
        text: 'x'.repeat(65 * 1024),
        response_url: h().fake.responseUrl('big'),
      },
    });
    expect(res.status).toBe(413);
  });

  it('100 commands at once: every one acked empty, every one answered', async () => {
    const sent = await Promise.all(Array.from({ length: 100 }, (_, i) => help(`burst-${i}`)));
    expect(sent.map((s) => s.status)).toEqual(sent.map(() => 200));
    const answers = await Promise.all(sent.map((_, i) => h().nextResponse(`burst-${i}`, 20_000)));
    for (const answer of answers) expect(textOf(answer)).toContain('How to use /item');
    expect(h().calls()).toBe(0);
  });
});
