/**
 * Waybill print data (platdybw) and waybill information (platdzmd). Print data's encryptedData
 * and signature are for printing tools only: they are never put in a message, only in the file
 * built by `printDataFile`.
 */
import type { KnownBlock } from '@slack/types';
import type { LookupOutcome } from '../lookups/types.js';
import type { PlatError } from '../plat/errors.js';
import { PlatShopUnauthorizedError } from '../plat/errors.js';
import type { WaybillInfoRecord, WaybillPrintRecord } from '../plat/types.js';
import { ACTIONS } from './action-ids.js';
import { type ChargeNote, renderChargeNote } from './charge-note.js';
import { errorRemedy, errorTitle } from './errors.js';
import type { Words } from './i18n/words.js';
import { actions, button, context, header, message, type RenderedMessage } from './kit.js';
import { packSections } from './limits.js';
import { code } from './markers.js';
import { escapeClip, mrkdwnLink } from './text.js';

export type WaybillPrintOutcome = Extract<LookupOutcome, { kind: 'waybill-print' }>;
export type WaybillInfoOutcome = Extract<LookupOutcome, { kind: 'waybill-info' }>;
type FailedBatch = WaybillPrintOutcome['failedBatches'][number];

export interface WaybillPrintRenderOptions {
  charge: ChargeNote;
  /**
   * When set (and some record has print data), a "Download print data" button carries this short
   * id (action `waybillDownload`) so the Slack layer can upload `printDataFile(records)`.
   */
  downloadValue?: string;
}

function codeOr(text: string | null, fallback: string): string {
  return text?.trim() ? code(escapeClip(text.trim(), 64)) : fallback;
}

function printLine(w: Words, record: WaybillPrintRecord): string {
  const { t } = w;
  const number = codeOr(
    record.waybillCode,
    t('waybill.request', { id: escapeClip(record.objectId ?? '?', 64) }),
  );
  const parent = record.parentWaybillCode?.trim()
    ? t('waybill.parent', { code: codeOr(record.parentWaybillCode, '') })
    : '';
  if (!record.success) {
    const reason = [record.errorCode, record.errorMessage].filter((s) => s?.trim()).join(': ');
    return t('waybill.failedLine', {
      number,
      parent,
      reason: escapeClip(reason || t('waybill.noReason'), 300),
    });
  }
  let print = t('waybill.noTemplate');
  if (record.printData) {
    const template = mrkdwnLink(record.printData.templateURL, t('waybill.template'));
    print = record.printData.ver
      ? t('waybill.templateVersion', { template, version: escapeClip(record.printData.ver, 60) })
      : template;
  } else if (record.printDataRaw) {
    print = t('waybill.inFile');
  }
  return t('waybill.okLine', { number, parent, print });
}

function batchLine(w: Words, batch: FailedBatch): string {
  const shown = batch.waybillCodes.slice(0, 10).map((c) => escapeClip(c, 64));
  const rest = batch.waybillCodes.length - shown.length;
  const codes =
    rest > 0 ? w.t('waybill.codesMore', { codes: shown.join(', '), n: w.count(rest) }) : shown.join(', ');
  return w.t('waybill.batch', {
    count: batch.waybillCodes.length,
    n: w.count(batch.waybillCodes.length),
    codes,
    title: errorTitle(w, batch.error.code),
    remedy: remedyOf(w, batch.error),
  });
}

function remedyOf(w: Words, error: PlatError): string {
  const remedy = escapeClip(errorRemedy(w, error), 300);
  if (error instanceof PlatShopUnauthorizedError && error.authUrl) {
    return `${remedy} ${mrkdwnLink(error.authUrl, w.t('waybill.authLink'))}`;
  }
  return remedy;
}

function failedBlocks(w: Words, batches: readonly FailedBatch[]): KnownBlock[] {
  return packSections(
    batches.map((b) => batchLine(w, b)),
    { maxBlocks: 5, more: (n) => w.t('waybill.moreFailed', { count: n, n: w.count(n) }) },
  );
}

