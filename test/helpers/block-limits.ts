/**
 * Walks Block Kit blocks and fails, listing every problem, when anything is over Slack's limits
 * (https://docs.slack.dev/reference/block-kit/blocks). Lengths are counted in UTF-16 units, the
 * stricter count.
 */
import { expect } from 'vitest';

export type Surface = 'message' | 'modal' | 'home';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function textOf(obj: unknown): string | null {
  return isObject(obj) && typeof obj.text === 'string' ? obj.text : null;
}

/** Every problem found, empty when the blocks fit. */
export function slackLimitProblems(blocks: readonly unknown[], surface: Surface = 'message'): string[] {
  const problems: string[] = [];
  const maxBlocks = surface === 'message' ? 50 : 100;
  if (blocks.length > maxBlocks) problems.push(`${blocks.length} blocks in a ${surface} (max ${maxBlocks})`);
  if (blocks.length === 0) problems.push('no blocks');
  const actionIds = new Set<string>();
  const blockIds = new Set<string>();

  const checkText = (obj: unknown, where: string, max: number): void => {
    if (!isObject(obj)) {
      problems.push(`${where}: not a text object`);
      return;
    }
    if (obj.type !== 'plain_text' && obj.type !== 'mrkdwn')
      problems.push(`${where}: text type ${String(obj.type)}`);
    const text = textOf(obj);
    if (text === null || text.trim() === '') problems.push(`${where}: empty text`);
    else if (text.length > max) problems.push(`${where}: text ${text.length} chars (max ${max})`);
  };

  const checkElement = (el: unknown, where: string): void => {
    if (!isObject(el)) {
      problems.push(`${where}: not an element`);
      return;
    }
    if (typeof el.action_id === 'string') {
      if (actionIds.has(el.action_id)) problems.push(`${where}: duplicate action_id ${el.action_id}`);
      actionIds.add(el.action_id);
      if (el.action_id.length > 255) problems.push(`${where}: action_id over 255`);
    }
    if (el.type === 'button') {
      checkText(el.text, `${where} button text`, 75);
      if (isObject(el.text) && el.text.type !== 'plain_text')
        problems.push(`${where}: button text must be plain_text`);
      if (el.value !== undefined) {
        if (typeof el.value !== 'string' || el.value.length === 0 || el.value.length > 2000) {
          problems.push(`${where}: button value must be 1–2000 chars`);
        }
      }
      if (
        el.url !== undefined &&
        (typeof el.url !== 'string' || !/^https?:\/\//.test(el.url) || el.url.length > 3000)
      ) {
        problems.push(`${where}: button url must be http(s), at most 3000 chars`);
      }
      if (el.value === undefined && el.url === undefined)
        problems.push(`${where}: button with neither value nor url`);
    } else if (el.type === 'image' && el.slack_file !== undefined) {
      // A file uploaded to Slack: its source in full is the Block Kit validator's (block-kit/).
      if (typeof el.alt_text !== 'string' || el.alt_text.length === 0 || el.alt_text.length > 2000)
        problems.push(`${where}: alt_text must be 1–2000 chars`);
    } else if (el.type === 'image') {
      if (
        typeof el.image_url !== 'string' ||
        !/^https?:\/\//.test(el.image_url) ||
        el.image_url.length > 3000
      ) {
        problems.push(`${where}: image_url must be http(s), at most 3000 chars`);
      }
      if (typeof el.alt_text !== 'string' || el.alt_text.length === 0 || el.alt_text.length > 2000) {
        problems.push(`${where}: alt_text must be 1–2000 chars`);
      }
    } else if (el.type === 'plain_text' || el.type === 'mrkdwn') {
      checkText(el, where, 3000);
    }
  };

  blocks.forEach((block, i) => {
    if (!isObject(block)) {
      problems.push(`block ${i}: not an object`);
      return;
    }
    const where = `block ${i} (${String(block.type)})`;
    if (typeof block.block_id === 'string') {
      if (blockIds.has(block.block_id)) problems.push(`${where}: duplicate block_id ${block.block_id}`);
      blockIds.add(block.block_id);
      if (block.block_id.length > 255) problems.push(`${where}: block_id over 255`);
    }
    switch (block.type) {
      case 'section': {
        if (block.text === undefined && block.fields === undefined)
          problems.push(`${where}: needs text or fields`);
        if (block.text !== undefined) checkText(block.text, `${where} text`, 3000);
        if (block.fields !== undefined) {
          const fields = Array.isArray(block.fields) ? block.fields : [];
          if (fields.length === 0 || fields.length > 10)
            problems.push(`${where}: ${fields.length} fields (1–10)`);
          fields.forEach((f, j) => {
            checkText(f, `${where} field ${j}`, 2000);
          });
        }
        if (block.accessory !== undefined) checkElement(block.accessory, `${where} accessory`);
        break;
      }
      case 'header':
        checkText(block.text, `${where} text`, 150);
        if (isObject(block.text) && block.text.type !== 'plain_text')
          problems.push(`${where}: header must be plain_text`);
        break;
      case 'context': {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        if (elements.length === 0 || elements.length > 10)
          problems.push(`${where}: ${elements.length} elements (1–10)`);
        elements.forEach((e, j) => {
          checkElement(e, `${where} element ${j}`);
        });
        break;
      }
      case 'actions': {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        if (elements.length === 0 || elements.length > 25)
          problems.push(`${where}: ${elements.length} elements (1–25)`);
        elements.forEach((e, j) => {
          checkElement(e, `${where} element ${j}`);
        });
        break;
      }
      case 'image':
        checkElement(block, where);
        break;
      case 'divider':
        break;
      case 'context_actions': {
        // The agent's feedback buttons (https://docs.slack.dev/reference/block-kit/blocks/context-actions-block):
        // 1–5 elements; their own shape is the Block Kit validator's (block-kit/).
        const elements = Array.isArray(block.elements) ? block.elements : [];
        if (elements.length === 0 || elements.length > 5)
          problems.push(`${where}: ${elements.length} elements (1–5)`);
        break;
      }
      case 'table':
        // Rows, cells, characters and one-a-message: the Block Kit validator (block-kit/), which
        // test/blocks/i18n.test.ts runs over every render.
        break;
      default:
        problems.push(`${where}: block type not expected from platdesk renderers`);
    }
  });
  return problems;
}

/** Fails with every problem listed when the blocks do not fit Slack's limits. */
export function assertWithinSlackLimits(blocks: readonly unknown[], surface: Surface = 'message'): void {
  const problems = slackLimitProblems(blocks, surface);
  expect(problems, `Block Kit limits broken (${surface}):\n  ${problems.join('\n  ')}`).toEqual([]);
}
