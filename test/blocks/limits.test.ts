import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { renderAccessModal, renderAutoLookupModal, renderPricesModal } from '../../src/blocks/home.js';
import { renderDigestAddModal } from '../../src/blocks/home-digest-form.js';
import { fitMessage, packSections } from '../../src/blocks/limits.js';
import { renderOrdersForm } from '../../src/blocks/orders-form.js';
import { blockKitProblems } from '../helpers/block-kit/check.js';
import { assertWithinSlackLimits, slackLimitProblems } from '../helpers/block-limits.js';
import { makeQuoteLine } from '../helpers/domain-factories.js';
import { en } from '../helpers/words.js';
import { allText, largeMessages } from './render-fixtures.js';

/** Every modal form the app opens, at its fullest. */
function forms(): { name: string; view: unknown }[] {
  return [
    { name: 'orders-form-enhanced', view: renderOrdersForm(en, { privateMetadata: '{}', edition: 1 }) },
    { name: 'orders-form-basic', view: renderOrdersForm(en, { privateMetadata: '{}', edition: 0 }) },
    {
      name: 'home-access-form',
      view: renderAccessModal(en, { mode: 'listed', users: ['U1'], groups: ['S1'], channels: ['C1'] }),
    },
    { name: 'home-autolookup-form', view: renderAutoLookupModal(en, [{ channelId: 'C1', cap: 5 }]) },
    {
      name: 'home-prices-form',
      view: renderPricesModal(
        en,
        [makeQuoteLine(), makeQuoteLine({ operation: 'get-shop-id', edition: null })],
        {
          platdybw: { '1': 3 },
        },
      ),
    },
    {
      name: 'home-digest-form',
      view: renderDigestAddModal(en, {
        shops: [{ alias: 'clothing', ownerId: '1001' }],
        defaultTimeZone: 'Asia/Shanghai',
        cost: { pagePoints: 5, capPoints: 200 },
      }),
    },
  ];
}

const sectionText = (b: KnownBlock | undefined) => (b?.type === 'section' ? (b.text?.text ?? '') : '');
const contextText = (b: KnownBlock | undefined) =>
  b?.type === 'context' && b.elements[0] && 'text' in b.elements[0] ? b.elements[0].text : '';

describe('packSections', () => {
  it('packs entries into few sections when they fit', () => {
    const blocks = packSections(['a', 'b', 'c'], {
      maxBlocks: 5,
      title: '*List*',
      more: (n) => `…and ${n} more`,
    });
    expect(blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: '*List*\na\nb\nc', verbatim: true } },
    ]);
  });

  it('cuts with an exact "…and N more" when the block budget runs out', () => {
    const entries = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(1000, 'x'));
    const blocks = packSections(entries, { maxBlocks: 4, more: (n) => `…and ${n} more things` });
    expect(blocks).toHaveLength(4);
    // 2 entries of 1000 + separator fit in 3000; 3 sections hold 6.
    expect(contextText(blocks[3])).toBe('…and 94 more things');
    for (const b of blocks.slice(0, 3)) expect(sectionText(b).length).toBeLessThanOrEqual(3000);
  });

  it('honours maxEntries and cuts an entry longer than a section on its own', () => {
    const blocks = packSections(['y'.repeat(5000), 'b', 'c'], {
      maxBlocks: 5,
      maxEntries: 2,
      more: (n) => `+${n}`,
    });
    expect(sectionText(blocks[0])).toHaveLength(3000);
    expect(sectionText(blocks[0]).endsWith('…')).toBe(true);
    expect(contextText(blocks.at(-1))).toBe('+1');
  });

  it('returns only the closing block when a single block is allowed and entries do not fit', () => {
    const blocks = packSections(['x'.repeat(2000), 'y'.repeat(2000)], {
      maxBlocks: 1,
      more: (n) => `…and ${n} more`,
    });
    expect(blocks.map((b) => b.type)).toEqual(['context']);
    expect(contextText(blocks[0])).toBe('…and 2 more');
  });
});

describe('fitMessage', () => {
  const many = Array.from(
    { length: 60 },
    (_, i): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text: `${i}` } }),
  );

  it('leaves a message that fits alone', () => {
    expect(fitMessage(many.slice(0, 50))).toHaveLength(50);
  });

  it('cuts to 50 keeping the last blocks and one "… +N" block (figures: no words without a reader)', () => {
    const fitted = fitMessage(many, { keepLast: 2 });
    expect(fitted).toHaveLength(50);
    expect(contextText(fitted[47])).toBe('… +11');
    expect(sectionText(fitted[48])).toBe('58');
    expect(sectionText(fitted[49])).toBe('59');
  });
});

describe('the limits checker', () => {
  it('reports what is over the limits', () => {
    const problems = slackLimitProblems([
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
      { type: 'section', text: { type: 'mrkdwn', text: 's'.repeat(3001) } },
      {
        type: 'actions',
        elements: [
          { type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b'.repeat(76) }, value: 'v' },
          {
            type: 'button',
            action_id: 'a',
            text: { type: 'plain_text', text: 'ok' },
            value: 'v'.repeat(2001),
          },
        ],
      },
      { type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) },
    ]);
    expect(problems.join('\n')).toMatch(
      /header 151|text 3001|text 76|duplicate action_id a|value must be|11 fields/,
    );
    expect(problems).toHaveLength(6);
  });
});

describe('every renderer fits Slack on large input', () => {
  const messages = largeMessages();

  it.each(messages.map((m) => [m.name, m.message] as const))('%s', (_name, message) => {
    assertWithinSlackLimits(message.blocks);
    expect(message.text.length).toBeGreaterThan(0);
    expect(message.text.length).toBeLessThanOrEqual(300);
  });

  it.each(messages.map((m) => [m.name, m.message] as const))('%s escapes foreign text', (_name, message) => {
    // The mentions platdesk writes itself (who claimed an alert, its channel) are the only ones.
    const text = allText(message).replace(/<@U(?:1234|5678)>|<#C1234>/g, '');
    expect(text).not.toMatch(/<[!@#]/);
    expect(text).not.toContain('<https://evil');
  });

  it.each([
    ...messages.map(({ name, message }) => [name, message] as const),
    ...forms().map(({ name, view }) => [name, view] as const),
  ])('%s passes the project Block Kit validator (test/helpers/block-kit)', (_name, payload) => {
    expect(blockKitProblems(payload)).toEqual([]);
  });
});
