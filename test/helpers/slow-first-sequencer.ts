/**
 * Starts the files that take longest first, so that no long file starts last and runs alone
 * while the other worker idles (CI runs on a clean checkout: vitest has no durations cached there
 * and would start the largest files first, which are not the slowest). The table holds the files
 * that took 30 s or more of a full run on the 2-core machine, slowest first (vitest's own
 * per-file durations, 2026-11-28); every other file follows in vitest's own order. A file
 * renamed or removed here only loses its place: the table orders, it never selects.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOWEST_FIRST = [
  'test/replicas/digest-takeover.test.ts',
  'test/replicas/stranded-posts.test.ts',
  'test/replicas/rollout.test.ts',
  'test/plat/redis-limiter.test.ts',
  'test/replicas/replicas.test.ts',
  'test/alerts/alert-fence.test.ts',
  'test/sim/sim.test.ts',
  'test/store/store-contract.test.ts',
  'test/deploy/kube-play.test.ts',
  'test/digest/posted-once.test.ts',
  'test/lookups/lookup-write-ahead.test.ts',
  'test/demo/demo.test.ts',
  'test/digest/resume.test.ts',
] as const;

const rank = (spec: TestSpecification): number => {
  const i = SLOWEST_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return i === -1 ? SLOWEST_FIRST.length : i;
};

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: files outside the table keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
