/**
 * vitest globalSetup: one PostgreSQL server for the whole run (each suite makes its own
 * database on it), stopped and removed at the end. Without the server binaries the run fails
 * here, loudly (helpers/postgres-server.ts).
 */
import type { TestProject } from 'vitest/node';
import { type PostgresServer, startPostgres } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared test server's maintenance URL (database `postgres`). */
    postgresUrl: string;
  }
}

let server: PostgresServer | null = null;

export async function setup(project: TestProject): Promise<void> {
  server = await startPostgres();
  project.provide('postgresUrl', server.url);
}

export async function teardown(): Promise<void> {
  await server?.remove();
}
