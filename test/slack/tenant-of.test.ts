/**
 * Which tenant a request belongs to (src/slack/tenant.ts): the enterprise of an org-wide Grid
 * install, else the team; the one tenant in single-workspace mode; and the authorize built over
 * the installations, which refuses a workspace that is not installed.
 */
import { describe, expect, it } from 'vitest';
import { authorizeFrom, tenantOf, UnknownTenantError } from '../../src/slack/tenant.js';
import { SINGLE_TENANT } from '../../src/store/tenants.js';

const bot = { botToken: 'xoxb-e', botUserId: 'UBOT', botId: 'BBOT' };

describe('tenantOf', () => {
  it('is the enterprise of an org-wide install, the team otherwise, and the single tenant in single mode', () => {
    const grid = { isEnterpriseInstall: true, enterpriseId: 'E0ORG', teamId: 'T0WS1' };
    expect(tenantOf(grid, 'distributed')).toBe('E0ORG');
    expect(tenantOf({ ...grid, teamId: 'T0WS2' }, 'distributed')).toBe('E0ORG');
    // A workspace of a Grid organisation installed on its own is its own tenant.
    expect(
      tenantOf({ isEnterpriseInstall: false, enterpriseId: 'E0ORG', teamId: 'T0WS1' }, 'distributed'),
    ).toBe('T0WS1');
    expect(tenantOf({}, 'distributed')).toBeNull();
    expect(tenantOf(grid, 'single')).toBe(SINGLE_TENANT);
  });
});

describe('authorizeFrom', () => {
  const authorize = authorizeFrom(async (tenant) => (tenant === 'E0ORG' ? bot : null));
  const body = {} as never;

  it('answers the bot of the org for any workspace of an org-wide install', async () => {
    const result = await authorize(
      { isEnterpriseInstall: true, enterpriseId: 'E0ORG', teamId: 'T0WS9', userId: 'U1' },
      body,
    );
    expect(result).toMatchObject({
      botToken: 'xoxb-e',
      botUserId: 'UBOT',
      botId: 'BBOT',
      enterpriseId: 'E0ORG',
    });
  });

  it('refuses a team that is not installed, naming only its ids', async () => {
    const refused = authorize(
      { isEnterpriseInstall: false, teamId: 'T0FORGED', enterpriseId: undefined },
      body,
    );
    await expect(refused).rejects.toBeInstanceOf(UnknownTenantError);
    await expect(refused).rejects.toMatchObject({ teamId: 'T0FORGED', enterpriseId: null });
  });
});
