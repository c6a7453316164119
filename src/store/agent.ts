/**
 * The agent's store (issue 36, migration 22): each thread's findings for follow-ups, and the
 * feedback on its answers. The thread memory holds ids (items, waybills, shops, order numbers)
 * and the tool calls of the last plan, never receiver data or remarks (agent/memory.ts).
 */

import type { StoreContext } from './schema.js';
import type { AgentStore } from './store.js';

export function createAgentStore({ db, nowMs, tenant }: StoreContext): AgentStore {
  return {
    async thread(channelId, threadTs) {
      const row = await db
        .selectFrom('agent_threads')
        .select('context_json')
        .where('tenant_id', '=', tenant)
        .where('channel_id', '=', channelId)
        .where('thread_ts', '=', threadTs)
        .executeTakeFirst();
      return row?.context_json ?? null;
    },
    async setThread(channelId, threadTs, contextJson) {
      const now = nowMs();
      await db
        .insertInto('agent_threads')
        .values({
          tenant_id: tenant,
          channel_id: channelId,
          thread_ts: threadTs,
          context_json: contextJson,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'channel_id', 'thread_ts'])
            .doUpdateSet({ context_json: contextJson, updated_at: now }),
        )
        .execute();
    },
    async addFeedback(f) {
      const row = {
        tenant_id: tenant,
        user_id: f.userId,
        channel_id: f.channelId,
        message_ts: f.messageTs,
        value: f.value,
        tools: f.tools,
        at: f.at.getTime(),
      };
      await db
        .insertInto('agent_feedback')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'user_id', 'channel_id', 'message_ts'])
            .doUpdateSet({ value: row.value, tools: row.tools, at: row.at }),
        )
        .execute();
    },
    async feedback(since, limit) {
      const base = db
        .selectFrom('agent_feedback')
        .where('tenant_id', '=', tenant)
        .where('at', '>=', since.getTime());
      const counts = await base
        .select(['value', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('value')
        .execute();
      const rows = await base.selectAll().orderBy('at', 'desc').limit(limit).execute();
      const n = (v: string) => Number(counts.find((c) => c.value === v)?.n ?? 0);
      return {
        good: n('good'),
        bad: n('bad'),
        recent: rows.map((r) => ({
          userId: r.user_id,
          channelId: r.channel_id,
          messageTs: r.message_ts,
          value: r.value,
          tools: r.tools,
          at: new Date(Number(r.at)),
        })),
      };
    },
    async prune(olderThan) {
      const result = await db
        .deleteFrom('agent_threads')
        // Every tenant's, as housekeeping prunes the other tables.
        .where('updated_at', '<', olderThan.getTime())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
