/**
 * JSON logs with pino. Secrets and order receiver fields are redacted by path as a second line of
 * defence: the plat client never logs bodies, and orders lose their receiver fields at parse time.
 */

import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { currentCorrelationId } from './correlation.js';

export const REDACT_PATHS = [
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'authorization',
  'headers.authorization',
  '*.token',
  '*.botToken',
  '*.appToken',
  '*.signingSecret',
  '*.authorization',
  '*.headers.authorization',
  // Distributed mode (issue 24): OAuth secrets, rotating tokens and the encryption keys.
  'clientSecret',
  'stateSecret',
  'refreshToken',
  'botRefreshToken',
  'client_secret',
  'refresh_token',
  'access_token',
  'encryptionKeys',
  '*.clientSecret',
  '*.stateSecret',
  '*.refreshToken',
  '*.botRefreshToken',
  '*.client_secret',
  '*.refresh_token',
  '*.access_token',
  '*.encryptionKeys',
  'receiver_name',
  'receiver_phone',
  'receiver_address',
  'address',
  '*.receiver_name',
  '*.receiver_phone',
  '*.receiver_address',
  '*.address',
];

export function createLogger(level: LoggerOptions['level'], destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: level ?? 'info',
    base: { app: 'platdesk' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Every line written while a Slack request is handled carries its correlation id.
    mixin: () => {
      const correlationId = currentCorrelationId();
      return correlationId ? { correlationId } : {};
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
