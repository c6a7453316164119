/**
 * Slack's request verification through the real app in HTTP mode: a signed request whose
 * timestamp is more than 5 minutes away from now is refused in either direction (401, no listener
 * runs); within the bound it is served.
 * https://docs.slack.dev/authentication/verifying-requests-from-slack#validating-a-request
 */
import { describe, expect, it } from 'vitest';
import { SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import { signedRequest } from '../helpers/slack-http.js';
import { slashCommand } from '../helpers/slack-payloads.js';

const MINUTE_S = 60;

describe('signed request timestamps (HTTP mode)', () => {
  const h = useHarness();

  /** `/item help` signed at `offsetS` from now, posting its answer to a response_url of its own. */
  async function helpSignedAt(offsetS: number) {
    const id = `signed-${offsetS}`;
    const body = slashCommand({ command: '/item', text: 'help', responseUrl: h().fake.responseUrl(id) });
    const timestamp = Math.floor(Date.now() / 1000) + offsetS;
    const res = await signedRequest(h().eventsUrl, SIGNING_SECRET, { kind: 'form', body, timestamp });
    return { status: res.status, id };
  }

  it('refuses a timestamp more than 5 minutes in the future, as it refuses one 5 minutes old', async () => {
    for (const offsetS of [6 * MINUTE_S, 24 * 60 * MINUTE_S, -6 * MINUTE_S]) {
      const { status, id } = await helpSignedAt(offsetS);
      expect(status, `signed ${offsetS} s from now`).toBe(401);
      await h().settle(100);
      expect(h().responses(id), `signed ${offsetS} s from now`).toEqual([]);
    }
    // Refusals are summed up in the log (at most a line a minute: a flood cannot flood it).
    expect(h().logs().join('\n')).toMatch(/"refused":\{"stale":\d+\}/);
  });

  it('serves a timestamp within 5 minutes either way (clock skew)', async () => {
    for (const offsetS of [4 * MINUTE_S, -4 * MINUTE_S, 0]) {
      const { status, id } = await helpSignedAt(offsetS);
      expect(status, `signed ${offsetS} s from now`).toBe(200);
      expect(textOf(await h().nextResponse(id))).toContain('How to use /item');
    }
  });
});
