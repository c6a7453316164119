/**
 * manifest.yml against Slack's app manifest schema (the in-repo check of test/helpers/manifest.ts),
 * including the workflow steps' `functions:`; and the steps' outputs as blocks/steps.ts gives them
 * against what the manifest declares (names, types, required ones), in both languages.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Words } from '../src/blocks/i18n/words.js';
import { type StepOutputs, stepOutputs } from '../src/blocks/steps.js';
import { manifestFunctions } from '../src/blocks/tools.js';
import { STEP_IDS, type StepAsk, type StepResult, stepRequest } from '../src/lookups/steps.js';
import type { LookupOutcome } from '../src/lookups/types.js';
import {
  makeItem,
  makeOrder,
  makeOrdersOutcome,
  makeShopInfo,
  makeWaybillInfoRecord,
} from './helpers/domain-factories.js';
import { type Manifest, manifestProblems, manifestSchema, readYaml } from './helpers/manifest.js';
import { en, zh } from './helpers/words.js';

const manifest = readYaml(readFileSync(new URL('../manifest.yml', import.meta.url), 'utf8'));
const NOW = new Date('2026-11-20T04:00:00Z');
const HOUR = 3_600_000;

describe('the YAML reader', () => {
  it('reads mappings, lists of mappings, scalars, block scalars and comments', () => {
    expect(
      readYaml(
        [
          'a: 1 # one',
          'b:',
          '  - x: "q # not a comment"',
          '    y: true',
          '  - plain',
          'c: >-',
          '  folded',
          '  text',
          "d: 'it''s'",
        ].join('\n'),
      ),
    ).toEqual({ a: 1, b: [{ x: 'q # not a comment', y: true }, 'plain'], c: 'folded text', d: "it's" });
  });

  it('rejects what it does not read rather than misreading it', () => {
    expect(() => readYaml('a: [1, 2]')).toThrow(/unsupported/);
    expect(() => readYaml('a: 1\na: 2')).toThrow(/duplicate/);
    expect(() => readYaml('a: 1\n   b: 2')).toThrow(/indentation|unexpected/);
  });
});

describe('manifest.yml', () => {
  it("validates against Slack's manifest schema, functions included", () => {
    expect(manifestProblems(manifest)).toEqual([]);
  });

  it('the check fails a step without the remote runtime, with a bad type, or a name that differs', () => {
    const m = structuredClone(manifest) as Manifest;
    m.settings.function_runtime = undefined as never;
    delete m.settings.function_runtime;
    expect(manifestProblems(m)).toContain('settings.function_runtime must be remote');
    const bad = structuredClone(manifest) as {
      functions: Record<string, { output_parameters: Record<string, { type: string; name: string }> }>;
    };
    const out = bad.functions.lookup_waybill?.output_parameters;
    if (!out?.carrier || !out.state) throw new Error('lookup_waybill outputs missing');
    out.carrier.type = 'text';
    expect(manifestProblems(bad).join('\n')).toMatch(
      /functions\.lookup_waybill\.output_parameters\.carrier\.type/,
    );
    out.carrier.type = 'string';
    out.state.name = 'status';
    expect(manifestProblems(bad)).toEqual([
      'functions.lookup_waybill.output_parameters.state: name is status',
    ]);
  });

  it('declares exactly the functions the tool catalog derives (names, types, bounds, words): `npx tsx scripts/manifest-functions.ts --write` writes them', () => {
    expect(manifestSchema.parse(manifest).functions).toEqual(manifestFunctions(en));
  });

  it('the derivation check would catch a step input the manifest lacks', () => {
    const derived = manifestFunctions(en);
    const m = manifestSchema.parse(manifest);
    const without = structuredClone(m.functions ?? {});
    delete without.lookup_waybill?.input_parameters.carrier;
    expect(without).not.toEqual(derived);
  });

  it('declares the four steps platdesk registers, titled as the catalog names them', () => {
    const m = manifestSchema.parse(manifest);
    expect(Object.keys(m.functions ?? {}).sort()).toEqual([...STEP_IDS].sort());
    for (const id of STEP_IDS) expect(m.functions?.[id]?.title).toBe(en.t(`tool.${id}.title`));
  });

  /** A finished run of each step, with realistic outcomes. */
  function done(stepId: (typeof STEP_IDS)[number], inputs: Record<string, unknown>, outcome: LookupOutcome) {
    const ask = stepRequest(stepId, inputs, 1) as Extract<StepAsk, { ok: true }>;
    expect(ask.ok).toBe(true);
    return { kind: 'done', ask, outcome, ageMs: null } as Extract<StepResult, { kind: 'done' }>;
  }
  const runs = [
    done(
      'lookup_waybill',
      { waybills: 'YT1234567890001 YT1234567890002', owner_id: '2200' },
      {
        kind: 'waybill-info',
        ownerId: '2200',
        records: [
          makeWaybillInfoRecord(1, {
            wp_name: '圆通速递',
            logistics_status_desc: '运输中',
            last_trace: '已到达杭州中转部',
            last_trace_time: NOW.getTime() - HOUR,
          }),
        ],
        failedBatches: [],
        chargedPoints: 4,
      },
    ),
    done(
      'lookup_item',
      { item: '6543210987', with_prices: true },
      {
        kind: 'item',
        item: makeItem(),
        prices: null,
        chargedPoints: 0,
        quotaCalls: 2,
      },
    ),
    done(
      'orders_due',
      { shop: '2200', hours_ahead: 6 },
      makeOrdersOutcome([
        makeOrder(0, { status: 1, lastShipTime: new Date(NOW.getTime() - HOUR) }),
        makeOrder(3, { status: 1, lastShipTime: new Date(NOW.getTime() + 2 * HOUR) }),
        makeOrder(6, { status: 1, lastShipTime: new Date(NOW.getTime() + 30 * HOUR) }),
        makeOrder(1, { status: 2, lastShipTime: new Date(NOW.getTime() + HOUR) }),
      ]),
    ),
    done(
      'lookup_shop',
      { shop: 'https://item.taobao.com/item.htm?id=6543210987' },
      {
        kind: 'shop-info',
        shop: makeShopInfo(),
        url: 'https://item.taobao.com/item.htm?id=6543210987',
        chargedPoints: 10,
      },
    ),
  ];

  const typeOk = (type: string, value: string | number) =>
    type === 'string'
      ? typeof value === 'string'
      : type === 'integer' || type === 'slack#/types/timestamp'
        ? Number.isInteger(value)
        : false;

  it.each([
    ['en', en],
    ['zh-CN', zh],
  ] as [string, Words][])(
    'every output (%s) is declared with its type, and every required one is given',
    (_l, w) => {
      const m = manifestSchema.parse(manifest);
      for (const run of runs) {
        const declared = m.functions?.[run.ask.stepId]?.output_parameters ?? {};
        const outputs: StepOutputs = stepOutputs(w, run, NOW);
        for (const [name, value] of Object.entries(outputs)) {
          const p = declared[name];
          expect(p, `${run.ask.stepId}.${name}`).toBeDefined();
          expect(typeOk(p?.type ?? '', value), `${run.ask.stepId}.${name}: ${p?.type} ${value}`).toBe(true);
        }
        for (const [name, p] of Object.entries(declared))
          if (p.is_required) expect(outputs[name], `${run.ask.stepId}.${name}`).toBeDefined();
      }
    },
  );

  it('orders_due counts the awaiting orders whose ship-by time is past, and those within the hours ahead', () => {
    const outputs = stepOutputs(en, runs[2] as Extract<StepResult, { kind: 'done' }>, NOW);
    expect([outputs.count_due, outputs.count_overdue]).toEqual([1, 1]);
    expect(String(outputs.list).split('\n')).toEqual([
      expect.stringMatching(/^261121-100000 · Linen shirt 0 · overdue since /),
      expect.stringMatching(/^261121-100003 · Linen shirt 3 · ship by /),
    ]);
    expect(outputs.summary).toBe('owner-1234: 1 due to ship within 6 h, 1 overdue');
  });
});
