/**
 * `function_executed` → a step's run → `complete` with its outputs or `fail` with the reason,
 * worded in the workspace's language. Bolt acknowledges the event before the listener runs
 * (app.function's autoAcknowledge); the run's own work follows.
 *
 * A redelivery (same function_execution_id) is answered from the first delivery's stored outcome
 * and never charged again (lookups/steps.ts); while the first delivery still runs it does nothing,
 * since that one completes the step.
 */
import type { App } from '@slack/bolt';
import { stepFailure, stepOutputs } from '../../blocks/steps.js';
import type { StepId, StepRunner } from '../../lookups/steps.js';
import type { SlackDeps } from '../deps.js';

/** The person input every step declares (manifest.yml): "Person who used this workflow". */
const USER_INPUT = 'user';

export function onStep(app: App, deps: SlackDeps, runnerOf: () => StepRunner, stepId: StepId): void {
  app.function(stepId, async ({ event, body, complete, fail }) => {
    const inputs = event.inputs as Record<string, unknown>;
    const user = inputs[USER_INPUT];
    const result = await runnerOf().run(
      {
        executionId: event.function_execution_id,
        // function_executed names the workflow's run, not the workflow (Slack's payload).
        workflowExecutionId: event.workflow_execution_id,
        stepId,
        userId: typeof user === 'string' && /^[UW][A-Z0-9]+$/.test(user) ? user : null,
        teamId: (body as { team_id?: string }).team_id ?? null,
      },
      inputs,
    );
    if (result.kind === 'in_progress') {
      deps.logger.info(
        { stepId, executionId: event.function_execution_id },
        'step redelivered while it runs',
      );
      return;
    }
    const words = await deps.language.channel(null);
    if (result.kind === 'done') await complete({ outputs: stepOutputs(words, result, deps.now()) });
    else await fail({ error: stepFailure(words, stepId, result) });
  });
}
