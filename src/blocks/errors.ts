/**
 * One clear message per failure: a title and a remedy looked up by the error's stable code (the
 * remedy table is the catalog's `error.remedy`), what the service said, and what it cost, stated
 * only as far as it is known.
 */
import type { KnownBlock } from '@slack/types';
import {
  isPlatApiError,
  isPlatError,
  PlatBudgetError,
  PlatBusyError,
  type PlatError,
  type PlatErrorCode,
  PlatInputError,
  PlatOutOfServiceError,
  PlatSchemaError,
  PlatShopUnauthorizedError,
} from '../plat/errors.js';
import { OPERATIONS } from '../plat/operations.js';
import { isStoreUnavailable } from '../store/errors.js';
import { ACTIONS } from './action-ids.js';
import type { Words } from './i18n/words.js';
import { actions, button, context, message, type RenderedMessage, section } from './kit.js';
import { packSections } from './limits.js';
import { escapeClip } from './text.js';
import { describeCap, operationTitle, overBy, wantedWords } from './words-of.js';

export function errorTitle(w: Words, code: PlatErrorCode): string {
  return w.t(`error.title.${code}`);
}

/** The one sentence a support agent can act on, for this failure (raw text). */
export function errorRemedy(w: Words, error: PlatError): string {
  const { t } = w;
  if (error instanceof PlatBusyError) {
    const seconds = Math.max(1, Math.ceil(error.estimatedWaitMs / 1000));
    return t('error.remedy.busy', { count: seconds, n: w.count(seconds) });
  }
  if (error instanceof PlatBudgetError) {
    const quota = error.operation !== null && OPERATIONS[error.operation].charge === 'quota';
    return t('error.remedy.budget_exceeded', {
      cost: wantedWords(w, error.wantedPoints, quota ? 1 : 0, !quota, error.quotedPoints),
      cap: describeCap(w, error.cap),
      over: w.points(overBy(error.cap, error.wantedPoints)),
    });
  }
  if (error instanceof PlatShopUnauthorizedError && error.authUrl)
    return t('error.remedy.shop_unauthorized_link');
  if (error.code === 'aborted' && error.reachedService) return t('error.remedy.aborted_sent');
  if (error instanceof PlatOutOfServiceError) return t(`error.remedy.out_of_service_${error.reason}`);
  const code = error.code as Exclude<PlatErrorCode, 'busy' | 'budget_exceeded'>;
  return t(`error.remedy.${code}`);
}

/** Failures that happen before anything is sent (a cancel only while queued): they cannot have cost anything. */
const NOT_SENT: ReadonlySet<PlatErrorCode> = new Set([
  'invalid_input',
  'busy',
  'unavailable',
  'budget_exceeded',
  'aborted',
  'claim_lost',
  'lock_lost',
  'out_of_service',
  'no_plat_account',
]);

/**
 * What the failure cost over all its attempts (a retried 101/202 may be charged each time),
 * saying no more than is known: reported charges and item-quota calls are stated; "nothing was
 * charged" only when nothing was sent or the service's answer charged nothing. When no answer
 * could be read, an item call is counted as one call of the quota (the ledger overstates rather
 * than loses a call): that is said as a count, not as a known cost.
 */
export function errorChargeText(w: Words, error: PlatError): string {
  const { t } = w;
  const over = (text: string) =>
    error.attempts > 1 ? t('error.overAttempts', { text, n: w.count(error.attempts) }) : text;
  const points = error.chargePoints !== null && error.chargePoints > 0;
  const knownQuotaCalls = error.answered ? error.quotaCalls : 0;
  if (points || knownQuotaCalls > 0) {
    const quota = { count: knownQuotaCalls, n: w.count(knownQuotaCalls) };
    const cost =
      points && knownQuotaCalls > 0
        ? t('error.chargedAndQuota', {
            points: w.points(error.chargePoints ?? 0),
            quota: t('error.quotaCalls', quota),
          })
        : points
          ? t('error.chargedPoints', { points: w.points(error.chargePoints ?? 0) })
          : t('error.costQuota', { quota: t('error.quotaCalls', quota) });
    return t('error.sentence', { text: over(cost) });
  }
  const quota = error.operation !== null && OPERATIONS[error.operation].charge === 'quota';
  // An item operation's answer that took no quota call was refused before the query (plat/codes.ts).
  const notSent = NOT_SENT.has(error.code) && !error.reachedService;
  if (notSent || error.chargePoints === 0 || (quota && isPlatApiError(error)))
    return t('error.sentence', { text: over(t('error.nothingChargedBare')) });
  const counted =
    error.quotaCalls > 0
      ? t('error.countedAs', { count: error.quotaCalls, n: w.count(error.quotaCalls) })
      : '';
  if (error.code === 'timeout' || error.code === 'aborted') return t('error.timeoutCharge', { counted });
  // A connection closed after the request went out may have been counted, as a timeout may.
  if (error.code === 'connection_failed')
    return t(error.reachedService ? 'error.timeoutCharge' : 'error.noChargeReported', { counted });
  return quota ? t('error.quotaMayCount', { counted }) : t('error.serviceNoCharge');
}

function detailLines(w: Words, error: PlatError): string[] {
  if (error instanceof PlatInputError || error instanceof PlatSchemaError) {
    return error.issues.map((issue) => w.t('error.issue', { text: escapeClip(issue, 300) }));
  }
  return [];
}

/** The store (database) could not be reached: nothing was called, nothing charged. */
export function renderStoreUnavailable(w: Words): RenderedMessage {
  const text = w.t('error.storeUnavailable');
  return message(text, [section(text)]);
}

export function renderPlatError(w: Words, error: unknown): RenderedMessage {
  const { t } = w;
  if (isStoreUnavailable(error)) return renderStoreUnavailable(w);
  if (!isPlatError(error)) {
    const detail = error instanceof Error ? error.message : String(error);
    const text = t('error.failed', { detail: escapeClip(detail, 500) || t('error.noReason') });
    return message(text, [section(text)]);
  }

  const title = errorTitle(w, error.code);
  const lines = [t('error.heading', { title })];
  if (isPlatApiError(error)) {
    // A known code is told by its title and remedy, in the reader's language; the service's own
    // message (often English, "Shop not authorized") would only say it again. An unknown code has
    // nothing else: its message is shown, once.
    lines.push(
      error.apiMessage && error.code === 'unknown_code'
        ? t('error.serviceSaidMessage', { code: error.apiCode, message: escapeClip(error.apiMessage, 300) })
        : t('error.serviceSaid', { code: error.apiCode }),
    );
  }
  lines.push(escapeClip(errorRemedy(w, error), 500));

  const blocks: KnownBlock[] = [section(lines.join('\n'))];
  const details = detailLines(w, error);
  if (details.length > 0) {
    blocks.push(
      ...packSections(details, {
        maxBlocks: 4,
        maxEntries: 30,
        more: (n) => t('error.moreIssues', { count: n, n: w.count(n) }),
      }),
    );
  }
  if (error instanceof PlatShopUnauthorizedError && error.authUrl) {
    const auth = button({ label: t('error.authLink'), actionId: ACTIONS.errorAuthLink, url: error.authUrl });
    if (auth.url) blocks.push(actions([auth]));
  }

  const facts: string[] = [];
  if (error.operation !== null)
    facts.push(t('error.operation', { operation: operationTitle(w, error.operation) }));
  facts.push(errorChargeText(w, error));
  blocks.push(context(facts.join(t('common.sep'))));

  return message(t('error.fallback', { title, charge: errorChargeText(w, error) }), blocks, 1);
}
