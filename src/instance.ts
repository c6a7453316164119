/**
 * This process's identity in the store's claim records (store.ts ClaimHolder), and what can be
 * known for certain about another process from its id.
 *
 * A claim's lease tells, on its own, that a holder is gone once it runs out. A restart must not
 * wait for that to tell a user that their lookup was cut: an id names the host and the process id
 * it was made by, so a process can see at once that a holder on its own host is gone (that process
 * no longer exists, or its pid is now this process's own: an earlier run in the same container).
 * A holder on another host may be alive: its lease decides.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export interface Instance {
  /** `host/pid/random`: unique per process start. */
  id: string;
  host: string;
  pid: number;
}

export function currentInstance(): Instance {
  const host = hostname();
  return { id: `${host}/${process.pid}/${randomUUID()}`, host, pid: process.pid };
}

/** host and pid of an id made by currentInstance (a hostname holds no '/'); null for another form. */
function parse(id: string): { host: string; pid: number } | null {
  const parts = id.split('/');
  if (parts.length < 3) return null;
  const pid = Number(parts[parts.length - 2]);
  return Number.isInteger(pid) && pid > 0 ? { host: parts.slice(0, -2).join('/'), pid } : null;
}

/** Whether a process id exists on this host (signal 0 checks without sending anything). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True only when the holder `id` is certainly gone as seen from `me`: made on this host by a
 * process that no longer exists, or that had this process's pid (an earlier start of this
 * container or service). False when it may be alive.
 */
export function isCertainlyGone(id: string, me: Instance): boolean {
  if (id === me.id) return false;
  const other = parse(id);
  if (!other || other.host !== me.host) return false;
  return other.pid === me.pid || !processExists(other.pid);
}
