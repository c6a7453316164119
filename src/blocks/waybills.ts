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
  if (!record.success) return t('waybill.failedLine', { number, parent, reason: failureReason(w, record) });
  // The template's `ver` (e.g. waybill_print_secret_version_1) is for printing tools: it is in the
  // downloaded file, not shown.
  let print = t('waybill.noTemplate');
  if (record.printData) {
    print = mrkdwnLink(record.printData.templateURL, t('waybill.template'));
  } else if (record.printDataRaw) {
    print = t('waybill.inFile');
  }
  return t('waybill.okLine', { number, parent, print });
}

/**
 * Why one waybill failed: the first marketplace's known error codes in the reader's words; any
 * other failure by what the service said (once: its message, else its code).
 */
const RECORD_ERRORS: Record<string, 'notExist' | 'invalidParameter'> = {
  'isv.waybill-not-exist': 'notExist',
  'isv.invalid-parameter': 'invalidParameter',
};

function failureReason(w: Words, record: WaybillPrintRecord): string {
  const known = RECORD_ERRORS[record.errorCode?.trim() ?? ''];
  if (known) return w.t(`waybill.reason.${known}`);
  const said = record.errorMessage?.trim() || record.errorCode?.trim();
  return said ? escapeClip(said, 300) : w.t('waybill.noReason');
}

function batchLine(w: Words, batch: FailedBatch): string {
  const shown = batch.waybillCodes.slice(0, 10).map((c) => escapeClip(c, 64));
  const rest = batch.waybillCodes.length - shown.length;
  const codes =
    rest > 0 ? w.t('waybill.codesMore', { codes: w.join(shown), n: w.count(rest) }) : w.join(shown);
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
    return w.sentences([remedy, mrkdwnLink(error.authUrl, w.t('waybill.authLink'))]);
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

/** A field of a waybill information record, by the first of its known names that holds a value. */
export function infoField(record: WaybillInfoRecord, names: readonly string[]): unknown {
  for (const name of names) {
    const value = record.extra[name];
    if ((typeof value === 'string' && value.trim() !== '') || typeof value === 'number') return value;
  }
  return null;
}

/** A time the service gave as milliseconds, seconds or text, as Unix seconds (null: none). */
export function unixSeconds(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return null;
  return Math.floor(n > 1e11 ? n / 1000 : n);
}

/**
 * platdzmd records carry fields the spec does not list (spec §2.3: only object_id and
 * waybill_code): the carrier, the logistics status and the last trace are shown under their names
 * in the reader's language, by the names logistics queries use; other fields are not shown (their
 * names are the service's, and they may hold personal data).
 */
export const INFO_FIELDS = {
  carrier: ['wp_name', 'carrier_name', 'cp_name', 'wp_code', 'cp_code'],
  status: ['logistics_status_desc', 'status_desc', 'logistics_status', 'status'],
  trace: ['last_trace', 'last_trace_desc', 'trace'],
  time: ['last_trace_time', 'trace_time'],
} as const;

/** A carrier code by its name ("ZTO" / "中通"), any other value as given. */
export function carrierName(w: Words, value: unknown): string {
  const text = String(value).trim();
  return Object.hasOwn(CARRIERS, text)
    ? w.t(`domain.carrier.${text as keyof typeof CARRIERS}`)
    : escapeClip(text, 60);
}
const CARRIERS = {
  SF: 1,
  YTO: 1,
  ZTO: 1,
  STO: 1,
  YUNDA: 1,
  JT: 1,
  JTSD: 1,
  JD: 1,
  DBKD: 1,
  DBL: 1,
  POSTB: 1,
  EMS: 1,
  HTKY: 1,
} as const;

function infoLine(w: Words, record: WaybillInfoRecord): string {
  const { t } = w;
  const number = codeOr(
    record.waybillCode,
    t('waybill.request', { id: escapeClip(record.objectId ?? '?', 64) }),
  );
  const fields: string[] = [];
  const carrier = infoField(record, INFO_FIELDS.carrier);
  if (carrier !== null) fields.push(carrierName(w, carrier));
  const status = infoField(record, INFO_FIELDS.status);
  if (status !== null) fields.push(escapeClip(String(status), 60));
  const trace = infoField(record, INFO_FIELDS.trace);
  if (trace !== null) {
    const at = unixSeconds(infoField(record, INFO_FIELDS.time));
    fields.push(
      at === null
        ? t('waybill.traceOnly', { event: escapeClip(String(trace), 200) })
        : t('waybill.trace', {
            event: escapeClip(String(trace), 200),
            time: w.dateTime(new Date(at * 1000)),
          }),
    );
  }
  return fields.length > 0
    ? t('waybill.infoLineFields', { number, fields: fields.join(t('common.sep')) })
    : t('waybill.infoLine', { number });
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
