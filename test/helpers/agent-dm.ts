/**
 * A person asks platdesk in its DM and the agent offers a plan: the `message` event Slack sends
 * (channel_type im), then the stream that ends with the plan's Confirm in that thread.
 */
import { buttonsOf, SIGNING_SECRET, textOf } from './platdesk-harness.js';
import type { FakeSlack } from './slack-api-server.js';
import { postEvent } from './slack-http.js';
import { eventCallback, SLACK } from './slack-payloads.js';

export interface OfferedPlan {
  /** The question's ts: the thread the plan and its run are in. */
  threadTs: string;
  /** The Confirm button's value (the plan's id) and label. */
  planId: string;
  label: string;
}

/** Posts `text` as the person's DM message `ts` and waits for the plan's Confirm in its thread. */
export async function askForPlan(
  app: { eventsUrl: string; fake: FakeSlack },
  ts: string,
  text: string,
  timeoutMs = 5000,
): Promise<OfferedPlan> {
  await postEvent(
    app.eventsUrl,
    SIGNING_SECRET,
    eventCallback({
      type: 'message',
      channel: SLACK.imChannelId,
      channel_type: 'im',
      user: SLACK.userId,
      text,
      ts,
      event_ts: ts,
    }),
  );
  const confirmOf = (blocks: unknown) =>
    buttonsOf({ blocks: blocks as unknown[] }).find((b) => b.actionId === 'platdesk.agent.confirm');
  const stop = await app.fake.waitFor(
    'chat.stopStream',
    (c) =>
      confirmOf(c.body.blocks) !== undefined &&
      app.fake.replies(SLACK.imChannelId, ts).some((m) => m.ts === c.body.ts),
    timeoutMs,
  );
  const confirm = confirmOf(stop.body.blocks);
  if (!confirm?.value) throw new Error(`no Confirm: ${textOf({ blocks: stop.body.blocks })}`);
  return { threadTs: ts, planId: confirm.value, label: confirm.label };
}
