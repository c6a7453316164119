/**
 * The agent (issue 36) through the real Bolt app against the Slack stand-in: questions in the
 * Messages tab (Bolt's Assistant), in a DM and by mention are answered with a streamed plan whose
 * one Confirm states the total; nothing reaches the plat API before it; the Confirm runs once
 * (double clicks, another person's click), charges through the ledger as source 'agent', and the
 * closing line states what the ledger holds. Money on both store engines.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { buttonsOf, SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { owners, items } = SANDBOX_FIXTURES;
type Json = Record<string, unknown>;
let seq = 0;
const nextTs = () => `1700000100.${String(++seq).padStart(6, '0')}`;

describe.each(ENGINES)('the agent (%s)', (engine) => {
  const h = useHarness({ engine, env: { PLAT_PRICES: 'platdzmd:1=4,paging-orders=5' } });

  /** A person's message in their DM with platdesk (thread: the Messages tab's assistant thread). */
  function dm(text: string, opts: { user?: string; thread?: boolean; ts?: string; extra?: Json } = {}) {
    const ts = opts.ts ?? nextTs();
    const event = {
      type: 'message',
      channel: SLACK.imChannelId,
      channel_type: 'im',
      user: opts.user ?? SLACK.userId,
      text,
      ts,
      event_ts: ts,
      ...(opts.thread ? { thread_ts: ts } : {}),
      ...opts.extra,
    };
    return {
      ts,
      send: (retryNum?: number) =>
        postEvent(
          h().eventsUrl,
          SIGNING_SECRET,
          eventCallback(event),
          retryNum === undefined ? {} : { retryNum },
        ),
    };
  }

  /** The streamed reply in the thread of `ts`, once stopped. */
  async function reply(threadTs: string): Promise<{ start: SlackCall; stop: SlackCall; chunks: Json[] }> {
    const start = await h().fake.waitFor('chat.startStream', (c) => c.body.thread_ts === threadTs, 5000);
    const ts = h()
      .fake.replies(String(start.body.channel), threadTs)
      .find((m) => m.thread_ts === threadTs && m.stream)?.ts;
    const stop = await h().fake.waitFor('chat.stopStream', (c) => c.body.ts === ts, 5000);
    const chunks = h()
      .fake.calls.filter(
        (c) =>
          ['chat.startStream', 'chat.appendStream', 'chat.stopStream'].includes(c.method) &&
          (c.body.ts === ts || c === start),
      )
      .flatMap((c) => (Array.isArray(c.body.chunks) ? (c.body.chunks as Json[]) : []));
    return { start, stop, chunks };
  }

  const confirmOf = (stop: SlackCall) =>
    buttonsOf({ blocks: stop.body.blocks as unknown[] }).find((b) => b.actionId === 'platdesk.agent.confirm');
  const cancelOf = (stop: SlackCall) =>
    buttonsOf({ blocks: stop.body.blocks as unknown[] }).find((b) => b.actionId === 'platdesk.agent.stop');

  it('a question in the Messages tab: a streamed plan with its price and one Confirm; no plat call before it', async () => {
    const before = h().calls();
    const q = dm(`tracking for ZTO 773012345678901 owner:${owners.busy}`, { thread: true });
    const sent = await q.send();
    expect(sent.status).toBe(200);
    const { stop, chunks } = await reply(q.ts);
    const said = textOf({ blocks: stop.body.blocks });
    expect(said).toContain('Here is my plan.');
    expect(said).toContain('773012345678901');
    expect(said).toContain('4 points');
    const confirm = confirmOf(stop);
    expect(confirm?.label).toBe('Confirm plan (4 points)');
    expect(confirm?.style).toBe('primary');
    expect(cancelOf(stop)?.value).toBe(confirm?.value);
    // The plan as task cards: the paid step pending until the Confirm.
    expect(chunks.filter((c) => c.type === 'task_update').map((c) => c.status)).toEqual(['pending']);
    // Status while planning, through assistant.threads.setStatus.
    expect(
      h()
        .fake.callsTo('assistant.threads.setStatus')
        .some((c) => c.body.thread_ts === q.ts && c.body.status !== ''),
    ).toBe(true);
    await h().settle(100);
    expect(h().calls()).toBe(before);
    h().assertAllWithinLimits();
  });

  it('Confirm runs the plan once (double click included): one plat call, one ledger row of source agent, the summary states its charge', async () => {
    const q = dm(`tracking for ZTO 773012345678901 owner:${owners.busy}`, { thread: true });
    await q.send();
    const { stop } = await reply(q.ts);
    const confirm = confirmOf(stop);
    if (!confirm?.value) throw new Error('no Confirm');
    const before = h().calls();
    const agentRows = async () =>
      (await h().platdesk.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) })).filter(
        (r) => r.source === 'agent',
      );
    const rowsBefore = (await agentRows()).length;
    const [a, b] = await Promise.all([
      h().click('platdesk.agent.confirm', confirm.value, { label: confirm.label }),
      h().click('platdesk.agent.confirm', confirm.value, { label: confirm.label }),
    ]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    // The run's stream: task cards from in progress to complete, then the summary.
    const summary = await h().fake.waitFor(
      'chat.stopStream',
      (c) => textOf({ blocks: c.body.blocks }).includes('Plan done.'),
      8000,
    );
    await h().settle();
    expect(h().calls() - before).toBe(1);
    // The other click was told it was used, and ran nothing.
    const closed = [...h().responses(a.responseUrlId), ...h().responses(b.responseUrlId)].map((m) =>
      textOf(m),
    );
    expect(closed.join('\n')).toContain('already confirmed or cancelled');
    // The ledger: one row more, source agent, and the summary states what it holds.
    const rows = await agentRows();
    expect(rows.length - rowsBefore).toBe(1);
    const last = rows[0];
    expect(last?.operation).toBe('platdzmd');
    expect(last?.userId).toBe(SLACK.userId);
    const said = textOf({ blocks: summary.body.blocks });
    const points = last?.points ?? 0;
    expect(said).toContain(points > 0 ? `Charged ${points} point` : 'no charge reported');
    // The answer itself, as /waybill renders it, in the thread.
    const answers = h()
      .fake.callsTo('chat.postMessage')
      .filter((c) => c.body.thread_ts === q.ts);
    expect(answers.map((c) => textOf(c.body)).join('\n')).toContain('773012345678901');
    // Feedback buttons close the answer.
    expect(JSON.stringify(summary.body.blocks)).toContain('feedback_buttons');
    // Cancel after the plan finished: nothing was running, and it says so.
    const cancel = cancelOf(stop);
    const late = await h().click('platdesk.agent.stop', cancel?.value);
    expect(textOf(await h().nextResponse(late.responseUrlId))).toContain('already confirmed or cancelled');
  });

  it('Cancel: nothing runs, and a later Confirm is refused; 0 plat calls', async () => {
    const q = dm(`tracking for ZTO 773012345678901 owner:${owners.busy}`);
    await q.send();
    const { stop } = await reply(q.ts);
    const confirm = confirmOf(stop);
    const cancel = cancelOf(stop);
    if (!confirm?.value || !cancel?.value) throw new Error('no buttons');
    const before = h().calls();
    const c = await h().click('platdesk.agent.stop', cancel.value);
    expect(textOf(await h().nextResponse(c.responseUrlId))).toContain(
      'Cancelled. Nothing more will be charged.',
    );
    const late = await h().click('platdesk.agent.confirm', confirm.value);
    expect(textOf(await h().nextResponse(late.responseUrlId))).toContain('already confirmed or cancelled');
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it('a plan a cap cannot cover says which cap and by how much, and offers the steps that fit; Confirm spends within it', async () => {
    const user = 'UCAP1';
    const budgets = await h().platdesk.store.settings.get<Json>('budgets');
    await h().platdesk.store.settings.set(
      'budgets',
      { ...(budgets ?? {}), users: { [user]: { daily: 12, monthly: null } } },
      SLACK.adminId,
    );
    const q = dm(`orders of ${owners.busy} in the last 3 days`, { user });
    await q.send();
    const { stop } = await reply(q.ts);
    const said = textOf({ blocks: stop.body.blocks });
    expect(said).toContain(
      'The whole plan (15 points (¥0.15)) would pass a cap by 3 points (¥0.03) (your daily cap: 0 of 12 points used)',
    );
    // One call per day, each step naming its day.
    expect(said).toMatch(/orders of owner 2200001001, page 1 \(20 per page\), \d{4}-\d\d-\d\d 00:00 – /);
    expect(said).toContain('left out, over the cap');
    const confirm = confirmOf(stop);
    expect(confirm?.label).toBe('Confirm plan (10 points)');
    const before = h().calls();
    await h().click('platdesk.agent.confirm', confirm?.value, { userId: user, label: confirm?.label ?? '' });
    await h().fake.waitFor(
      'chat.stopStream',
      (c) =>
        textOf({ blocks: c.body.blocks }).includes('Plan done.') &&
        c.body.channel === SLACK.imChannelId &&
        h().calls() > before,
      8000,
    );
    await h().settle();
    expect(h().calls() - before).toBe(2);
  });

  it('more than 20 paid steps are refused with how to narrow it, at no cost', async () => {
    const before = h().calls();
    const q = dm(`orders of ${owners.busy} in the last 25 days`);
    await q.send();
    const { stop } = await reply(q.ts);
    expect(textOf({ blocks: stop.body.blocks })).toContain('That would take 25 paid steps; I run at most 20');
    expect(confirmOf(stop)).toBeUndefined();
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it('Cancel while the plan runs: the step under way finishes and is charged, no further step runs, the summary says so', async () => {
    h().sandbox.setFaults([{ kind: 'latency', ms: 1500, operations: ['paging-orders'] }]);
    try {
      const q = dm(`orders of ${owners.busy} in the last 3 days`);
      await q.send();
      const { stop } = await reply(q.ts);
      const confirm = confirmOf(stop);
      const cancel = cancelOf(stop);
      if (!confirm?.value || !cancel?.value) throw new Error('no buttons');
      const before = h().calls();
      await h().click('platdesk.agent.confirm', confirm.value, { label: confirm.label });
      // The run's stream opens with the first step's card in progress (its call takes 1.5 s).
      await h().fake.waitFor(
        'chat.startStream',
        (c) => c.body.thread_ts === q.ts && JSON.stringify(c.body.chunks ?? '').includes('in_progress'),
        5000,
      );
      const c = await h().click('platdesk.agent.stop', cancel.value);
      expect(textOf(await h().nextResponse(c.responseUrlId))).toContain('no further step runs');
      const summary = await h().fake.waitFor(
        'chat.stopStream',
        (x) =>
          textOf({ blocks: x.body.blocks }).includes('Plan done.') &&
          textOf({ blocks: x.body.blocks }).includes('2 steps were not run'),
        8000,
      );
      await h().settle();
      expect(h().calls() - before).toBe(1);
      const charged = (await h().platdesk.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) }))
        .filter((r) => r.source === 'agent' && r.operation === 'paging-orders')
        .slice(0, 1)
        .reduce((n, r) => n + r.points, 0);
      expect(textOf({ blocks: summary.body.blocks })).toContain(
        charged > 0 ? `Charged ${charged} point` : 'no charge reported',
      );
    } finally {
      h().sandbox.setFaults([]);
    }
  });

  it('a follow-up in the thread refers to what its answer found (“再查一下它的店铺”): the shop of that item, priced, 0 calls before Confirm', async () => {
    const link = 'https://item.taobao.com/item.htm?id=680001234501';
    const first = dm(`这个商品什么情况 ${link}`);
    await first.send();
    const { stop } = await reply(first.ts);
    const confirm = confirmOf(stop);
    if (!confirm?.value) throw new Error('no Confirm');
    await h().click('platdesk.agent.confirm', confirm.value, { label: confirm.label });
    await h().fake.waitFor(
      'chat.stopStream',
      (c) =>
        textOf({ blocks: c.body.blocks }).includes('Plan done.') &&
        h()
          .fake.replies(SLACK.imChannelId, first.ts)
          .some((m) => m.ts === c.body.ts),
      8000,
    );
    await h().settle();
    const before = h().calls();
    const ts = nextTs();
    await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback({
        type: 'message',
        channel: SLACK.imChannelId,
        channel_type: 'im',
        user: SLACK.userId,
        text: '再查一下它的店铺',
        ts,
        event_ts: ts,
        thread_ts: first.ts,
      }),
    );
    const follow = await h().fake.waitFor(
      'chat.stopStream',
      (c) =>
        textOf({ blocks: c.body.blocks }).includes('Here is my plan.') &&
        h()
          .fake.replies(SLACK.imChannelId, first.ts)
          .some((m) => m.ts === c.body.ts && m.ts > ts),
      5000,
    );
    const said = textOf({ blocks: follow.body.blocks });
    expect(said).toMatch(/shop of item 680001234501|680001234501/);
    expect(confirmOf(follow)).toBeDefined();
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it('admins see the agent’s spend: in the App Home (last 30 days, as the ledger holds it) and in /platdesk export (source agent)', async () => {
    const q = dm(`tracking for ZTO 773012345678901 owner:${owners.busy}`);
    await q.send();
    const { stop } = await reply(q.ts);
    const confirm = confirmOf(stop);
    if (!confirm?.value) throw new Error('no Confirm');
    await h().click('platdesk.agent.confirm', confirm.value, { label: confirm.label });
    await h().fake.waitFor(
      'chat.stopStream',
      (c) =>
        textOf({ blocks: c.body.blocks }).includes('Plan done.') &&
        h()
          .fake.replies(SLACK.imChannelId, q.ts)
          .some((m) => m.ts === c.body.ts),
      8000,
    );
    const store = h().platdesk.store;
    const range = {
      from: new Date(h().now().getTime() - 30 * 86_400_000),
      to: new Date(h().now().getTime() + 1000),
    };
    const agentRows = (await store.ledger.list(range)).filter((r) => r.source === 'agent');
    expect(agentRows.length).toBeGreaterThan(0);
    const points = agentRows.reduce((n, r) => n + r.points, 0);

    const published = h().fake.callsTo('views.publish').length;
    await postEvent(h().eventsUrl, SIGNING_SECRET, eventCallback(appHomeOpened(SLACK.adminId, 'home')));
    const home = await h().fake.waitFor(
      'views.publish',
      () => h().fake.callsTo('views.publish').length > published,
      5000,
    );
    const said = textOf(home.body.view);
    expect(said).toContain('The agent (last 30 days)');
    expect(said).toContain(
      `Spent through the agent: ${points} points (¥${(points / 100).toFixed(2)}) over ${agentRows.length} call`,
    );

    const sent = await h().command('/platdesk', 'export today', { userId: SLACK.adminId });
    await h().nextResponse(sent.responseUrlId);
    const upload = await h().fake.waitFor(
      'file_upload',
      (c) => (c.bytes?.toString('utf8') ?? '').includes(',agent,'),
      5000,
    );
    const lines = (upload.bytes?.toString('utf8') ?? '').trimEnd().split('\r\n');
    const header = lines[0]?.split(',') ?? [];
    const source = header.indexOf('source');
    const pending = header.indexOf('pending_id');
    const exported = lines.slice(1).map((l) => l.split(','));
    for (const row of agentRows)
      expect(exported.some((cells) => cells[pending] === row.pendingId && cells[source] === 'agent')).toBe(
        true,
      );
  });

  it('another person cannot confirm the plan', async () => {
    const q = dm(`tracking for ZTO 773012345678901 owner:${owners.busy}`);
    await q.send();
    const { stop } = await reply(q.ts);
    const confirm = confirmOf(stop);
    if (!confirm?.value) throw new Error('no Confirm');
    const before = h().calls();
    const c = await h().click('platdesk.agent.confirm', confirm.value, { userId: SLACK.secondUserId });
    expect(textOf(await h().nextResponse(c.responseUrlId))).toContain('Only the person who asked');
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });
});

