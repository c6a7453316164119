/**
 * Fails the test during which the app sent the local Slack (slack-api-server.ts) Block Kit that
 * Slack would refuse, or words a bilingual editor would mark (test/helpers/wording.ts), naming
 * every problem: so every message, modal and Home view any suite renders through the real Bolt
 * app is validated and read (vitest `setupFiles`).
 */
import { afterAll, afterEach, expect } from 'vitest';
import { takeBlockKitRejections, takeWordingProblems } from '../slack-api-server.js';

function expectNoRejections(): void {
  const problems = takeBlockKitRejections();
  expect(problems, `Block Kit that Slack would refuse:\n  ${problems.join('\n  ')}`).toEqual([]);
  const wording = takeWordingProblems();
  expect(wording, `Words a bilingual editor would mark:\n  ${wording.join('\n  ')}`).toEqual([]);
}

afterEach(expectNoRejections);
afterAll(expectNoRejections);
