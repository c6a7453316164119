/**
 * Slack user group membership for access rules ("listed user groups"), read with
 * usergroups.users.list and kept for five minutes so a lookup does not wait on Slack each time.
 */
import type { WebClient } from '@slack/web-api';

export const GROUP_CACHE_MS = 5 * 60 * 1000;

export function createGroupMembership(client: WebClient, now: () => number = Date.now) {
  const cache = new Map<string, { at: number; members: Set<string> }>();
  return async function isInGroup(groupId: string, userId: string): Promise<boolean> {
    let entry = cache.get(groupId);
    if (!entry || now() - entry.at > GROUP_CACHE_MS) {
      const result = await client.usergroups.users.list({ usergroup: groupId });
      entry = { at: now(), members: new Set(result.users ?? []) };
      cache.set(groupId, entry);
    }
    return entry.members.has(userId);
  };
}
