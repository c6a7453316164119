/**
 * One clear message per failure: a title, the error's own remedy, what the service said, and
 * what it cost, stated only as far as it is known.
 */
import type { KnownBlock } from '@slack/types';
import {
  isPlatApiError,
  isPlatError,
  type PlatError,
  type PlatErrorCode,
  PlatInputError,
  PlatSchemaError,
  PlatShopUnauthorizedError,
} from '../plat/errors.js';
import { OPERATIONS } from '../plat/operations.js';
import { isStoreUnavailable } from '../store/errors.js';
import { ACTIONS } from './action-ids.js';
import { actions, button, context, message, type RenderedMessage, section } from './kit.js';
import { packSections } from './limits.js';
import { escapeClip, formatPoints } from './text.js';

const TITLES: Record<PlatErrorCode, string> = {
  invalid_input: 'That input cannot be looked up',
  parameter_error: 'The data service rejected the request',
  upstream_timeout: 'The data service timed out',
  account_not_found: 'The messaging account does not exist',
  system_error: 'The data service reported a system error',
  retry_later: 'The data service is busy',
  unsupported: 'This lookup is not supported at present',
  no_permission: 'The plat account has no permission for this lookup',
  quota_exhausted: 'The plat account is out of balance',
  shop_unauthorized: 'The shop has not authorized platdesk',
  shop_not_subscribed: 'The shop has not subscribed to the app',
  credential_invalid: 'The plat access token is not valid',
  wrong_path: 'The plat service address looks wrong',
  unknown_code: 'The data service answered with an unexpected code',
  timeout: 'The data service did not answer in time',
  connection_failed: 'The data service could not be reached',
  bad_response: 'The data service sent an unreadable answer',
  schema_mismatch: 'The data service answered in an unexpected shape',
  busy: 'platdesk is busy',
  budget_exceeded: 'A spending cap would be exceeded',
  aborted: 'The lookup was cancelled',
};

export function errorTitle(code: PlatErrorCode): string {
  return TITLES[code];
}

/** Failures that happen before anything is sent: they cannot have cost anything. */
const NOT_SENT: ReadonlySet<PlatErrorCode> = new Set(['invalid_input', 'busy', 'budget_exceeded', 'aborted']);

/**
 * What the failure cost, saying no more than is known: a reported charge is stated; "nothing was
 * charged" only when nothing was sent or the service reported 0.
 */
export function errorChargeText(error: PlatError): string {
  if (error.chargePoints !== null && error.chargePoints > 0)
    return `Charged ${formatPoints(error.chargePoints)}.`;
  const quota = error.operation !== null && OPERATIONS[error.operation].charge === 'quota';
  // Item operations always report 0 points: their charge is a call of the quota (spec §8), which
  // an error answer (e.g. the item does not exist) may still have taken.
  if (NOT_SENT.has(error.code) || (error.chargePoints === 0 && !quota)) return 'Nothing was charged.';
  if (error.code === 'timeout') return 'No charge was reported; the service may still have counted the call.';
  if (error.code === 'connection_failed') return 'No charge was reported.';
  return quota
    ? 'No points were charged; the item quota may count this call.'
    : 'The service reported no charge.';
}

function detailLines(error: PlatError): string[] {
  if (error instanceof PlatInputError || error instanceof PlatSchemaError) {
    return error.issues.map((issue) => `• ${escapeClip(issue, 300)}`);
  }
  return [];
}

/** The store (database) could not be reached: nothing was called, nothing charged. */
export function renderStoreUnavailable(): RenderedMessage {
  const text =
    ':warning: *platdesk is temporarily unavailable* (its database cannot be reached). ' +
    'Nothing was looked up and nothing was charged. Try again in a minute.';
  return message(text, [section(text)]);
}

export function renderPlatError(error: unknown): RenderedMessage {
  if (isStoreUnavailable(error)) return renderStoreUnavailable();
  if (!isPlatError(error)) {
    const detail = error instanceof Error ? error.message : String(error);
    const text = `:warning: The lookup failed: ${escapeClip(detail, 500) || 'no reason given'}`;
    return message(text, [section(text)]);
  }

  const title = errorTitle(error.code);
  const lines = [`:warning: *${title}*`];
  if (isPlatApiError(error)) {
    const said = error.apiMessage ? `, ${escapeClip(error.apiMessage, 300)}` : '';
    lines.push(`The service said: code ${error.apiCode}${said}`);
  }
  // PlatBusyError's remedy states the estimated wait.
  lines.push(escapeClip(error.remedy, 500));

  const blocks: KnownBlock[] = [section(lines.join('\n'))];
  const details = detailLines(error);
  if (details.length > 0) {
    blocks.push(
      ...packSections(details, { maxBlocks: 4, maxEntries: 30, more: (n) => `…and ${n} more issues` }),
    );
  }
  if (error instanceof PlatShopUnauthorizedError && error.authUrl) {
    const auth = button({
      label: 'Open the authorization link',
      actionId: ACTIONS.errorAuthLink,
      url: error.authUrl,
    });
    if (auth.url) blocks.push(actions([auth]));
  }

  const facts: string[] = [];
  if (error.operation !== null) facts.push(`Lookup: ${OPERATIONS[error.operation].title}`);
  facts.push(errorChargeText(error));
  blocks.push(context(facts.join(' · ')));

  return message(`${title}. ${errorChargeText(error)}`, blocks, 1);
}
