/**
 * The SingleFlight contract (src/lookups/single-flight.ts), written once and run against every
 * engine (CONVENTIONS 13). A rig hands out handles of one app: for the in-process engine the one
 * engine a process has; for the Redis engine one engine per handle, each with its own
 * connections, as separate replicas have. Values are real lookup outcomes (Dates included), so the
 * Redis engine's codec is part of what is checked.
 *
 * A leader's death is engine-only: in one process a leader cannot die without its followers; the
 * Redis engine's takeover after lock expiry is tested in redis-single-flight.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Flight, SingleFlight } from '../../src/lookups/single-flight.js';
import { SharedFlightFailure } from '../../src/lookups/single-flight.js';
import type { LookupOutcome } from '../../src/lookups/types.js';
import { PlatShopUnauthorizedError } from '../../src/plat/errors.js';

export interface FlightRig {
  /** A handle of the app (see the header); every handle of one rig shares flights. */
  handle(): SingleFlight<LookupOutcome>;
  cleanup(): Promise<void>;
}

/** How long the work of a leader stays in flight while the others ask (Redis answers in < 1 ms). */
const IN_FLIGHT_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An orders answer with every kind of value a lookup holds: Dates, nulls, nested lists. */
function ordersOutcome(ownerId: string): LookupOutcome {
  return {
    kind: 'orders',
    ownerId,
    filters: {
      startTime: new Date('2026-11-22T00:00:00.000Z'),
      endTime: new Date('2026-11-22T23:00:00.000Z'),
    },
    page: {
      orders: [
        {
          orderSn: '240001',
          goodsName: '红色 T 恤 <b>&',
          goodsImage: null,
          goodsSpec: 'XL',
          goodsCount: 2,
          payAmount: 99.5,
          status: 1,
          isPreSale: false,
          lastShipTime: new Date('2026-11-24T10:00:00.000Z'),
          confirmTime: null,
          remark: '2026-11-22T00:00:00.000Z',
          remarkTag: 1,
          remarkTagName: '红旗',
        },
      ],
      page: 0,
      pageSize: 20,
      totalElements: 1,
      totalPages: 1,
    },
    chargedPoints: 2,
  };
}

/** Work that counts its runs and settles when told. */
function gatedWork(result: () => LookupOutcome | Error) {
  let runs = 0;
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    runs: () => runs,
    open,
    work: async (): Promise<LookupOutcome> => {
      runs += 1;
      await gate;
      const r = result();
      if (r instanceof Error) throw r;
      return r;
    },
  };
}

export function singleFlightContract(name: string, makeRig: () => FlightRig): void {
  describe(`SingleFlight contract: ${name}`, () => {
    async function withRig(test: (rig: FlightRig) => Promise<void>): Promise<void> {
      const rig = makeRig();
      try {
        await test(rig);
      } finally {
        await rig.cleanup();
      }
    }

    it('ten identical runs at once through two handles: the work runs once, nine share its answer', () =>
      withRig(async (rig) => {
        const handles = [rig.handle(), rig.handle()];
        const answer = ordersOutcome('owner-1');
        const w = gatedWork(() => answer);
        const runs = Array.from({ length: 10 }, (_, i) => handles[i % 2]?.run('orders:owner-1', w.work));
        await sleep(IN_FLIGHT_MS);
        w.open();
        const flights = (await Promise.all(runs)) as Flight<LookupOutcome>[];
        expect(w.runs()).toBe(1);
        const leaders = flights.filter((f) => !f.shared);
        expect(leaders).toHaveLength(1);
        expect(leaders[0]?.value).toBe(answer);
        expect(flights.filter((f) => f.shared)).toHaveLength(9);
        // Every follower has the leader's answer exactly (Dates as Dates).
        for (const f of flights) expect(f.value).toStrictEqual(answer);
      }));

    it("the leader's failure reaches every follower as the same kind of error", () =>
      withRig(async (rig) => {
        const handles = [rig.handle(), rig.handle()];
        const failure = new PlatShopUnauthorizedError(302, 'not authorized', 'https://auth.example/a?b=1', {
          operation: 'paging-orders',
          chargePoints: 0,
        });
        const w = gatedWork(() => failure);
        const runs = Array.from({ length: 4 }, (_, i) =>
          (handles[i % 2] as SingleFlight<LookupOutcome>).run('orders:owner-2', w.work).then(
            () => {
              throw new Error('expected a failure');
            },
            (error: unknown) => error,
          ),
        );
        await sleep(IN_FLIGHT_MS);
        w.open();
        const errors = await Promise.all(runs);
        expect(w.runs()).toBe(1);
        expect(errors.filter((e) => e === failure)).toHaveLength(1);
        const shared = errors.filter((e) => e !== failure);
        expect(shared).toHaveLength(3);
        for (const e of shared) {
          expect(e).toBeInstanceOf(SharedFlightFailure);
          const leaderError = (e as SharedFlightFailure).error;
          expect(leaderError).toBeInstanceOf(PlatShopUnauthorizedError);
          expect(leaderError).toMatchObject({
            code: 'shop_unauthorized',
            authUrl: 'https://auth.example/a?b=1',
          });
        }
      }));

    it('different keys are independent: each runs, neither waits for the other', () =>
      withRig(async (rig) => {
        const [a, b] = [rig.handle(), rig.handle()];
        const first = gatedWork(() => ordersOutcome('owner-a'));
        const second = gatedWork(() => ordersOutcome('owner-b'));
        const runA = a.run('orders:owner-a', first.work);
        const runB = b.run('orders:owner-b', second.work);
        await sleep(IN_FLIGHT_MS);
        second.open();
        // B answers while A is still in flight.
        await expect(runB).resolves.toMatchObject({ shared: false, value: { ownerId: 'owner-b' } });
        expect(first.runs()).toBe(1);
        first.open();
        await expect(runA).resolves.toMatchObject({ shared: false, value: { ownerId: 'owner-a' } });
      }));

    it('a run after a flight ended is a new question: it runs again (a shared answer is no cache)', () =>
      withRig(async (rig) => {
        const [a, b] = [rig.handle(), rig.handle()];
        const w = gatedWork(() => ordersOutcome('owner-3'));
        w.open();
        await expect(a.run('orders:owner-3', w.work)).resolves.toMatchObject({ shared: false });
        await expect(b.run('orders:owner-3', w.work)).resolves.toMatchObject({ shared: false });
        await expect(a.run('orders:owner-3', w.work)).resolves.toMatchObject({ shared: false });
        expect(w.runs()).toBe(3);
      }));

    it('a follower that joins just before the leader settles still gets the answer', () =>
      withRig(async (rig) => {
        const [a, b] = [rig.handle(), rig.handle()];
        const w = gatedWork(() => ordersOutcome('owner-4'));
        const leader = a.run('orders:owner-4', w.work);
        await sleep(IN_FLIGHT_MS);
        const follower = b.run('orders:owner-4', w.work);
        w.open();
        const [l, f] = await Promise.all([leader, follower]);
        expect(w.runs()).toBe(1);
        expect(l.shared).toBe(false);
        expect(f).toMatchObject({ shared: true });
        expect(f.value).toStrictEqual(l.value);
      }));
  });
}
