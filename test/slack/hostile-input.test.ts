/**
 * Hostile and random command text (issue 7, "Bad input suite"): huge strings, control
 * characters, Slack mention syntax, mrkdwn, links, Chinese, emoji, JSON, SQL, and ~200 seeded
 * mixes of them, sent to every command. The app always acks with 200, never calls the plat API
 * (at most it shows a confirmation), never lets the input mention or link anyone in what it
 * posts (DESIGN rule 7: text is escaped), and everything it posts fits Slack's limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { mulberry32, pick, randomInt } from '../../src/sandbox/prng.js';
import {
  looksLikeStackTrace,
  type PlatdeskHarness,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';

const { owners, shops, waybills, links, items } = SANDBOX_FIXTURES;

const COMMANDS = ['/item', '/shop', '/waybill', '/orders', '/platdesk'] as const;

/** What Slack itself would turn into a mention or a link (https://docs.slack.dev/messaging/formatting-message-text). */
const MENTIONS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!here|here>',
  '<@U1>',
  '<@U1|bob>',
  '<@W0ADMIN>',
  '<!subteam^S1>',
  '<!subteam^S1|@oncall>',
  '<#C1>',
  '<#C1|general>',
  '<!date^1392734382^{date_num}|x>',
];
const LINKS = [
  '@here',
  '@channel',
  'www.evil.example',
  '<https://evil.example|click>',
  '<https://evil.example>',
  '<http://evil.example/?a=1&b=2|http://item.taobao.com>',
  '<mailto:a@evil.example|mail>',
  'http://evil.example',
  'https://item.taobao.com.evil.example/item.htm?id=680001234501',
  'javascript:alert(1)',
];
const MRKDWN = [
  '*bold*',
  '_x_',
  '~y~',
  '`code`',
  '```block```',
  '> quote',
  '>>> all quoted',
  '&lt;!channel&gt;',
  '&amp;',
];
const CONTROL = [
  Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join(''),
  '\u007f',
  '\u202e',
  '\u200b',
  '\u200d',
  '\ufeff',
  '\u2028',
  '\r\n',
];
const TEXT = [
  '山间绿茶官方旗舰店',
  '订单 查询 运单号',
  '🤖👍🏽👨‍👩‍👧',
  '{"a":1,"b":[1,2],"c":{"d":null}}',
  "'; DROP TABLE ledger; --",
  '1 OR 1=1',
  '%s%n%x',
  '../../etc/passwd',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection attempt, as a user would type it
  '${process.env.PLAT_TOKEN}',
  'null',
  'undefined',
  '-1',
  '9'.repeat(40),
];
/** Fragments that take a parser deeper, so the hostile parts land where input is echoed. */
const VALID = [
  'ww',
  'help',
  'prices',
  `shop:${shops.clothing}`,
  `owner:${owners.busy}`,
  owners.busy,
  waybills.ok[0] ?? '',
  items.basic,
  links.firstMarketplace,
  'page:2',
  'size:5',
  'remark:',
  'flag:red',
  'carrier:',
  'usage',
  'shop:',
  'owner:',
  'digest',
  'digest add',
  'digest remove',
  'digest run',
];

/**
 * As long as a slash command's form may be (64 KB form-encoded: slack/request-guard.ts refuses a
 * longer one with 413 before it is read, test/security/m2-cheap-refusals.test.ts).
 */
const HUGE = [
  'A'.repeat(60_000),
  '<!channel> '.repeat(3_000),
  `ww ${'<@U1>'.repeat(5_000)}`,
  `${'SF1234567890123 '.repeat(3_500)}shop:${shops.clothing}`,
  `${owners.busy} remark:${'<!here>'.repeat(4_500)}`,
];

const FIXED = [...MENTIONS, ...LINKS, ...MRKDWN, ...CONTROL, ...TEXT, ...HUGE, '', ' ', '\t\n'];

