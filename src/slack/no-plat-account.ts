/**
 * An entry point that lists or offers lookups before any is prepared (the shortcuts' modal) asks
 * this first: the workspace's plat account is found missing by the one check in its plat client
 * (lookups/plat-accounts.ts forTenant, through lookups.ensureAccount), and the person is told so
 * instead of being offered a Confirm that could not be honoured.
 */

import type { Refusal } from '../lookups/access.js';
import { PlatNoAccountError } from '../plat/errors.js';
import type { SlackDeps } from './deps.js';

/** The refusal to show while the workspace has no plat account; null when it has one. */
export async function noAccountRefusal(deps: Pick<SlackDeps, 'lookups'>): Promise<Refusal | null> {
  try {
    await deps.lookups.ensureAccount();
    return null;
  } catch (error) {
    if (error instanceof PlatNoAccountError) return { reason: 'no_plat_account' };
    throw error;
  }
}
