/**
 * This process's identity in the store's claim records (store.ts ClaimHolder), and what can be
 * known for certain about another process from its id.
 *
 * A claim's lease tells, on its own, that a holder is gone once it runs out. A restart must not
 * wait for that to tell a user that their lookup was cut: an id names where the process ran, so a
 * process can see at once that a holder that ran beside it is gone.
 *
 * "Beside it" must be proven, not guessed from a hostname: replicas with host networking or a fixed
 * `hostname:` share a hostname, and containers each have a pid namespace of their own, where the
 * first process is pid 1 in every one of them. So an id names the host, the pid, the pid namespace
 * (`/proc/self/ns/pid`, e.g. `pid:[4026532178]`) and the boot (`/proc/sys/kernel/random/boot_id`,
 * one per boot of a machine, the same in all its containers), and ends in a random part that makes
 * it unique per process start. Only a holder of the same host, boot and pid namespace can be
 * checked: pids are unique within one namespace at a time. Anywhere else (another namespace,
 * another machine, a system without /proc, an id of an older build) its lease decides.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

export interface Instance {
  /** `host/pid/pidns/boot/random`: unique per process start. */
  id: string;
  host: string;
  pid: number;
  /** This process's pid namespace (`pid:[inode]`); null where it cannot be read. */
  pidNs: string | null;
  /** The machine's boot id; null where it cannot be read. */
  bootId: string | null;
}

/** A field of an id: '/' would break the id apart, and '-' stands for "unknown". */
const field = (value: string | null): string => (value ? value.replaceAll('/', '_') : '-');

function readOrNull(read: () => string): string | null {
  try {
    return read().trim() || null;
  } catch {
    return null;
  }
}

export function currentInstance(): Instance {
  const host = hostname();
  const pidNs = readOrNull(() => readlinkSync('/proc/self/ns/pid'));
  const bootId = readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
  return {
    id: `${field(host)}/${process.pid}/${field(pidNs)}/${field(bootId)}/${randomUUID()}`,
    host,
    pid: process.pid,
    pidNs,
    bootId,
  };
}

interface Where {
  host: string;
  pid: number;
  pidNs: string;
  bootId: string;
}

/** Where an id made by currentInstance ran; null for another form, or one that could not name its namespace. */
function parse(id: string): Where | null {
  const parts = id.split('/');
  if (parts.length !== 5) return null;
  const [host, pidText, pidNs, bootId] = parts as [string, string, string, string, string];
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || pidNs === '-' || bootId === '-') return null;
  return { host, pid, pidNs, bootId };
}

/**
 * Whether a process of this pid namespace is alive. Signal 0 checks without sending anything; a
 * zombie (killed or exited, not yet reaped by its parent: state Z, or X while being reaped) still
 * answers it, but runs nothing any more, so it is gone.
 */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readOrNull(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // "pid (comm) state …": comm may hold spaces and parentheses, so the state follows the last ')'.
  const state = stat?.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/**
 * True only when the holder `id` is certainly gone as seen from `me`: made on this host, in this
 * boot and in this pid namespace by a process that no longer runs (exited, or a zombie), or that
 * had this process's pid (an earlier process of this namespace: pids are unique in it while they
 * live). False when it may be alive, or when nothing can be proven (another namespace or host).
 */
export function isCertainlyGone(id: string, me: Instance): boolean {
  if (id === me.id || me.pidNs === null || me.bootId === null) return false;
  const other = parse(id);
  if (!other) return false;
  if (other.host !== field(me.host) || other.bootId !== field(me.bootId) || other.pidNs !== field(me.pidNs))
    return false;
  return other.pid === me.pid || !processAlive(other.pid);
}
