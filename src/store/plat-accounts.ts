/**
 * Each tenant's plat account (distributed mode, issue 24): the base URL and the token an admin of
 * the workspace entered, the token sealed (store/secrets.ts). The spec has no free call, so a
 * token is checked on its first use: `verified_at` is set by the first call it made that the plat
 * API accepted, `failure` holds the code of the last refusal of the token.
 */
import type { StoreContext } from './schema.js';
import { SecretError } from './secrets.js';
import type { PlatAccountRecord, PlatAccountStore } from './store.js';

const PLAT_TOKEN = 'plat.token';

export function createPlatAccounts(ctx: StoreContext): PlatAccountStore {
  const { db, nowMs } = ctx;
  const secrets = () => {
    if (!ctx.secrets)
      throw new SecretError('PLATDESK_ENCRYPTION_KEY is not set: plat accounts cannot be stored');
    return ctx.secrets;
  };
  return {
    async set(tenant, { baseUrl, token }, actorId) {
      const values = {
        base_url: baseUrl,
        token_sealed: secrets().seal(token, { tenant, purpose: PLAT_TOKEN }),
        updated_by: actorId,
        updated_at: nowMs(),
        verified_at: null,
        failure: null,
      };
      await db
        .insertInto('plat_accounts')
        .values({ tenant, ...values })
        .onConflict((oc) => oc.column('tenant').doUpdateSet(values))
        .execute();
    },
    async get(tenant): Promise<PlatAccountRecord | null> {
      const row = await db
        .selectFrom('plat_accounts')
        .selectAll()
        .where('tenant', '=', tenant)
        .executeTakeFirst();
      if (!row) return null;
      return {
        tenant,
        baseUrl: row.base_url,
        token: secrets().open(row.token_sealed, { tenant, purpose: PLAT_TOKEN }),
        updatedBy: row.updated_by,
        updatedAt: new Date(row.updated_at),
        verifiedAt: row.verified_at === null ? null : new Date(row.verified_at),
        failure: row.failure,
      };
    },
    async markVerified(tenant) {
      await db
        .updateTable('plat_accounts')
        .set({ verified_at: nowMs(), failure: null })
        .where('tenant', '=', tenant)
        .where('verified_at', 'is', null)
        .execute();
    },
    async markRefused(tenant, code) {
      await db
        .updateTable('plat_accounts')
        .set({ failure: code, verified_at: null })
        .where('tenant', '=', tenant)
        .execute();
    },
    async delete(tenant) {
      await db.deleteFrom('plat_accounts').where('tenant', '=', tenant).execute();
    },
    async reseal() {
      const box = secrets();
      const rows = await db.selectFrom('plat_accounts').select(['tenant', 'token_sealed']).execute();
      let resealed = 0;
      for (const { tenant, token_sealed } of rows) {
        if (box.keyIdOf(token_sealed) === box.currentKeyId) continue;
        const context = { tenant, purpose: PLAT_TOKEN };
        const updated = await db
          .updateTable('plat_accounts')
          .set({ token_sealed: box.seal(box.open(token_sealed, context), context) })
          .where('tenant', '=', tenant)
          // Only if no admin replaced the account meanwhile; counted only when written.
          .where('token_sealed', '=', token_sealed)
          .executeTakeFirst();
        resealed += Number(updated.numUpdatedRows);
      }
      return resealed;
    },
  };
}
