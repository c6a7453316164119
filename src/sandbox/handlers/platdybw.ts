/**
 * POST platdybw: waybill print data by waybill number (spec §4.1, §2.2).
 * Quirks kept from the sample (notes.md): data.modules is an object holding the record array,
 * print_data is a string holding JSON, and a record can fail alone while the envelope says 0.
 */
import { ok, paramError } from '../envelope.js';
import { authorizedShopIds, printDataFor, WAYBILLS } from '../fixtures.js';
import { parseEdition, textOf } from '../params.js';
import { isRecord } from '../request-body.js';
import { jsonObjectBody, NOT_A_JSON_OBJECT, shopUnauthorized } from './common.js';
import type { Handler } from './context.js';

/** spec §4.1, §8: param_list holds at most 20 items. */
const MAX_WAYBILLS = 20;

export const platdybw: Handler = (request, { account, nextRequestId }) => {
  const body = jsonObjectBody(request);
  if (body === null) return paramError(NOT_A_JSON_OBJECT);
  const shopId = textOf(body.shop_id);
  if (shopId === null) return paramError('shop_id is required');
  const edition = parseEdition('platdybw', body.vvtype);
  if (!edition.ok) return paramError(edition.reason);
  const list = body.param_list;
  // Behaviour without param_list is not documented (notes.md: always send it); we refuse it.
  if (!Array.isArray(list) || list.length === 0) return paramError('param_list is required (1 to 20 items)');
  if (list.length > MAX_WAYBILLS) return paramError(`param_list holds at most ${MAX_WAYBILLS} items`);
  if (!list.every(isRecord)) return paramError('param_list items must be objects');
  if (!authorizedShopIds.has(shopId)) return shopUnauthorized(shopId);

  return account.charge('platdybw', edition.edition, (points) =>
    ok({
      modules: { waybill_cloud_print_with_result_desc_response: list.map(printRecord) },
      request_id: nextRequestId(),
      withholding_money: points,
    }),
  );
};

function printRecord(item: Record<string, unknown>): Record<string, unknown> {
  const objectId = textOf(item.object_id) ?? '';
  const waybillCode = textOf(item.waybill_code);
  if (waybillCode === null) {
    return {
      object_id: objectId,
      success: false,
      error_code: 'isv.invalid-parameter',
      error_message: '运单号不能为空 (waybill_code is required)',
    };
  }
  const waybill = WAYBILLS.get(waybillCode);
  if (waybill === undefined) {
    return {
      object_id: objectId,
      success: false,
      error_code: 'isv.waybill-not-exist',
      error_message: `电子面单不存在 (waybill ${waybillCode} does not exist)`,
    };
  }
  return {
    object_id: objectId,
    success: true,
    waybill_cloud_print_response: { print_data: printDataFor(waybill), waybill_code: waybill.waybillCode },
    ...(waybill.parentWaybillCode === undefined ? {} : { parent_waybill_code: waybill.parentWaybillCode }),
  };
}