describe('the agent: surfaces and bad input (sqlite)', () => {
  const h = useHarness();

  function send(event: Json & { type: string }, retryNum?: number) {
    return postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(event),
      retryNum === undefined ? {} : { retryNum },
    );
  }
  const im = (text: string, extra: Json = {}): { ts: string; event: Json & { type: string } } => {
    const ts = nextTs();
    return {
      ts,
      event: {
        type: 'message',
        channel: SLACK.imChannelId,
        channel_type: 'im',
        user: SLACK.userId,
        text,
        ts,
        event_ts: ts,
        ...extra,
      },
    };
  };
  async function stopIn(threadTs: string): Promise<string> {
    const start = await h().fake.waitFor('chat.startStream', (c) => c.body.thread_ts === threadTs, 5000);
    const ts = h()
      .fake.replies(String(start.body.channel), threadTs)
      .find((m) => m.thread_ts === threadTs && m.stream)?.ts;
    const stop = await h().fake.waitFor('chat.stopStream', (c) => c.body.ts === ts, 5000);
    return textOf({ blocks: stop.body.blocks });
  }

  it('a new Messages-tab thread gets four suggested prompts in the person’s language', async () => {
    h().fake.setLocale('UZH1', 'zh-CN');
    const threadTs = nextTs();
    await send({
      type: 'assistant_thread_started',
      assistant_thread: { user_id: 'UZH1', channel_id: 'DZH1', thread_ts: threadTs, context: {} },
      event_ts: threadTs,
    });
    const call = await h().fake.waitFor(
      'assistant.threads.setSuggestedPrompts',
      (c) => c.body.thread_ts === threadTs,
      5000,
    );
    const prompts = call.body.prompts as { title: string; message: string }[];
    expect(prompts).toHaveLength(4);
    expect(prompts[0]?.title).toBe('查运单');
    expect(String(call.body.title)).toContain('platdesk');
  });

  it('a mention in a channel is answered in its thread; a Chinese question in Chinese', async () => {
    h().fake.setLocale('UZH2', 'zh-CN');
    const ts = nextTs();
    await send({
      type: 'app_mention',
      channel: SLACK.channelId,
      user: 'UZH2',
      text: `<@${SLACK.botUserId}> 查下商品 ${items.basic}`,
      ts,
      event_ts: ts,
    });
    const said = await stopIn(ts);
    expect(said).toContain('我的计划如下');
    expect(said).toContain('确认计划');
    expect(said).toContain('商品额度 1 次');
  });

  it('help, cannot-do, a question back, empty and oversized messages: a clear answer, 0 calls', async () => {
    const before = h().calls();
    const cases: [string, string][] = [
      ['what can you do', 'Ask me in plain words'],
      ['what is the weather in Hangzhou', 'I cannot do that.'],
      ['查快递 SF1234567890123', 'Which shop?'],
      // A shop no one registered: asked back, never guessed.
      ['orders due today for shop lotus', 'No shop is registered in platdesk as lotus.'],
      ['查一下 123456', 'What is 123456: an item id, a waybill number or an owner id?'],
      [`<@${SLACK.botUserId}>`, 'Your message is empty.'],
      ['x'.repeat(2100), 'longer than 2,000 characters'],
    ];
    for (const [text, expected] of cases) {
      const m = text.startsWith('<@')
        ? (() => {
            const ts = nextTs();
            return {
              ts,
              event: {
                type: 'app_mention',
                channel: SLACK.channelId,
                user: SLACK.userId,
                text,
                ts,
                event_ts: ts,
              },
            };
          })()
        : im(text);
      await send(m.event);
      expect(await stopIn(m.ts)).toContain(expected);
    }
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it('bots are not answered; an edit is told to ask anew; a deletion is not answered; a redelivered message is answered once', async () => {
    const before = h().calls();
    const bot = im('where is SF1234567890123', { bot_id: 'B999', subtype: 'bot_message' });
    await send(bot.event);
    const deleted = nextTs();
    await send({
      type: 'message',
      subtype: 'message_deleted',
      channel: SLACK.imChannelId,
      channel_type: 'im',
      ts: deleted,
      event_ts: deleted,
      deleted_ts: '1700000100.000001',
      previous_message: {
        type: 'message',
        user: SLACK.userId,
        text: 'where is SF1234567890123',
        ts: '1700000100.000001',
      },
    });
    const q = im('what can you do');
    await send(q.event);
    await send(q.event, 1);
    await stopIn(q.ts);
    const edit = nextTs();
    await send({
      type: 'message',
      subtype: 'message_changed',
      channel: SLACK.imChannelId,
      channel_type: 'im',
      ts: edit,
      event_ts: edit,
      message: {
        type: 'message',
        user: SLACK.userId,
        text: 'where is it now',
        ts: q.ts,
        edited: { user: SLACK.userId, ts: edit },
      },
    });
    const told = await h().fake.waitFor('chat.postMessage', (c) => c.body.thread_ts === q.ts, 5000);
    expect(textOf(told.body)).toContain('I read new messages only');
    await new Promise((r) => setTimeout(r, 200));
    expect(
      h()
        .fake.callsTo('chat.startStream')
        .filter((c) => c.body.thread_ts === bot.ts),
    ).toHaveLength(0);
    expect(
      h()
        .fake.callsTo('chat.startStream')
        .filter((c) => c.body.thread_ts === q.ts),
    ).toHaveLength(1);
    // The deletion: nothing streamed or posted about it, and nothing of any of these called the plat API.
    expect(
      h().fake.calls.filter((c) => [deleted, '1700000100.000001'].includes(String(c.body.thread_ts ?? ''))),
    ).toEqual([]);
    expect(h().calls()).toBe(before);
  });

  it('feedback on an answer is kept, one vote per person and answer', async () => {
    const c = await h().click('platdesk.agent.feedback', 'good:lookup_waybill');
    expect(textOf(await h().nextResponse(c.responseUrlId))).toContain('feedback is recorded');
    const votes = await h().platdesk.store.agent.feedback(new Date(0), 10);
    expect(votes.good).toBe(1);
    expect(votes.recent[0]?.tools).toBe('lookup_waybill');
    // Admins see the votes in the App Home.
    const published = h().fake.callsTo('views.publish').length;
    await send({ ...appHomeOpened(SLACK.adminId, 'home') });
    const home = await h().fake.waitFor(
      'views.publish',
      () => h().fake.callsTo('views.publish').length > published,
      5000,
    );
    const said = textOf(home.body.view);
    expect(said).toContain('The agent (last 30 days)');
    expect(said).toContain('👍 1 · 👎 0');
  });
});
