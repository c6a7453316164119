/**
 * A claim-race contender on its own thread (loaded through tsx by store-contract.test.ts): opens
 * its own connection, says it is ready, then races the test's thread (claim-race.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../../src/store/engine.js';
import { type ClaimRaceInput, type ClaimRaceResults, runContender } from './claim-race.js';

export type ClaimRaceMessage = { type: 'ready' } | ({ type: 'results' } & ClaimRaceResults);

const input = workerData as ClaimRaceInput;
const store = await openStore({ path: input.path });
try {
  parentPort?.postMessage({ type: 'ready' } satisfies ClaimRaceMessage);
  parentPort?.postMessage({
    type: 'results',
    ...(await runContender(store, input)),
  } satisfies ClaimRaceMessage);
} finally {
  await store.close();
}
