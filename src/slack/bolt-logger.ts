/** Bolt's Logger interface on top of pino, so Bolt's own lines are JSON like ours. */
import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from 'pino';

/**
 * Where a library's debug line starts to carry a payload: Slack's Web API client logs every
 * request and answer body (`http request body: {…}`, `http request result: {…}`: messages with
 * goods names and order remarks), Bolt the ack bodies (`ack() … (body: …)`), the Socket Mode
 * client every message it receives. Such a line is kept up to there, with the rest omitted, so
 * LOG_LEVEL=debug still shows what happened and never what was said (DESIGN rule 6).
 */
const PAYLOAD_START = /[{[]|\(body:|WebSocket: /;

/** A library's debug line without the payload it carries. */
export function withoutPayload(line: string): string {
  const at = line.search(PAYLOAD_START);
  return at < 0 ? line : `${line.slice(0, at).trimEnd()} [payload omitted]`;
}

export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  let level = LogLevel.INFO;
  return {
    debug: (...msg: unknown[]) => child.debug(withoutPayload(msg.map(String).join(' '))),
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