export function renderWaybillPrint(
  w: Words,
  outcome: WaybillPrintOutcome,
  options: WaybillPrintRenderOptions,
): RenderedMessage {
  const { t } = w;
  const ok = outcome.records.filter((r) => r.success).length;
  const failed =
    outcome.records.length - ok + outcome.failedBatches.reduce((n, b) => n + b.waybillCodes.length, 0);
  const summary = t('waybill.printSummary', {
    shop: escapeClip(outcome.shopId, 64),
    ok: w.count(ok),
    failed: w.count(failed),
  });

  const blocks: KnownBlock[] = [header(t('waybill.printTitle')), context(summary)];
  blocks.push(
    ...packSections(
      outcome.records.map((r) => printLine(w, r)),
      { maxBlocks: 34, more: (n) => t('waybill.moreWaybills', { count: n, n: w.count(n) }) },
    ),
  );
  blocks.push(...failedBlocks(w, outcome.failedBatches));
  const tail: KnownBlock[] = [];
  const downloadable = outcome.records.some((r) => r.success && (r.printData || r.printDataRaw));
  if (options.downloadValue !== undefined && downloadable) {
    const download = button({
      label: t('waybill.download'),
      actionId: ACTIONS.waybillDownload,
      value: options.downloadValue,
    });
    tail.push(actions([download]));
  }
  tail.push(renderChargeNote(w, options.charge));
  return message(t('waybill.printFallback', { summary }), [...blocks, ...tail], tail.length);
}

/**
 * platdzmd records have fields the spec does not list: show plain values only, and never
 * anything that may be personal (receiver, sender, phone, address…) or print secrets.
 */
const HIDDEN_KEY =
  /receiver|recipient|consignee|sender|phone|mobile|^tel|_tel|address|addr|province|city|town|district|name|encrypt|signature|print_?data|secret|token/i;
const MAX_FIELDS = 8;

function infoFields(extra: Record<string, unknown>, prefix = '', depth = 0): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(extra)) {
    if (HIDDEN_KEY.test(key) || key === 'waybill_code' || key === 'object_id') continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      const text = String(value).trim();
      if (text) out.push(`${escapeClip(path, 60)}: ${escapeClip(text, 100)}`);
    } else if (value && typeof value === 'object' && !Array.isArray(value) && depth < 2) {
      out.push(...infoFields(value as Record<string, unknown>, path, depth + 1));
    }
  }
  return out;
}

function infoLine(w: Words, record: WaybillInfoRecord): string {
  const { t } = w;
  const number = codeOr(
    record.waybillCode,
    t('waybill.request', { id: escapeClip(record.objectId ?? '?', 64) }),
  );
  const fields = infoFields(record.extra);
  const rest = fields.length - MAX_FIELDS;
  const shown = fields.slice(0, MAX_FIELDS).join(t('common.sep'));
  const line = shown
    ? t('waybill.infoLineFields', { number, fields: shown })
    : t('waybill.infoLine', { number });
  return rest > 0 ? t('waybill.moreFields', { line, count: rest, n: w.count(rest) }) : line;
}

export function renderWaybillInfo(
  w: Words,
  outcome: WaybillInfoOutcome,
  options: { charge: ChargeNote },
): RenderedMessage {
  const { t } = w;
  const failed = outcome.failedBatches.reduce((n, b) => n + b.waybillCodes.length, 0);
  const values = {
    owner: escapeClip(outcome.ownerId, 64),
    found: w.count(outcome.records.length),
    failed: w.count(failed),
  };
  const summary = failed ? t('waybill.infoSummaryFailed', values) : t('waybill.infoSummary', values);
  const blocks: KnownBlock[] = [header(t('waybill.infoTitle')), context(summary)];
  blocks.push(
    ...packSections(
      outcome.records.map((r) => infoLine(w, r)),
      { maxBlocks: 36, more: (n) => t('waybill.moreWaybills', { count: n, n: w.count(n) }) },
    ),
  );
  blocks.push(...failedBlocks(w, outcome.failedBatches));
  blocks.push(renderChargeNote(w, options.charge));
  return message(t('waybill.infoFallback', { summary }), blocks, 1);
}

/**
 * The print data of every record as a JSON document for printing tools; the Slack layer uploads
 * it as a file (it holds encryptedData and signature, which are never shown in a message).
 */
export function printDataFile(
  records: readonly WaybillPrintRecord[],
  options: { now?: Date } = {},
): { filename: string; content: string } {
  const rows = records
    .filter((r) => r.success && (r.printData !== null || r.printDataRaw !== null))
    .map((r) => ({
      waybill_code: r.waybillCode,
      object_id: r.objectId,
      print_data: r.printData ?? r.printDataRaw,
    }));
  const stamp = options.now
    ? `-${options.now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}`
    : '';
  return { filename: `waybill-print-data${stamp}.json`, content: `${JSON.stringify(rows, null, 2)}\n` };
}
