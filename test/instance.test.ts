/**
 * What a process can know for certain about a claim's holder from its id (src/instance.ts): on
 * its own host, whether that process still exists; elsewhere nothing (the lease decides).
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { currentInstance, isCertainlyGone } from '../src/instance.js';

describe('instance ids', () => {
  const me = currentInstance();

  it('name the host and the process, and differ per start', () => {
    expect(me.id.startsWith(`${hostname()}/${process.pid}/`)).toBe(true);
    expect(currentInstance().id).not.toBe(me.id);
  });

  it('a holder on this host is gone when its process has exited or had this pid; alive otherwise', () => {
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    expect(isCertainlyGone(`${me.host}/${exited}/x`, me)).toBe(true);
    // An earlier start that had this process's pid (a restarted container is pid 1 again).
    expect(isCertainlyGone(`${me.host}/${process.pid}/earlier`, me)).toBe(true);
    // The parent of this process is alive.
    expect(isCertainlyGone(`${me.host}/${process.ppid}/x`, me)).toBe(false);
    expect(isCertainlyGone(me.id, me)).toBe(false);
  });

  it('a holder on another host, or an id of another form, may be alive: its lease decides', () => {
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    expect(isCertainlyGone(`elsewhere/${exited}/x`, me)).toBe(false);
    expect(isCertainlyGone('a-uuid-without-host', me)).toBe(false);
  });
});
