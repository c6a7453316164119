/** Bolt's Logger interface on top of pino, so Bolt's own lines are JSON like ours. */
import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from 'pino';

export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  let level = LogLevel.INFO;
  return {
    debug: (...msg: unknown[]) => child.debug(msg.map(String).join(' ')),
    info: (...msg: unknown[]) => child.info(msg.map(String).join(' ')),
    warn: (...msg: unknown[]) => child.warn(msg.map(String).join(' ')),
    error: (...msg: unknown[]) => child.error(msg.map(String).join(' ')),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
