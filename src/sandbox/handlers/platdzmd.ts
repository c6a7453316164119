/**
 * POST platdzmd: waybill information by waybill number (spec §4.6, §2.3). The spec lists only
 * object_id and waybill_code per record; the sandbox adds the kind of extra fields a logistics
 * query returns (carrier, status, last trace) so the client's "keep the rest as received" path
 * is exercised. No per-record success flag (notes.md): an unknown number has status NO_TRACE.
 */
import { ok, paramError } from '../envelope.js';
import { authorizedOwnerIds, WAYBILLS } from '../fixtures.js';
import { parseEdition, textOf } from '../params.js';
import { isRecord } from '../request-body.js';
import { jsonObjectBody, NOT_A_JSON_OBJECT, shopUnauthorized } from './common.js';
import type { Handler } from './context.js';

interface Lookup {
  objectId: string;
  waybillCode: string;
  wpCode: string;
}

export const platdzmd: Handler = (request, { account, anchorMs }) => {
  const body = jsonObjectBody(request);
  if (body === null) return paramError(NOT_A_JSON_OBJECT);
  const ownerId = textOf(body.owner_id);
  if (ownerId === null) return paramError('owner_id is required');
  const edition = parseEdition('platdzmd', body.vvtype);
  if (!edition.ok) return paramError(edition.reason);
  const list = body.param_list;
  if (!Array.isArray(list) || list.length === 0) return paramError('param_list is required');
  const lookups: Lookup[] = [];
  for (const [index, item] of list.entries()) {
    // spec §4.6: object_id, waybill_code and wp_code are each required.
    const fields = isRecord(item)
      ? {
          objectId: textOf(item.object_id),
          waybillCode: textOf(item.waybill_code),
          wpCode: textOf(item.wp_code),
        }
      : null;
    if (fields === null) return paramError(`param_list[${index}] must be an object`);
    const { objectId, waybillCode, wpCode } = fields;
    if (objectId === null) return paramError(`param_list[${index}].object_id is required`);
    if (waybillCode === null) return paramError(`param_list[${index}].waybill_code is required`);
    if (wpCode === null) return paramError(`param_list[${index}].wp_code is required`);
    lookups.push({ objectId, waybillCode, wpCode });
  }
  if (!authorizedOwnerIds.has(ownerId)) return shopUnauthorized(ownerId);

  return account.charge('platdzmd', edition.edition, (points) =>
    ok({
      plat_waybill_query_by_waybillcode_response: {
        modules: lookups.map((lookup) => ({ waybill_cloud_print_response: waybillInfo(lookup, anchorMs) })),
      },
      withholding_money: points,
    }),
  );
};

function waybillInfo({ objectId, waybillCode, wpCode }: Lookup, anchorMs: number): Record<string, unknown> {
  const waybill = WAYBILLS.get(waybillCode);
  return {
    object_id: objectId,
    waybill_code: waybillCode,
    wp_code: wpCode,
    wp_name: waybill?.carrierName ?? '',
    logistics_status: waybill?.status ?? 'NO_TRACE',
    logistics_status_desc: waybill?.statusText ?? '暂无物流信息',
    last_trace: waybill?.lastTrace ?? '',
    last_trace_time: waybill === undefined ? null : anchorMs - waybill.lastTraceAgoMs,
  };
}
