/**
 * What a process can know for certain about a claim's holder from its id (src/instance.ts): in
 * its own host, boot and pid namespace, whether that process still runs; anywhere else nothing
 * (the lease decides). Real processes: separate pid namespaces (`unshare`, as containers have
 * them) that share a hostname, an exited process, a zombie.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { currentInstance, type Instance, isCertainlyGone } from '../src/instance.js';

const ROOT = resolve(import.meta.dirname, '..');
const NODE = join(ROOT, 'node_modules/.bin/node');
const PROBE = ['--import', 'tsx', 'test/helpers/instance-probe.ts'];
/** A pid namespace of its own with its own /proc (as root; otherwise in a user namespace too). */
const UNSHARE = [
  'unshare',
  ...(process.getuid?.() === 0 ? [] : ['--map-root-user']),
  '--pid',
  '--fork',
  '--mount-proc',
];

interface Probe {
  child: ChildProcess;
  instance: Instance;
  ask(id: string): Promise<boolean>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The probe in a pid namespace of its own: it answers isCertainlyGone for the ids it is sent. */
async function probeInOwnNamespace(): Promise<Probe> {
  const [command, ...args] = [...UNSHARE, NODE, ...PROBE];
  const child = spawn(command as string, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines: Interface = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const next = () => once(lines, 'line').then(([line]) => JSON.parse(line as string) as unknown);
  const instance = (await next()) as Instance;
  return {
    child,
    instance,
    async ask(id) {
      const answer = next();
      child.stdin?.write(`${id}\n`);
      return ((await answer) as { gone: boolean }).gone;
    },
  };
}

describe('instance ids', () => {
  const me = currentInstance();

  it('name the host and the process, and differ per start', () => {
    expect(me.id.startsWith(`${hostname()}/${process.pid}/`)).toBe(true);
    expect(currentInstance().id).not.toBe(me.id);
  });

  it('a holder in this namespace is gone when its process has exited or had this pid; alive otherwise', () => {
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    const asIf = (pid: number) => me.id.replace(`/${process.pid}/`, `/${pid}/`);
    expect(isCertainlyGone(asIf(exited), me)).toBe(true);
    // An earlier process of this namespace that had this process's pid.
    expect(isCertainlyGone(me.id.replace(/[^/]+$/, 'earlier'), me)).toBe(true);
    // The parent of this process is alive.
    expect(isCertainlyGone(asIf(process.ppid), me)).toBe(false);
    expect(isCertainlyGone(me.id, me)).toBe(false);
  });

  it('a zombie holder (killed, not yet reaped by its parent) is gone', async () => {
    // `sleep 0` exits at once; its parent became `sleep 30`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(parent);
    const [line] = await once(createInterface({ input: parent.stdout as NodeJS.ReadableStream }), 'line');
    const zombie = Number(line);
    for (let i = 0; i < 50; i++) {
      const state = spawnSync('ps', ['-o', 'stat=', '-p', String(zombie)])
        .stdout.toString()
        .trim();
      if (state.startsWith('Z')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(
      spawnSync('ps', ['-o', 'stat=', '-p', String(zombie)])
        .stdout.toString()
        .trim(),
    ).toMatch(/^Z/);
    expect(isCertainlyGone(me.id.replace(`/${process.pid}/`, `/${zombie}/`), me)).toBe(true);
  });

  it('replicas that share a hostname in pid namespaces of their own (both pid 1) never take each other for gone', async () => {
    const [a, b] = await Promise.all([probeInOwnNamespace(), probeInOwnNamespace()]);
    expect(a.instance.host).toBe(b.instance.host);
    expect(a.instance.pid).toBe(b.instance.pid);
    expect(await a.ask(b.instance.id)).toBe(false);
    expect(await b.ask(a.instance.id)).toBe(false);
    // Nor does a process outside their namespaces, though the pid is this host's and long exited.
    expect(isCertainlyGone(a.instance.id, me)).toBe(false);
    // Within one namespace the check still works: an exited process of a's namespace is gone to a.
    const [command, ...args] = [...UNSHARE, NODE, ...PROBE, '--once'];
    const exited = spawnSync(command as string, args, { cwd: ROOT });
    const elsewhere = JSON.parse(exited.stdout.toString()) as Instance;
    expect(await a.ask(elsewhere.id)).toBe(false);
    expect(await a.ask(a.instance.id.replace(/[^/]+$/, 'earlier'))).toBe(true);
  });

  it('a holder on another host, or an id of another form, may be alive: its lease decides', () => {
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    expect(isCertainlyGone(`elsewhere/${exited}/x`, me)).toBe(false);
    expect(
      isCertainlyGone(me.id.replace(/^[^/]+/, 'elsewhere').replace(`/${process.pid}/`, `/${exited}/`), me),
    ).toBe(false);
    expect(isCertainlyGone('a-uuid-without-host', me)).toBe(false);
  });
});
