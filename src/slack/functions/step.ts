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

/**
 * The person every step takes (manifest.yml), typed `slack#/types/user_context`: Slack fills it
 * from the trigger or a later interaction, and no workflow builder can type it (issue 34 H1), so
 * it is the spender. An id typed into any other input is not.
 */
const USER_CONTEXT_INPUT = 'user_context';
/** The channel the workflow says it posts the answer in (`slack#/types/channel_id`), if any. */
const CHANNEL_INPUT = 'channel';

const idOf = (value: unknown, pattern: RegExp): string | null =>
  typeof value === 'string' && pattern.test(value) ? value : null;

export function onStep(app: App, deps: SlackDeps, runnerOf: () => StepRunner, stepId: StepId): void {
  app.function(stepId, async ({ event, body, complete, fail }) => {
    const inputs = event.inputs as Record<string, unknown>;
    const context = inputs[USER_CONTEXT_INPUT];
    const vouched = typeof context === 'object' && context !== null ? (context as { id?: unknown }).id : null;
    const result = await runnerOf().run(
      {
        executionId: event.function_execution_id,
        // function_executed names the workflow's run, not the workflow (Slack's payload).
        workflowExecutionId: event.workflow_execution_id,
        stepId,
        userId: idOf(vouched, /^[UW][A-Z0-9]{2,30}$/),
        channelId: idOf(inputs[CHANNEL_INPUT], /^[CGD][A-Z0-9]{2,30}$/),
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
