/**
 * manifest.yml read and checked in the repository alone (DESIGN rule 9: no tool beside it).
 *
 * `readYaml` reads the YAML subset the manifest uses: block mappings and sequences by indentation,
 * `- key: value` items, plain, single- and double-quoted scalars, `>-` / `|` block scalars, and
 * comments; anything else (flow collections, anchors, tags) is rejected rather than misread.
 *
 * `manifestProblems` holds it to Slack's app manifest schema as documented
 * (https://docs.slack.dev/reference/app-manifest), for the parts platdesk uses, including the
 * `functions:` of Workflow Builder custom steps
 * (https://docs.slack.dev/workflows/workflow-steps, https://docs.slack.dev/reference/types).
 */
import { z } from 'zod';

type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml };

interface Line {
  indent: number;
  text: string;
  n: number;
}

function stripComment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || text[i - 1] === ' ')) return text.slice(0, i).trimEnd();
  }
  return text.trimEnd();
}

function scalar(raw: string, n: number): Yaml {
  const text = raw.trim();
  if (/^[[{&*!|>]/.test(text)) throw new Error(`line ${n}: unsupported YAML: ${text}`);
  if (text.startsWith('"')) return JSON.parse(text) as string;
  if (text.startsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === '' || text === '~' || text === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

export function readYaml(source: string): Yaml {
  const lines: Line[] = [];
  source.split('\n').forEach((raw, i) => {
    const text = stripComment(raw);
    if (text.trim() === '') return;
    if (/\t/.test(raw.slice(0, raw.length - raw.trimStart().length)))
      throw new Error(`line ${i + 1}: tab indentation`);
    lines.push({ indent: raw.length - raw.trimStart().length, text: text.trim(), n: i + 1 });
  });
  let at = 0;

  /** A block scalar (`>-`, `|`): the more indented lines after its key, raw (comments kept). */
  function blockScalar(style: string, parentIndent: number, startLine: number): string {
    const raw = source.split('\n');
    const parts: string[] = [];
    let i = startLine; // 0-based index of the line after the key
    while (i < raw.length) {
      const line = raw[i] ?? '';
      if (line.trim() !== '' && line.length - line.trimStart().length <= parentIndent) break;
      parts.push(line.trim());
      i++;
    }
    while (at < lines.length && (lines[at]?.n ?? 0) <= i) at++;
    const kept = parts.join(style.startsWith('>') ? ' ' : '\n').replace(/\s+$/, '');
    return style.endsWith('-') ? kept : `${kept}\n`;
  }

  function value(rest: string, indent: number, line: Line): Yaml {
    if (/^[>|]-?$/.test(rest)) return blockScalar(rest, indent, line.n);
    if (rest !== '') return scalar(rest, line.n);
    const next = lines[at];
    if (!next || next.indent < indent || (next.indent === indent && !next.text.startsWith('- '))) return null;
    return block(next.indent);
  }

  function block(indent: number): Yaml {
    const first = lines[at];
    if (!first) return null;
    if (first.text.startsWith('- ') || first.text === '-') {
      const list: Yaml[] = [];
      while (lines[at]?.indent === indent && lines[at]?.text.startsWith('-')) {
        const line = lines[at] as Line;
        const item = line.text.replace(/^-\s*/, '');
        const itemIndent = indent + (line.text.length - item.length);
        const pair = /^([\w.-]+):(?:\s+(.*))?$/.exec(item);
        if (pair) {
          // `- key: value` opens a mapping whose other keys sit at the item's indentation.
          lines[at] = { indent: itemIndent, text: item, n: line.n };
          list.push(mapping(itemIndent));
        } else {
          at++;
          list.push(scalar(item, line.n));
        }
      }
      return list;
    }
    return mapping(indent);
  }

  function mapping(indent: number): Yaml {
    const out: { [key: string]: Yaml } = {};
    while (at < lines.length && lines[at]?.indent === indent && !lines[at]?.text.startsWith('- ')) {
      const line = lines[at] as Line;
      const pair = /^("[^"]+"|[^:\s][^:]*?):(?:\s+(.*))?$/.exec(line.text);
      if (!pair?.[1]) throw new Error(`line ${line.n}: not a key: ${line.text}`);
      const key = pair[1].startsWith('"') ? (JSON.parse(pair[1]) as string) : pair[1];
      if (key in out) throw new Error(`line ${line.n}: duplicate key ${key}`);
      at++;
      out[key] = value(pair[2] ?? '', indent, line);
    }
    const stray = lines[at];
    if (stray && stray.indent > indent) throw new Error(`line ${stray.n}: unexpected indentation`);
    return out;
  }

  const doc = block(lines[0]?.indent ?? 0);
  if (at < lines.length) throw new Error(`line ${lines[at]?.n}: unexpected content`);
  return doc;
}

// ---- Slack's manifest schema (the parts platdesk uses) ---------------------------------------

/** Slack types a custom step's parameters may have (https://docs.slack.dev/reference/types). */
export const PARAMETER_TYPES = [
  'string',
  'integer',
  'number',
  'boolean',
  'array',
  'object',
  'slack#/types/user_id',
  'slack#/types/channel_id',
  'slack#/types/usergroup_id',
  'slack#/types/timestamp',
  'slack#/types/date',
  'slack#/types/message_ts',
  'slack#/types/rich_text',
  'slack#/types/blocks',
  'slack#/types/interactivity',
  'slack#/types/user_context',
  'slack#/types/message_context',
] as const;

const parameter = z
  .object({
    type: z.enum(PARAMETER_TYPES),
    title: z.string().min(1).max(100).optional(),
    description: z.string().max(500).optional(),
    hint: z.string().optional(),
    is_required: z.boolean().optional(),
    name: z.string().regex(/^[a-z][a-z0-9_]*$/),
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
  })
  .strict();

const parameters = z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), parameter);

const fn = z
  .object({
    title: z.string().min(1).max(100),
    description: z.string().max(500).optional(),
    input_parameters: parameters,
    output_parameters: parameters,
  })
  .strict();

export const manifestSchema = z
  .object({
    display_information: z
      .object({
        name: z.string().min(1).max(35),
        description: z.string().max(140).optional(),
        background_color: z
          .string()
          .regex(/^#[0-9a-fA-F]{6}$/)
          .optional(),
        long_description: z.string().max(4000).optional(),
      })
      .strict(),
    features: z.object({
      app_home: z.record(z.string(), z.boolean()).optional(),
      bot_user: z.object({ display_name: z.string().max(80), always_online: z.boolean() }).strict(),
      // The Messages tab's agent (as the assistant view before it): a description and at most
      // four default prompts, each a title and a message.
      agent_view: z
        .object({
          agent_description: z.string().min(1).max(1000),
          suggested_prompts: z
            .array(
              z.object({ title: z.string().min(1).max(75), message: z.string().min(1).max(2000) }).strict(),
            )
            .max(4)
            .optional(),
        })
        .strict()
        .optional(),
      slash_commands: z
        .array(
          z
            .object({
              command: z.string().regex(/^\/[a-z0-9_-]+$/),
              description: z.string().max(2000),
              usage_hint: z.string().max(1000).optional(),
              should_escape: z.boolean().optional(),
              url: z.string().optional(),
            })
            .strict(),
        )
        .max(50)
        .optional(),
      shortcuts: z
        .array(
          z
            .object({
              name: z.string().max(24),
              type: z.enum(['message', 'global']),
              callback_id: z.string().max(255),
              description: z.string().max(150),
            })
            .strict(),
        )
        .max(10)
        .optional(),
      unfurl_domains: z.array(z.string()).max(5).optional(),
    }),
    oauth_config: z.object({
      scopes: z.object({
        bot: z.array(z.string()).max(255).optional(),
        user: z.array(z.string()).optional(),
      }),
      redirect_urls: z.array(z.string()).optional(),
    }),
    settings: z
      .object({
        event_subscriptions: z
          .object({ bot_events: z.array(z.string()).max(100), request_url: z.string().optional() })
          .optional(),
        interactivity: z.object({ is_enabled: z.boolean(), request_url: z.string().optional() }).optional(),
        org_deploy_enabled: z.boolean().optional(),
        socket_mode_enabled: z.boolean().optional(),
        token_rotation_enabled: z.boolean().optional(),
        function_runtime: z.enum(['remote', 'slack']).optional(),
      })
      .strict(),
    functions: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), fn).optional(),
  })
  .strict();

export type Manifest = z.infer<typeof manifestSchema>;

/** Every way the manifest breaks the schema or the rules Slack adds for custom steps. */
export function manifestProblems(doc: unknown): string[] {
  const parsed = manifestSchema.safeParse(doc);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  const m = parsed.data;
  const problems: string[] = [];
  for (const [callbackId, f] of Object.entries(m.functions ?? {})) {
    for (const [kind, params] of [
      ['input_parameters', f.input_parameters],
      ['output_parameters', f.output_parameters],
    ] as const)
      for (const [key, p] of Object.entries(params))
        if (p.name !== key) problems.push(`functions.${callbackId}.${kind}.${key}: name is ${p.name}`);
  }
  if (m.functions && Object.keys(m.functions).length > 0) {
    // Custom steps run on the app's own servers (Bolt) and are offered org-wide.
    if (m.settings.function_runtime !== 'remote') problems.push('settings.function_runtime must be remote');
    if (m.settings.org_deploy_enabled !== true) problems.push('settings.org_deploy_enabled must be true');
  }
  return problems;
}
