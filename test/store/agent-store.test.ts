/**
 * The agent's store (issue 36, migration 18) on both engines: a thread's memory replaced and read
 * per tenant and thread, forgotten by housekeeping; one vote per person and answer, counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES, type EngineName, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const T0 = Date.parse('2026-11-20T04:00:00Z');
const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

describe.each(ENGINES)('the agent store on %s', (engine: EngineName) => {
  async function fresh() {
    let t = T0;
    const db = await testDatabase(engine);
    databases.push(db);
    const store = await db.open({ clock: { now: () => t } });
    return { store, advance: (ms: number) => (t += ms) };
  }

  it('keeps each thread’s memory apart, by tenant, channel and thread, and replaces it', async () => {
    const { store } = await fresh();
    await store.agent.setThread('D1', '1.1', '{"a":1}');
    await store.agent.setThread('D1', '1.1', '{"a":2}');
    await store.agent.setThread('D1', '2.2', '{"b":1}');
    await store.forTenant('T2').agent.setThread('D1', '1.1', '{"other":1}');
    expect(await store.agent.thread('D1', '1.1')).toBe('{"a":2}');
    expect(await store.agent.thread('D1', '2.2')).toBe('{"b":1}');
    expect(await store.agent.thread('D1', '3.3')).toBeNull();
    expect(await store.forTenant('T2').agent.thread('D1', '1.1')).toBe('{"other":1}');
  });

  it('forgets threads untouched since the cut-off', async () => {
    const { store, advance } = await fresh();
    await store.agent.setThread('D1', '1.1', '{}');
    advance(10_000);
    await store.agent.setThread('D1', '2.2', '{}');
    expect(await store.agent.prune(new Date(T0 + 5_000))).toBe(1);
    expect(await store.agent.thread('D1', '1.1')).toBeNull();
    expect(await store.agent.thread('D1', '2.2')).toBe('{}');
  });

  it('one vote per person and answer: a second replaces it; counts since a time', async () => {
    const { store } = await fresh();
    const vote = (userId: string, messageTs: string, value: 'good' | 'bad', at = T0) =>
      store.agent.addFeedback({
        userId,
        channelId: 'D1',
        messageTs,
        value,
        tools: 'lookup_item',
        at: new Date(at),
      });
    await vote('U1', '1.1', 'bad');
    await vote('U1', '1.1', 'good');
    await vote('U2', '1.1', 'bad');
    await vote('U2', '2.2', 'good', T0 - 86_400_000);
    const since = await store.agent.feedback(new Date(T0 - 1000), 10);
    expect([since.good, since.bad]).toEqual([1, 1]);
    expect(since.recent.map((r) => [r.userId, r.messageTs, r.value])).toEqual(
      expect.arrayContaining([
        ['U1', '1.1', 'good'],
        ['U2', '1.1', 'bad'],
      ]),
    );
    expect((await store.agent.feedback(new Date(0), 10)).good).toBe(2);
  });
});
