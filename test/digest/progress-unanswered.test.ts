/**
 * A "Run now" whose progress message Slack keeps but never answers (found by the fault
 * simulator, seed 1063: the run stayed "running" for as long as its holder lived, waiting for a
 * request with no timeout). The first progress post is sent once with the keyed posts' timeout;
 * past it the run goes on without a progress message and posts its digest as a keyed post of its
 * own: one digest, the progress message never sent twice, on both engines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { ENGINES } from '../helpers/store-engines.js';
import { ADMIN, CHANNEL, type DigestRig, startDigestRig } from './digest-rig.js';

/** 08:00 in Shanghai on 2026-11-20; the digest is due at 09:00 (01:00Z). */
const START = Date.parse('2026-11-20T00:00:00Z');

let rig: DigestRig | null = null;
afterEach(async () => {
  await rig?.close();
  rig = null;
});

describe.each(ENGINES)('"Run now" whose progress message is never answered (%s)', (engine) => {
  it('goes on without it and posts its digest once; the progress message is sent once', async () => {
    rig = await startDigestRig({ start: START, engine, postTimeoutMs: 2_000 });
    const sub = await rig.subscribe({ ownerId: SANDBOX_FIXTURES.owners.busy });
    rig.scheduler.start();
    // The next chat.postMessage is stored by Slack and never answered.
    rig.fake.fault('chat.postMessage', 'timeout', 1);
    const result = await rig.scheduler.runNow(sub.id, ADMIN);
    expect(result.kind).toBe('posted');
    await rig.idle();

    const run = await rig.store.digests.lastRun(sub.id);
    expect(run).toMatchObject({ kind: 'manual', state: 'posted' });
    const inChannel = rig.fake.messages(CHANNEL);
    const digests = inChannel.filter((m) => m.metadata?.event_type === 'platdesk_digest');
    expect(digests).toHaveLength(1);
    expect(run?.messageTs).toBe(digests[0]?.ts);
    // The progress message Slack kept, and the digest: the progress message went out once.
    expect(inChannel).toHaveLength(2);
    expect(rig.pagesFetched()).toBe(run?.calls);
  });
});