/** ~200 seeded mixes of the pieces above, each for a command of its own. */
function randomCases(count: number, seed: number): { command: string; text: string }[] {
  const random = mulberry32(seed);
  const pieces = [...MENTIONS, ...LINKS, ...MRKDWN, ...CONTROL, ...TEXT, ...VALID];
  const separators = [' ', ' ', ' ', '', '\n', '\t', ':', '|'];
  return Array.from({ length: count }, () => {
    const parts = Array.from({ length: randomInt(random, 1, 6) }, () => pick(random, pieces));
    let text = parts.reduce((out, part) => out + pick(random, separators) + part, '');
    // Now and then a piece glued into an option's value (shop:<!here>, ww <@U1>).
    if (random() < 0.3)
      text = `${pick(random, ['ww ', 'shop:', 'owner:', 'remark:', 'page:'])}${text.trimStart()}`;
    return { command: pick(random, COMMANDS), text };
  });
}

/** Mention and link syntax Slack acts on: `<!…>`, `<@…>`, `<#…>`, `<http…>`, `<mailto:…>`. */
const LIVE = /<[!@#]|<(?:https?|mailto|tel|ftp):/i;
/**
 * What Slack turns into a link or mention by itself in a mrkdwn text object that is not
 * `verbatim` (https://docs.slack.dev/reference/block-kit/composition-objects/text-object).
 */
const AUTO = /(?:https?:\/\/|mailto:|www\.)|(?:^|[\s(])[@!](?:here|channel|everyone)\b/i;

/** mrkdwn texts Slack would auto-link or auto-mention in. */
function autoLinked(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) autoLinked(v, out);
  else if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (o.type === 'mrkdwn' && o.verbatim !== true && typeof o.text === 'string' && AUTO.test(o.text))
      out.push(o.text.slice(0, 200));
    for (const v of Object.values(o)) autoLinked(v, out);
  }
  return out;
}

