/**
 * Workflow Builder steps (issue 25): one registration for the four steps manifest.yml declares
 * under `functions:` (CONVENTIONS 16: one registration per kind of surface).
 */
import type { App } from '@slack/bolt';
import { createStepRunner, STEP_IDS } from '../../lookups/steps.js';
import type { SlackDeps } from '../deps.js';
import { onStep } from './step.js';

export function registerFunctions(app: App, deps: SlackDeps): void {
  // Made per run: deps reads the request's tenant (slack/tenant.ts), so a runner made here at
  // registration would hold one tenant's store, approvals and lookups for every workspace.
  const runnerOf = () =>
    createStepRunner({
      lookups: deps.lookups,
      store: deps.store,
      ordersEdition: () => deps.client.editionFor('paging-orders') ?? 1,
    });
  for (const stepId of STEP_IDS) onStep(app, deps, runnerOf, stepId);
}
