/**
 * People's tokens for AI clients (issue 37, migration 23). Only a SHA-256 hash of each token is
 * kept (lookups/mcp-tokens.ts makes and hashes them); the token itself is shown once and never
 * stored. Reads by hash span tenants: a bearer token is all an MCP request carries, and its row
 * says whose it is. Every other read and write is bound to the context's tenant.
 */
import type { Selectable } from 'kysely';
import type { McpTokensTable, StoreContext } from './schema.js';
import type { McpToken, McpTokens } from './store.js';

const toToken = (r: Selectable<McpTokensTable>): McpToken => ({
  id: r.id,
  tenant: r.tenant_id,
  userId: r.user_id,
  name: r.name,
  createdAt: new Date(Number(r.created_at)),
  expiresAt: new Date(Number(r.expires_at)),
  lastUsedAt: r.last_used_at === null ? null : new Date(Number(r.last_used_at)),
  clientName: r.client_name,
  revokedAt: r.revoked_at === null ? null : new Date(Number(r.revoked_at)),
});

export function createMcpTokens({ db, nowMs, tenant }: StoreContext): McpTokens {
  return {
    async create(t) {
      // One live token per person and name: `revoke <name>` must name exactly one.
      return db.transaction().execute(async (trx) => {
        const taken = await trx
          .selectFrom('mcp_tokens')
          .select('id')
          .where('tenant_id', '=', tenant)
          .where('user_id', '=', t.userId)
          .where('name', '=', t.name)
          .where('revoked_at', 'is', null)
          .where('expires_at', '>', nowMs())
          .executeTakeFirst();
        if (taken) return false;
        await trx
          .insertInto('mcp_tokens')
          .values({
            id: t.id,
            tenant_id: tenant,
            user_id: t.userId,
            name: t.name,
            token_hash: t.hash,
            created_at: nowMs(),
            expires_at: t.expiresAt.getTime(),
            last_used_at: null,
            client_name: null,
            revoked_at: null,
            revoked_by: null,
          })
          .execute();
        return true;
      });
    },
    async byHash(hash) {
      const row = await db
        .selectFrom('mcp_tokens')
        .selectAll()
        .where('token_hash', '=', hash)
        .executeTakeFirst();
      return row ? toToken(row) : null;
    },
    async list(userId) {
      let q = db
        .selectFrom('mcp_tokens')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('revoked_at', 'is', null);
      if (userId !== null) q = q.where('user_id', '=', userId);
      const rows = await q.orderBy('created_at', 'desc').orderBy('id').limit(100).execute();
      return rows.map(toToken);
    },
    async revoke(name, userId, by) {
      let q = db
        .updateTable('mcp_tokens')
        .set({ revoked_at: nowMs(), revoked_by: by })
        .where('tenant_id', '=', tenant)
        .where('name', '=', name)
        .where('revoked_at', 'is', null);
      if (userId !== null) q = q.where('user_id', '=', userId);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async used(id, at, clientName) {
      await db
        .updateTable('mcp_tokens')
        .set({ last_used_at: at.getTime(), ...(clientName !== null ? { client_name: clientName } : {}) })
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .execute();
    },
  };
}
