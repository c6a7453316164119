/**
 * Alerts to admins by direct message when the plat account itself fails: credential invalid
 * (401) or out of balance (204 "not enough calls"), and when a spending cap warns or refuses.
 * At most one account alert per kind per hour, so a burst of failing lookups does not flood the
 * admins. Alerts are data; each admin reads them in their own language.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { alertText } from '../blocks/home.js';
import type { AdminAlert } from '../lookups/home-data.js';
import { isPlatError } from '../plat/errors.js';
import type { AlertsSent } from '../store/store.js';
import type { LocaleResolver } from './locale-resolver.js';

export interface AdminAlerts {
  /** Alerts the admins if the error is about the account; returns whether it was such an error. */
  notifyIfAccountError(error: unknown, context: { userId: string | null }): Promise<boolean>;
  /** Sends an alert to every admin (callers decide how often). */
  notify(alert: AdminAlert): Promise<void>;
  /** Called with every alert sent (the App Home keeps them for admins to read). */
  onAlert?(listener: (alert: AdminAlert) => void): void;
}

const ACCOUNT_CODES = new Set(['credential_invalid', 'quota_exhausted'] as const);
type AccountCode = 'credential_invalid' | 'quota_exhausted';
const isAccountCode = (code: string): code is AccountCode => ACCOUNT_CODES.has(code as AccountCode);

export const ALERT_INTERVAL_MS = 60 * 60 * 1000;

export function createAdminAlerts(deps: {
  client: WebClient;
  admins: () => Promise<readonly string[]>;
  language: Pick<LocaleResolver, 'user'>;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** When each alert was last sent, shared by every process (store.ts AlertsSent). */
  sent: AlertsSent;
}): AdminAlerts {
  const listeners: ((alert: AdminAlert) => void)[] = [];
  const notify = async (alert: AdminAlert) => {
    for (const listener of listeners) {
      try {
        listener(alert);
      } catch (err) {
        deps.logger.error({ err }, 'alert listener failed');
      }
    }
    await Promise.all(
      (await deps.admins()).map(async (admin) => {
        try {
          const text = alertText(await deps.language.user(admin), alert);
          await deps.client.chat.postMessage({ channel: admin, text });
        } catch (err) {
          deps.logger.error({ err, admin }, 'admin alert not delivered');
        }
      }),
    );
  };
  return {
    notify,
    onAlert: (listener) => void listeners.push(listener),
    async notifyIfAccountError(error, context) {
      if (!isPlatError(error) || !isAccountCode(error.code)) return false;
      // At most hourly, whichever process sees the failure first (one conditional write).
      if (!(await deps.sent.claim(`account|${error.code}`, ALERT_INTERVAL_MS))) return true;
      deps.logger.warn({ code: error.code, operation: error.operation }, 'plat account alert');
      await notify({ kind: 'account', code: error.code, userId: context.userId });
      return true;
    },
  };
}
