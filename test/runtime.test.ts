/**
 * The suite runs on the Node pinned in package.json (devDependency `node`), not on whatever the
 * machine has: npm scripts put node_modules/.bin first on PATH, so `npm test` runs vitest on the
 * pinned binary. If that pin were lost or bypassed, the suite would silently run on the system
 * Node (20 on the CI machine) and this test fails.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe('runtime', () => {
  it('is the pinned Node 24 LTS', () => {
    const pinned = pkg.devDependencies.node;
    expect(pinned).toMatch(/^24\.\d+\.\d+$/);
    expect(process.version).toBe(`v${pinned}`);
  });

  it('loads better-sqlite3 on it without a native abort', async () => {
    // The module is CommonJS (`export =`): its class is the ESM default export at run time.
    const { default: Database } = (await import('better-sqlite3')) as unknown as {
      default: typeof import('better-sqlite3');
    };
    const db = new Database(':memory:');
    const stmt = db.prepare('select sqlite_version() as v');
    expect(String((stmt.get() as { v: string }).v)).toMatch(/^3\./);
    db.close();
  });
});
