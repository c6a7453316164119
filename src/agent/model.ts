/**
 * The optional language model behind one interface (issue 36): configured by environment only
 * (AGENT_MODEL_PROVIDER `openai-compatible` or `anthropic`, AGENT_MODEL_BASE_URL, AGENT_MODEL,
 * AGENT_MODEL_KEY; config.ts), used through the AI SDK with its OpenAI-compatible and Anthropic
 * providers. The model's tools are the catalog's agent tools (lookups/tools.ts): the same zod
 * inputs as the Workflow steps, described by the words the caller hands in.
 *
 * The model only proposes: its tool calls are never executed here. They become a plan that goes
 * through the same pricing, caps and Confirm as the deterministic planner's (agent/plans.ts).
 * What the model is given: the question (with phone and ID numbers masked), the registered shop
 * aliases, today's date and the thread's earlier findings (ids only). Never order data, receiver
 * data or remarks. A model that fails, runs past its deadline or proposes something that does not
 * validate is not retried: the caller falls back to the deterministic planner and says so.
 *
 * The AI SDK and the provider packages are loaded on first use, so a platdesk without a model
 * configured never loads them.
 */
import type { ToolSet } from 'ai';
import { isToolName, type ToolName, toolInput, toolsFor } from '../lookups/tools.js';
import type { Ref, ThreadContext, ToolCall } from './planner.js';

export interface ModelSettings {
  provider: 'openai-compatible' | 'anthropic';
  baseUrl: string | null;
  model: string;
  key: string | null;
  /** The model's answer must arrive within this (its deadline). */
  timeoutMs: number;
}

export interface ModelInput {
  text: string;
  now: Date;
  /** Registered shop aliases (no ids beyond what the registry already names). */
  shops: readonly string[];
  context: ThreadContext;
}

/** Why the model's proposal was not used (blocks/agent.ts says so to the person). */
export type ModelFailure = 'down' | 'timeout' | 'invalid';

export type ModelProposal =
  | { ok: true; calls: ToolCall[] }
  | { ok: false; failure: ModelFailure; detail: string };

export interface ModelPlanner {
  /** provider and model, for logs and the plan's note. */
  readonly label: string;
  propose(input: ModelInput): Promise<ModelProposal>;
}

/** A question as the model may see it: phone numbers and ID numbers masked. */
export function maskPersonal(text: string): string {
  return text
    .replace(/(?<!\d)1[3-9]\d{9}(?!\d)/g, '[phone]')
    .replace(/(?<![\dA-Za-z])\d{17}[\dXx](?![\dA-Za-z])/g, '[id]');
}

const refLine = (r: Ref, i: number): string => {
  switch (r.kind) {
    case 'item':
      return `${i + 1}. item ${r.itemId}${r.link ? ` ${r.link}` : ''}`;
    case 'waybill':
      return `${i + 1}. waybill ${r.code}${r.carrier ? ` (${r.carrier})` : ''}${r.ownerId ? ` owner ${r.ownerId}` : ''}`;
    case 'shop':
      return `${i + 1}. shop ${r.shopId ?? ''}${r.link ? ` of ${r.link}` : ''}`;
    case 'order':
      return `${i + 1}. order ${r.orderSn} of owner ${r.ownerId}`;
  }
};

function systemPrompt(input: ModelInput): string {
  const cst = new Date(input.now.getTime() + 8 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
  return [
    'You plan lookups for support staff of marketplace shops. Answer ONLY with tool calls: one call per lookup needed.',
    'Never invent ids. Use a registered shop alias or an owner id the user gave. Times are China time (UTC+8).',
    'An order time window is at most 24 hours: one orders_page call per day.',
    `Now: ${cst} (China time).`,
    `Registered shops: ${input.shops.length > 0 ? input.shops.join(', ') : 'none'}.`,
    input.context.refs.length > 0
      ? `The thread's earlier findings:\n${input.context.refs.map(refLine).join('\n')}`
      : 'The thread has no earlier findings.',
  ].join('\n');
}

/** Checks the model's calls against the catalog's schemas; null when one does not validate. */
export function validCalls(calls: readonly { toolName: string; input: unknown }[]): ToolCall[] | null {
  const agentTools = new Set<string>(toolsFor('agent').map((t) => t.name));
  const out: ToolCall[] = [];
  for (const call of calls) {
    if (!isToolName(call.toolName) || !agentTools.has(call.toolName)) return null;
    const parsed = toolInput(call.toolName).safeParse(call.input);
    if (!parsed.success) return null;
    out.push({ tool: call.toolName, input: parsed.data as Record<string, unknown> });
  }
  return out.length > 0 ? out : null;
}

/**
 * The model planner for the settings. `describe`: each tool's description (blocks/tools.ts
 * toolDescription, in English); `fetch`: for tests and proxies (default: the global fetch).
 */
export function createModelPlanner(
  settings: ModelSettings,
  describe: (name: ToolName) => string,
  options: { fetch?: typeof fetch } = {},
): ModelPlanner {
  let model: Promise<unknown> | null = null;
  const load = async () => {
    if (settings.provider === 'anthropic') {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      const provider = createAnthropic({
        ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
        ...(settings.key ? { apiKey: settings.key } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      return provider(settings.model);
    }
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    const provider = createOpenAICompatible({
      name: 'platdesk-model',
      baseURL: settings.baseUrl ?? '',
      ...(settings.key ? { apiKey: settings.key } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    return provider.chatModel(settings.model);
  };

  return {
    label: `${settings.provider}:${settings.model}`,
    async propose(input) {
      const { generateText, tool } = await import('ai');
      model ??= load();
      // Tools without `execute`: the SDK hands their calls back instead of running them. The
      // catalog's schemas are typed as a plain zod object, wider than ToolSet's inference.
      const tools = Object.fromEntries(
        toolsFor('agent').map((t) => [
          t.name,
          tool({ description: describe(t.name), inputSchema: toolInput(t.name) }),
        ]),
      ) as ToolSet;
      const signal = AbortSignal.timeout(settings.timeoutMs);
      try {
        const result = await generateText({
          model: (await model) as Parameters<typeof generateText>[0]['model'],
          system: systemPrompt(input),
          prompt: maskPersonal(input.text),
          tools,
          toolChoice: 'required',
          // One answer or none: a retry would only push the person's wait past the deadline.
          maxRetries: 0,
          abortSignal: signal,
        });
        const calls = validCalls(result.toolCalls.map((c) => ({ toolName: c.toolName, input: c.input })));
        if (!calls)
          return {
            ok: false,
            failure: 'invalid',
            detail: `${result.toolCalls.length} tool calls, not all valid`,
          };
        return { ok: true, calls };
      } catch (error) {
        const timedOut = signal.aborted;
        return {
          ok: false,
          failure: timedOut
            ? 'timeout'
            : /invalid|parse|schema|type validation/i.test(String(error))
              ? 'invalid'
              : 'down',
          detail: error instanceof Error ? error.name : 'error',
        };
      }
    },
  };
}
