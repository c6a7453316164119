/**
 * The tool catalog (lookups/tools.ts) in words: the manifest's `functions:` (English: Slack's
 * manifest has one language), and the title and description of each tool a model or an MCP
 * client reads. Types, bounds, defaults and which fields are required come from the tools' zod
 * schemas (as JSON Schema); titles and descriptions from the `tool.*` catalog keys.
 */
import { type ToolName, toolInputJsonSchema, toolOutputJsonSchema, toolsFor } from '../lookups/tools.js';
import { CATALOGS, type Words } from './i18n/words.js';

/** One parameter of a Workflow step as the manifest declares it (https://docs.slack.dev/reference/app-manifest). */
export interface ManifestParameter {
  type: string;
  title: string;
  description?: string;
  default?: string | number | boolean;
  minimum?: number;
  maximum?: number;
  is_required?: boolean;
  name: string;
}

export interface ManifestFunction {
  title: string;
  description: string;
  input_parameters: Record<string, ManifestParameter>;
  output_parameters: Record<string, ManifestParameter>;
}

interface JsonProperty {
  type?: string;
  slackType?: string;
  default?: string | number | boolean;
  minimum?: number;
  maximum?: number;
}
interface JsonObject {
  properties?: Record<string, JsonProperty>;
  required?: string[];
}

interface FieldWords {
  readonly title: string;
  readonly description?: string;
}
type ToolWords = {
  readonly title: string;
  readonly description: string;
  readonly in: Readonly<Record<string, FieldWords>>;
  readonly out: Readonly<Record<string, FieldWords>>;
};

/** The catalog's words of a tool in this language. */
export function toolWords(w: Pick<Words, 'locale'>, name: ToolName): ToolWords {
  return CATALOGS[w.locale].tool[name] as unknown as ToolWords;
}

function parameters(
  schema: JsonObject,
  words: Readonly<Record<string, FieldWords>>,
  statesOptional: boolean,
): Record<string, ManifestParameter> {
  const out: Record<string, ManifestParameter> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    const field = words[name];
    if (!field) throw new Error(`tool catalog: no words for parameter ${name}`);
    const param: Omit<ManifestParameter, 'name'> = {
      type: p.slackType ?? p.type ?? 'string',
      title: field.title,
    };
    if (field.description) param.description = field.description;
    if (p.default !== undefined) param.default = p.default;
    // zod's int() bounds every integer by the safe range: only a bound of the tool's own is said.
    if (p.minimum !== undefined && p.minimum > Number.MIN_SAFE_INTEGER) param.minimum = p.minimum;
    if (p.maximum !== undefined && p.maximum < Number.MAX_SAFE_INTEGER) param.maximum = p.maximum;
    // Inputs say whether each is required; outputs name only those always given.
    if (required.has(name) && p.default === undefined) param.is_required = true;
    else if (statesOptional) param.is_required = false;
    out[name] = { ...param, name };
  }
  return out;
}

/**
 * The manifest's `functions:`: every tool offered as a Workflow step, with the inputs every step
 * takes (issue 34 H1): `user_context`, the person Slack says started the workflow (no builder can
 * type it; the spender, checked like a person), and `channel`, where the workflow posts.
 */
export function manifestFunctions(w: Words): Record<string, ManifestFunction> {
  const { userContext, channel } = CATALOGS[w.locale].tool;
  const functions: Record<string, ManifestFunction> = {};
  for (const tool of toolsFor('step')) {
    const words = toolWords(w, tool.name);
    functions[tool.name] = {
      title: words.title,
      description: words.description,
      input_parameters: {
        ...parameters(toolInputJsonSchema(tool.name) as JsonObject, words.in, true),
        user_context: {
          type: 'slack#/types/user_context',
          title: userContext.title,
          description: userContext.description,
          is_required: false,
          name: 'user_context',
        },
        channel: {
          type: 'slack#/types/channel_id',
          title: channel.title,
          description: channel.description,
          is_required: false,
          name: 'channel',
        },
      },
      output_parameters: parameters(toolOutputJsonSchema(tool.name) as JsonObject, words.out, false),
    };
  }
  return functions;
}

/**
 * A tool as a model or an MCP client reads it: its description, and each input's title and
 * description, in one text (the JSON Schema carries the types).
 */
export function toolDescription(w: Words, name: ToolName): string {
  const words = toolWords(w, name);
  const inputs = Object.entries(words.in)
    .map(([field, f]) => `${field}: ${f.title}${f.description ? ` (${f.description})` : ''}`)
    .join('; ');
  return `${words.title}. ${words.description}. ${inputs}`;
}