describe('hostile and random command text', () => {
  let h: PlatdeskHarness;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    h = await startPlatdeskHarness();
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await h?.close();
  });

  /** Sends each case (a few at a time) and waits for its one answer, or the form it opened. */
  async function sendAll(cases: { command: string; text: string; userId?: string }[]): Promise<void> {
    const queue = [...cases];
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const views = h.fake.callsTo('views.open').length;
        const sent = await h.command(c.command, c.text, c.userId ? { userId: c.userId } : {});
        const what = `${c.command} ${JSON.stringify(c.text.slice(0, 80))}`;
        expect(sent.status, what).toBe(200);
        expect(sent.ms, what).toBeLessThan(3000);
        await expect
          .poll(() => h.responses(sent.responseUrlId).length + h.fake.callsTo('views.open').length - views, {
            timeout: 3000,
            interval: 5,
            message: `no answer to ${what}`,
          })
          .toBeGreaterThan(0);
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
  }

  /**
   * Every message posted so far that carries live mention or link syntax, or a bare URL or
   * `@here` in a mrkdwn text Slack would link by itself.
   */
  function liveMessages(): string[] {
    const messages = h.messages();
    return [
      ...messages
        .map((m) => JSON.stringify(m))
        .filter((json) => LIVE.test(json))
        .map((json) => json.slice(0, 300)),
      // The top-level text of every message (notifications; the message itself where blocks are
      // not shown) on its own, so a leak there is named as such.
      ...messages
        .map((m) => `text: ${String(m.text ?? '')}`)
        .filter((text) => LIVE.test(text))
        .map((text) => text.slice(0, 300)),
      ...autoLinked(messages.map((m) => m.blocks)),
    ];
  }

  it('the fixed hostile strings, to every command: 200, no call, nothing live, within limits', async () => {
    const before = h.calls();
    await sendAll(COMMANDS.flatMap((command) => FIXED.map((text) => ({ command, text }))));
    await h.settle(50);
    expect(h.calls()).toBe(before);
    expect(liveMessages()).toEqual([]);
    h.assertAllWithinLimits();
  });

  it('the fixed hostile strings in /orders digest commands, by an admin and by anyone: nothing live', async () => {
    const before = h.calls();
    const subcommands = [
      'digest',
      'digest add',
      'digest add clothing',
      'digest remove',
      'digest run',
      'digest list',
    ];
    await sendAll(
      subcommands.flatMap((sub) =>
        [...MENTIONS, ...LINKS, ...MRKDWN, ...CONTROL].flatMap((text) => [
          { command: '/orders', text: `${sub} ${text}` },
          { command: '/orders', text: `${sub} ${text}`, userId: SLACK.adminId },
        ]),
      ),
    );
    await h.settle(50);
    expect(h.calls()).toBe(before);
    expect(liveMessages()).toEqual([]);
    h.assertAllWithinLimits();
  });

  it('~200 seeded random mixes: 200, no call, nothing live, within limits', async () => {
    const before = h.calls();
    const cases = randomCases(200, 20_261_123);
    // The mixes reach the echoing paths: confirmations (shop ww …) and invalid-input lists.
    await sendAll(cases);
    await h.settle(50);
    expect(h.calls()).toBe(before);
    expect(liveMessages()).toEqual([]);
    h.assertAllWithinLimits();
  });

  it('input echoed back is escaped, not dropped: the user sees what they typed', async () => {
    const sent = await h.command('/waybill', `${waybills.ok[0]} x:<!channel> shop:${shops.clothing}`);
    const said = await h.nextResponse(sent.responseUrlId);
    // The fallback text (notifications) is escaped like the blocks.
    expect(said.text).toContain('unknown option x:&lt;!channel&gt;');
    expect(textOf(said)).not.toContain('<!channel>');
    const ww = await h.command('/shop', 'ww <@U1>*bold*');
    // `<` and `>` are refused in an account id; the refusal echoes nothing live.
    expect(textOf(await h.nextResponse(ww.responseUrlId))).toContain('not a messaging account id');
    const id = await h.command('/shop', 'ww a&b');
    expect(textOf(await h.nextResponse(id.responseUrlId))).toContain('account a&amp;b');
    const orders = await h.command('/orders', `${owners.busy} remark:x <https://evil.example|click>`);
    expect(textOf(await h.nextResponse(orders.responseUrlId))).toContain('give exactly one owner id');
    expect(liveMessages()).toEqual([]);
  });

  it('ids that would be echoed or sent are validated: shop: and owner: take one id', async () => {
    const before = h.calls();
    for (const option of ['shop:<!channel>', 'owner:<@U1>', 'shop:<https://evil.example|x>', 'owner:a&b']) {
      const sent = await h.command('/waybill', `${waybills.ok[0]} ${option}`);
      const said = textOf(await h.nextResponse(sent.responseUrlId));
      expect(said).toContain('takes one id');
      expect(said).toContain('Nothing was sent or charged');
    }
    await h.settle(50);
    expect(h.calls()).toBe(before);
    expect(liveMessages()).toEqual([]);
  });

  it('an admin typing hostile /platdesk settings gets refusals that mention no one', async () => {
    const before = h.calls();
    const admin = SLACK.adminId;
    const texts = [
      'access only <!channel>',
      'access only <!here> <https://evil.example|x>',
      'budget <!here> daily 5',
      'budget <@U1|x> weekly <!channel>',
      'budget timezone <!channel>',
      'shop add x owner:<!channel>',
      'shop add <@U1> owner:1',
      'shop add ok owner:1 <https://evil.example|click>',
      'shop remove <!everyone>',
      'cache <!channel> 5',
      'admins add <!channel>',
      'usage <!channel>',
      'export <!here>',
      '<!channel>',
      `audit ${'<!here>'.repeat(1000)}`,
    ];
    await sendAll(texts.map((text) => ({ command: '/platdesk', text, userId: admin })));
    await h.settle(50);
    expect(h.calls()).toBe(before);
    // Only the app's own mentions of validated ids (the admin list) may appear.
    const live = h
      .messages()
      .map((m) => JSON.stringify(m).replaceAll(`<@${admin}>`, ''))
      .filter((json) => LIVE.test(json));
    expect(live).toEqual([]);
    h.assertAllWithinLimits();
  });

  it('never crashed, never handed an error to Bolt, never showed a stack trace', () => {
    expect(unhandled).toEqual([]);
    const logs = h.logs().join('\n');
    expect(logs).not.toContain('unhandled error in a Slack listener');
    expect(logs).not.toContain('lookup crashed');
    for (const m of h.messages()) expect(looksLikeStackTrace(textOf(m))).toBe(false);
    expect(h.messages().length).toBeGreaterThan(400);
  });
});
