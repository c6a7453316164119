/**
 * A digest claim contender on its own thread (loaded through tsx by digest-store.test.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { type DigestRaceInput, raceClaims } from './claim-race.js';

export type DigestRaceMessage = { type: 'ready' } | { type: 'results'; wins: boolean[] };

const input = workerData as DigestRaceInput & { owner: string };
const store = openSqliteStore(input.path);
try {
  parentPort?.postMessage({ type: 'ready' } satisfies DigestRaceMessage);
  parentPort?.postMessage({
    type: 'results',
    wins: raceClaims(store, input, input.owner),
  } satisfies DigestRaceMessage);
} finally {
  store.close();
}
