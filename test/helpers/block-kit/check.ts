/**
 * The project's Block Kit validator: every block against its own schema (schema.ts), plus the rules
 * Slack applies to a whole payload — at most 50 blocks in a message and 100 in a modal or the App
 * Home, block_id and action_id unique in one payload, input blocks only in views, one table block
 * and only in a message, a message's fallback text. Used over every render of every renderer (test/blocks) and over every message,
 * modal and Home view the app sends to the local Slack (slack-api-server.ts), which answers
 * `invalid_blocks` as Slack does.
 */
import type { z } from 'zod';
import { block, homeView, modalView } from './schema.js';

export type Surface = 'message' | 'modal' | 'home';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const MAX_BLOCKS: Record<Surface, number> = { message: 50, modal: 100, home: 100 };
/** https://docs.slack.dev/reference/methods/chat.postMessage: text beyond 40,000 characters is cut. */
const MAX_MESSAGE_TEXT = 40_000;

function issues(error: z.ZodError, where: string): string[] {
  return error.issues.map((i) => `${where}${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`);
}

/** The surface a payload is: a view by its `type`, anything else a message. */
export function surfaceOf(payload: unknown): Surface {
  const type = isObject(payload) ? payload.type : undefined;
  return type === 'modal' || type === 'home' ? type : 'message';
}

/**
 * Every problem Slack would refuse in a message (`{ text?, blocks?, …}`), a modal or a Home view;
 * empty when the payload is valid.
 */
export function blockKitProblems(payload: unknown, surface: Surface = surfaceOf(payload)): string[] {
  if (!isObject(payload)) return ['payload is not an object'];
  const problems: string[] = [];
  if (surface === 'modal' || surface === 'home') {
    const result = (surface === 'modal' ? modalView : homeView).safeParse(payload);
    if (!result.success) problems.push(...issues(result.error, 'view'));
  } else {
    if (payload.text !== undefined) {
      if (typeof payload.text !== 'string') problems.push('text: not a string');
      else if (payload.text.length > MAX_MESSAGE_TEXT)
        problems.push(`text: over ${MAX_MESSAGE_TEXT} characters`);
    }
    const hasText = typeof payload.text === 'string' && payload.text.trim() !== '';
    const hasBlocks = Array.isArray(payload.blocks) && payload.blocks.length > 0;
    if (!hasBlocks && !hasText) problems.push('message with neither text nor blocks');
  }
  if (payload.blocks === undefined) return problems;
  if (!Array.isArray(payload.blocks)) return [...problems, 'blocks: not an array'];
  const blocks = payload.blocks as unknown[];
  if (blocks.length > MAX_BLOCKS[surface])
    problems.push(`blocks: ${blocks.length} in a ${surface} (max ${MAX_BLOCKS[surface]})`);

  const blockIds = new Set<string>();
  const actionIds = new Set<string>();
  // https://docs.slack.dev/reference/block-kit/blocks/table-block: one table a message
  // (`only_one_table_allowed`), and a message block only (not in modals or the App Home).
  const tables = blocks.filter((b) => isObject(b) && b.type === 'table').length;
  if (tables > 0 && surface !== 'message') problems.push(`blocks: a table in a ${surface} (messages only)`);
  if (tables > 1) problems.push(`blocks: ${tables} tables in a message (only one allowed)`);
  blocks.forEach((b, i) => {
    const where = `blocks[${i}]${isObject(b) ? ` (${String(b.type)})` : ''}`;
    const result = block.safeParse(b);
    if (!result.success) problems.push(...issues(result.error, where));
    if (!isObject(b)) return;
    if (b.type === 'input' && surface === 'message') problems.push(`${where}: input blocks only in views`);
    if (typeof b.block_id === 'string') {
      if (blockIds.has(b.block_id)) problems.push(`${where}: duplicate block_id ${b.block_id}`);
      blockIds.add(b.block_id);
    }
    for (const id of actionIdsOf(b)) {
      if (actionIds.has(id)) problems.push(`${where}: duplicate action_id ${id}`);
      actionIds.add(id);
    }
  });
  return problems;
}

function actionIdsOf(b: Json): string[] {
  const elements = [b.accessory, b.element, ...(Array.isArray(b.elements) ? b.elements : [])];
  return elements.flatMap((e) => (isObject(e) && typeof e.action_id === 'string' ? [e.action_id] : []));
}

/** The Block Kit payloads a Slack Web API call (or a response_url post) carries. */
export function payloadsOfCall(
  method: string,
  body: Json,
): { name: string; payload: unknown; surface: Surface }[] {
  if (method.startsWith('views.'))
    return body.view === undefined
      ? []
      : [{ name: 'view', payload: body.view, surface: surfaceOf(body.view) }];
  if (method === 'chat.unfurl')
    return isObject(body.unfurls)
      ? Object.entries(body.unfurls)
          .filter(([, u]) => isObject(u) && u.blocks !== undefined)
          .map(([url, u]) => ({ name: `unfurl ${url}`, payload: u, surface: 'message' as const }))
      : [];
  const carriesMessage =
    method === 'response_url' ||
    [
      'chat.postMessage',
      'chat.postEphemeral',
      'chat.update',
      'chat.scheduleMessage',
      'chat.stopStream',
    ].includes(method);
  // A response_url post that only deletes the original, or a text-only update, has no blocks to check.
  if (!carriesMessage || body.blocks === undefined) return [];
  return [{ name: 'message', payload: body, surface: 'message' }];
}

/** Every problem in the Block Kit a call carries, each prefixed with the method and payload. */
export function blockKitProblemsOfCall(method: string, body: Json): string[] {
  return payloadsOfCall(method, body).flatMap(({ name, payload, surface }) =>
    blockKitProblems(payload, surface).map((p) => `${method} ${name}: ${p}`),
  );
}
