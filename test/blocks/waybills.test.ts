import type { ActionsBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { printDataFile, renderWaybillInfo, renderWaybillPrint } from '../../src/blocks/waybills.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import {
  ENCRYPTED_DATA,
  makeWaybillInfoRecord,
  makeWaybillPrintOutcome,
  makeWaybillPrintRecord,
  NOW,
  OWNER_ID,
  SHOP_ID,
  SIGNATURE,
} from '../helpers/domain-factories.js';
import { en, zh } from '../helpers/words.js';
import { allText } from './render-fixtures.js';

const charge = { chargedPoints: 20, quotaCalls: 0 };

describe('renderWaybillPrint', () => {
  it('gives one line per waybill with its template (its version is for printing tools), or the record error, and the failed batches', () => {
    const outcome = makeWaybillPrintOutcome(4);
    const { text, blocks } = renderWaybillPrint(en, outcome, { charge, downloadValue: 'wp_1' });
    assertWithinSlackLimits(blocks);
    const all = allText(blocks);
    expect(all).toContain(
      ':white_check_mark: `SF1234567890000` (parent `SF1234567800000`): <https://cloudprint.example.com/template/standard_0.xml|print template>\n',
    );
    expect(all).not.toContain('version');
    // A code it does not know: what the service said, once (its message, not also its code).
    expect(all).toContain(':x: `SF1234567890003`: waybill not found');
    expect(all).not.toContain('isv.');
    expect(all).toContain('20 waybills (YT1234567890100');
    expect(all).toContain('and 10 more) failed: *The shop has not authorized platdesk.*');
    expect(all).toContain('<https://auth.example.com/scan?code=abc|Authorization link>');
    expect(all).toContain('Charged 20 points (¥0.20)');
    expect(text).toBe(`Waybill print data: Shop ${SHOP_ID} · 3 found, 21 failed`);
    const download = blocks.find((b): b is ActionsBlock => b.type === 'actions')?.elements[0];
    expect(download).toMatchObject({ action_id: ACTIONS.waybillDownload, value: 'wp_1' });
  });

  it.each([20, 200])('never shows encryptedData or signature, and fits, with %i waybills', (count) => {
    const outcome = makeWaybillPrintOutcome(count);
    const message = renderWaybillPrint(en, outcome, { charge, downloadValue: 'wp_1' });
    assertWithinSlackLimits(message.blocks);
    const all = allText(message);
    expect(all).not.toContain(ENCRYPTED_DATA);
    expect(all).not.toContain(SIGNATURE);
    expect(all).not.toContain('encryptedData');
    const lines = all.split('\n').filter((l) => /^:(white_check_mark|x): `SF/.test(l)).length;
    const more = /…and (\d+) more waybills/.exec(all);
    expect(lines + Number(more?.[1] ?? 0)).toBe(count);
  });

  it('offers no download without a value or without print data', () => {
    const outcome = makeWaybillPrintOutcome(2);
    expect(renderWaybillPrint(en, outcome, { charge }).blocks.some((b) => b.type === 'actions')).toBe(false);
    const failedOnly = {
      ...outcome,
      records: [makeWaybillPrintRecord(0, { success: false, printData: null, printDataRaw: null })],
    };
    expect(
      renderWaybillPrint(en, failedOnly, { charge, downloadValue: 'x' }).blocks.some(
        (b) => b.type === 'actions',
      ),
    ).toBe(false);
  });

  it('does not show print data that is not the documented JSON', () => {
    const outcome = {
      ...makeWaybillPrintOutcome(1),
      records: [makeWaybillPrintRecord(0, { printData: null, printDataRaw: 'opaque-encrypted-blob' })],
      failedBatches: [],
    };
    const all = allText(renderWaybillPrint(en, outcome, { charge }));
    expect(all).toContain('print data in the file');
    expect(all).not.toContain('opaque-encrypted-blob');
  });
});

describe('printDataFile', () => {
  it('holds the print data of the successful records for printing tools', () => {
    const outcome = makeWaybillPrintOutcome(4);
    const file = printDataFile(outcome.records, { now: NOW });
    expect(file.filename).toBe('waybill-print-data-20261121-040000.json');
    const rows = JSON.parse(file.content);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({
      waybill_code: 'SF1234567890000',
      object_id: 'obj-0',
      print_data: {
        encryptedData: `${ENCRYPTED_DATA}-0`,
        signature: `${SIGNATURE}-0`,
        templateURL: 'https://cloudprint.example.com/template/standard_0.xml',
        ver: '12',
      },
    });
  });

  it('keeps raw print data as text when it is not JSON', () => {
    const file = printDataFile([makeWaybillPrintRecord(0, { printData: null, printDataRaw: 'blob' })]);
    expect(file.filename).toBe('waybill-print-data.json');
    expect(JSON.parse(file.content)[0].print_data).toBe('blob');
  });
});

describe('renderWaybillInfo', () => {
  it('shows plain fields but never receiver data or print data', () => {
    const outcome = {
      kind: 'waybill-info' as const,
      ownerId: OWNER_ID,
      records: [
        makeWaybillInfoRecord(0, {
          last_trace: 'arrived <hub>',
          last_trace_time: Date.parse('2026-11-20T06:03:00Z'),
          trace: { courier_phone: '139' },
        }),
      ],
      failedBatches: [],
      chargedPoints: 1,
    };
    const { text, blocks } = renderWaybillInfo(en, outcome, { charge });
    assertWithinSlackLimits(blocks);
    const all = allText(blocks);
    // The carrier, status and latest trace under their own words; the service's field names never.
    expect(all).toContain(
      '• `YT1234567890000`: YTO · in transit · latest: arrived &lt;hub&gt; (2026-11-20 14:03)',
    );
    expect(all).not.toMatch(/cp_code|status:/);
    expect(allText(renderWaybillInfo(zh, outcome, { charge }).blocks)).toContain('圆通 · in transit');
    for (const secret of ['Zhang San', '13800000000', 'Example Road', ENCRYPTED_DATA, '139']) {
      expect(all).not.toContain(secret);
    }
    expect(text).toBe(`Waybill information: Owner ${OWNER_ID} · 1 found`);
  });

  it.each([20, 200])('fits with %i waybills', (count) => {
    const outcome = {
      kind: 'waybill-info' as const,
      ownerId: OWNER_ID,
      records: Array.from({ length: count }, (_, i) => makeWaybillInfoRecord(i)),
      failedBatches: [],
      chargedPoints: count,
    };
    assertWithinSlackLimits(renderWaybillInfo(en, outcome, { charge }).blocks);
  });
});
