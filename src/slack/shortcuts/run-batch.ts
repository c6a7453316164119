/**
 * Runs the lookups a shortcut's Confirm claimed, one after the other, each through the lookup
 * service like any confirmed lookup (access, budgets, cache, ledger), answered where the user
 * chose: in a thread under the message, or only to them. Every answer states its own charge.
 */
import type { WebClient } from '@slack/web-api';
import { renderRefusal } from '../../blocks/spend.js';
import type { Actor } from '../../lookups/lookup-service.js';
import type { PlannedLookup } from '../../lookups/shortcut-lookups.js';
import { answerOf, type Reply, runAndAnswer } from '../answer.js';
import type { SlackDeps } from '../deps.js';

export type Destination =
  | { kind: 'thread'; channelId: string; threadTs: string }
  | { kind: 'ephemeral'; channelId: string }
  /** The global shortcut has no channel: the user's direct messages with platdesk. */
  | { kind: 'dm' };

type Posted = { text?: string; blocks?: unknown[] };

/**
 * One answer's reply: the first message is posted, the next replaces it (runAndAnswer sends
 * "Looking up…" and then the answer). Ephemeral messages cannot be replaced, so there the
 * "Looking up…" is left out when `progressFirst`.
 */
function replyTo(
  deps: SlackDeps,
  client: WebClient,
  userId: string,
  to: Destination,
  progressFirst: boolean,
): Reply {
  let ts: string | null = null;
  let channel: string | null = null;
  let skipped = !progressFirst || to.kind !== 'ephemeral';
  const post = async (m: Posted) => {
    const text = m.text ?? '';
    const blocks = m.blocks as never;
    if (to.kind === 'ephemeral') {
      await client.chat.postEphemeral({ channel: to.channelId, user: userId, text, blocks });
      return;
    }
    if (ts && channel) {
      await client.chat.update({ channel, ts, text, blocks });
      return;
    }
    const target =
      to.kind === 'thread' ? { channel: to.channelId, thread_ts: to.threadTs } : { channel: userId };
    const result = await client.chat.postMessage({ ...target, text, blocks });
    ts = result.ts ?? null;
    channel = result.channel ?? target.channel;
  };
  return async (message) => {
    if (!skipped) {
      skipped = true;
      return;
    }
    try {
      await post(message as Posted);
    } catch (err) {
      // e.g. not_in_channel: the answer goes to the user's direct messages instead of being lost.
      deps.logger.warn(
        { err, to: to.kind },
        'shortcut answer not delivered there; sending it by direct message',
      );
      await client.chat.postMessage({
        channel: userId,
        text: (message as Posted).text ?? '',
        blocks: (message as Posted).blocks as never,
      });
    }
  };
}

export async function runBatch(
  deps: SlackDeps,
  client: WebClient,
  input: { lookups: PlannedLookup[]; actor: Actor; to: Destination },
): Promise<void> {
  const { actor, to } = input;
  // A thread is read by the channel: its language; anything only the user sees, theirs.
  const w =
    to.kind === 'thread' ? await deps.language.channel(to.channelId) : await deps.language.user(actor.userId);
  for (const planned of input.lookups) {
    try {
      const prepared = await deps.lookups.prepare(planned.request, actor, planned.summary, {
        allowAuto: false,
      });
      switch (prepared.kind) {
        case 'refused':
          await replyTo(
            deps,
            client,
            actor.userId,
            to,
            false,
          )({
            ...renderRefusal(w, prepared.refusal, await deps.admins()),
          });
          break;
        case 'cached':
          await replyTo(
            deps,
            client,
            actor.userId,
            to,
            false,
          )({
            ...(await answerOf(deps, w, prepared.outcome, prepared.refresh, { ageMs: prepared.ageMs })),
          });
          break;
        case 'auto':
        case 'confirm': {
          // The shortcut's Confirm was the consent for every lookup it listed (its batch was claimed once).
          const claimed =
            prepared.kind === 'auto'
              ? { ok: true as const, pending: prepared.pending }
              : await deps.lookups.claim(prepared.pending.id, actor.userId);
          if (!claimed.ok) break;
          await runAndAnswer(deps, claimed.pending, replyTo(deps, client, actor.userId, to, true), w);
          break;
        }
      }
    } catch (err) {
      deps.logger.error({ err, summary: planned.summary }, 'shortcut lookup failed');
    }
  }
}
