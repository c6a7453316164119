/**
 * Alerts to admins by direct message when the plat account itself fails: credential invalid
 * (401) or out of balance (204 "not enough calls"). At most one alert per kind per hour, so a
 * burst of failing lookups does not flood the admins.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { isPlatError } from '../plat/errors.js';
import type { AlertsSent } from '../store/store.js';

export interface AdminAlerts {
  /** Alerts the admins if the error is about the account; returns whether it was such an error. */
  notifyIfAccountError(error: unknown, context: { userId: string | null }): Promise<boolean>;
  /** Sends a text to every admin (callers decide how often). */
  notify(text: string): Promise<void>;
  /** Called with every alert sent (the App Home keeps them for admins to read). */
  onAlert?(listener: (text: string) => void): void;
}

const ACCOUNT_ERRORS: Record<string, string> = {
  credential_invalid:
    ':rotating_light: The plat access token was refused (code 401). Lookups fail until PLAT_TOKEN is refreshed.',
  quota_exhausted:
    ':rotating_light: The plat account is out of calls or balance (code 204). Lookups fail until it is recharged on the official site.',
};

export const ALERT_INTERVAL_MS = 60 * 60 * 1000;

export function createAdminAlerts(deps: {
  client: WebClient;
  admins: () => Promise<readonly string[]>;
  /** When each alert was last sent, in the store: every process sends it once per interval. */
  sent: AlertsSent;
  logger: Pick<Logger, 'warn' | 'error'>;
}): AdminAlerts {
  const listeners: ((text: string) => void)[] = [];
  const told = (text: string) => {
    for (const listener of listeners) {
      try {
        listener(text);
      } catch (err) {
        deps.logger.error({ err }, 'alert listener failed');
      }
    }
  };
  const notify = async (text: string) => {
    told(text);
    await Promise.all(
      (await deps.admins()).map((admin) =>
        deps.client.chat
          .postMessage({ channel: admin, text })
          .catch((err: unknown) => deps.logger.error({ err, admin }, 'admin alert not delivered')),
      ),
    );
  };
  return {
    notify,
    onAlert: (listener) => void listeners.push(listener),
    async notifyIfAccountError(error, context) {
      if (!isPlatError(error)) return false;
      const text = ACCOUNT_ERRORS[error.code];
      if (!text) return false;
      const due = await deps.sent.claim(`account:${error.code}`, ALERT_INTERVAL_MS).catch((err: unknown) => {
        // The store is down too: skip rather than alert on every failing lookup.
        deps.logger.error({ err }, 'account alert not sent: the store is unavailable');
        return false;
      });
      if (!due) return true;
      deps.logger.warn({ code: error.code, operation: error.operation }, 'plat account alert');
      const by = context.userId ? ` (seen on a lookup by <@${context.userId}>)` : '';
      told(`${text}${by}`);
      await Promise.all(
        (await deps.admins()).map((admin) =>
          deps.client.chat
            .postMessage({ channel: admin, text: `${text}${by}` })
            .catch((err: unknown) => deps.logger.error({ err, admin }, 'admin alert not delivered')),
        ),
      );
      return true;
    },
  };
}
