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
import { errorTitle } from './errors.js';
import { actions, button, context, header, message, type RenderedMessage } from './kit.js';
import { packSections } from './limits.js';
import { escapeClip, mrkdwnLink, plural } from './text.js';

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

function code(text: string | null, fallback: string): string {
  return text?.trim() ? `\`${escapeClip(text.trim(), 64)}\`` : fallback;
}

function printLine(record: WaybillPrintRecord): string {
  const number = code(record.waybillCode, `request ${escapeClip(record.objectId ?? '?', 64)}`);
  const parent = record.parentWaybillCode?.trim() ? ` (parent ${code(record.parentWaybillCode, '')})` : '';
  if (!record.success) {
    const reason = [record.errorCode, record.errorMessage].filter((s) => s?.trim()).join(': ');
    return `:x: ${number}${parent}: ${escapeClip(reason || 'failed without a reason', 300)}`;
  }
  let print = 'no print template';
  if (record.printData) {
    const template = mrkdwnLink(record.printData.templateURL, 'print template');
    print = record.printData.ver ? `${template} (version ${escapeClip(record.printData.ver, 60)})` : template;
  } else if (record.printDataRaw) {
    print = 'print data in the file';
  }
  return `:white_check_mark: ${number}${parent}: ${print}`;
}

function batchLine(batch: FailedBatch): string {
  const shown = batch.waybillCodes.slice(0, 10).map((c) => escapeClip(c, 64));
  const rest = batch.waybillCodes.length - shown.length;
  const codes = `${shown.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`;
  return `:x: ${plural(batch.waybillCodes.length, 'waybill')} (${codes}) failed: *${errorTitle(batch.error.code)}.* ${remedyOf(batch.error)}`;
}

function remedyOf(error: PlatError): string {
  const remedy = escapeClip(error.remedy, 300);
  if (error instanceof PlatShopUnauthorizedError && error.authUrl) {
    return `${remedy} ${mrkdwnLink(error.authUrl, 'Authorization link')}`;
  }
  return remedy;
}

function failedBlocks(batches: readonly FailedBatch[]): KnownBlock[] {
  return packSections(batches.map(batchLine), { maxBlocks: 5, more: (n) => `…and ${n} more failed batches` });
}

export function renderWaybillPrint(
  outcome: WaybillPrintOutcome,
  options: WaybillPrintRenderOptions,
): RenderedMessage {
  const ok = outcome.records.filter((r) => r.success).length;
  const failed =
    outcome.records.length - ok + outcome.failedBatches.reduce((n, b) => n + b.waybillCodes.length, 0);
  const summary = `Shop ${escapeClip(outcome.shopId, 64)} · ${ok} found, ${failed} failed`;

  const blocks: KnownBlock[] = [header('Waybill print data'), context(summary)];
  blocks.push(
    ...packSections(outcome.records.map(printLine), {
      maxBlocks: 34,
      more: (n) => `…and ${n} more waybills`,
    }),
  );
  blocks.push(...failedBlocks(outcome.failedBatches));
  const tail: KnownBlock[] = [];
  const downloadable = outcome.records.some((r) => r.success && (r.printData || r.printDataRaw));
  if (options.downloadValue !== undefined && downloadable) {
    const download = button({
      label: 'Download print data (JSON)',
      actionId: ACTIONS.waybillDownload,
      value: options.downloadValue,
    });
    tail.push(actions([download]));
  }
  tail.push(renderChargeNote(options.charge));
  return message(`Waybill print data: ${summary}`, [...blocks, ...tail], tail.length);
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

function infoLine(record: WaybillInfoRecord): string {
  const number = code(record.waybillCode, `request ${escapeClip(record.objectId ?? '?', 64)}`);
  const fields = infoFields(record.extra);
  const rest = fields.length - MAX_FIELDS;
  const shown = fields.slice(0, MAX_FIELDS).join(' · ');
  return `• ${number}${shown ? `: ${shown}` : ''}${rest > 0 ? ` · and ${rest} more fields` : ''}`;
}

export function renderWaybillInfo(
  outcome: WaybillInfoOutcome,
  options: { charge: ChargeNote },
): RenderedMessage {
  const failed = outcome.failedBatches.reduce((n, b) => n + b.waybillCodes.length, 0);
  const summary = `Owner ${escapeClip(outcome.ownerId, 64)} · ${outcome.records.length} found${failed ? `, ${failed} failed` : ''}`;
  const blocks: KnownBlock[] = [header('Waybill information'), context(summary)];
  blocks.push(
    ...packSections(outcome.records.map(infoLine), { maxBlocks: 36, more: (n) => `…and ${n} more waybills` }),
  );
  blocks.push(...failedBlocks(outcome.failedBatches));
  blocks.push(renderChargeNote(options.charge));
  return message(`Waybill information: ${summary}`, blocks, 1);
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
