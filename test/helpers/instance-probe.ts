/**
 * A process that tells what it knows about claim holders (src/instance.ts), for tests that need
 * real processes in their own pid namespaces (test/instance.test.ts runs it under `unshare`).
 * It prints its own instance as one JSON line, then answers each id read from stdin with one
 * JSON line `{ "id": …, "gone": … }` (isCertainlyGone as seen from here). With `--once` it
 * prints its instance and exits.
 */
import { createInterface } from 'node:readline';
import { currentInstance, isCertainlyGone } from '../../src/instance.js';

const me = currentInstance();
process.stdout.write(`${JSON.stringify(me)}\n`);
if (!process.argv.includes('--once'))
  createInterface({ input: process.stdin }).on('line', (id) => {
    process.stdout.write(`${JSON.stringify({ id, gone: isCertainlyGone(id, me) })}\n`);
  });
