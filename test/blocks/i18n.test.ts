/**
 * The catalog and every renderer in both languages (issue 14): every key in en and zh-CN with the
 * same placeholders; every renderer, with realistic and extreme data, inside Slack's limits and
 * the Block Kit schema in both languages; a pseudo-locale proves that every text a user reads
 * comes from the catalog.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGS, type Catalog, makeWords, type Words } from '../../src/blocks/i18n/words.js';
import type { ProblemCode } from '../../src/lookups/parse/problems.js';
import type { PlatErrorCode } from '../../src/plat/errors.js';
import { blockKitProblems } from '../helpers/block-kit/check.js';
import { slackLimitProblems } from '../helpers/block-limits.js';
import { en, zh } from '../helpers/words.js';
import { EXTREME_TEXT, everyRender, REALISTIC_TEXT, type Render } from './every-render.js';
import { HOSTILE } from './render-fixtures.js';

type Tree = { readonly [key: string]: string | Tree };

/** "a.b.c" → string, for every leaf. */
function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

const placeholders = (text: string) =>
  [...text.matchAll(/\{\{-?\s*([\w.]+)\s*\}\}/g)].map((m) => m[1] ?? '').sort();

const EN = flatten(CATALOGS.en as unknown as Tree);
const ZH = flatten(CATALOGS['zh-CN'] as unknown as Tree);

describe('catalog parity', () => {
  it('has every key in both languages, and no other', () => {
    expect([...ZH.keys()].sort()).toEqual([...EN.keys()].sort());
    expect(EN.size).toBeGreaterThan(500);
  });

  it('uses the same placeholders in both languages', () => {
    const differ = [...EN].filter(
      ([key, text]) => placeholders(text).join() !== placeholders(ZH.get(key) ?? '').join(),
    );
    expect(differ.map(([key]) => key)).toEqual([]);
  });

  it('has no empty text, and every plural both forms (English needs them; Chinese keeps the key set equal)', () => {
    for (const catalog of [EN, ZH]) {
      expect([...catalog].filter(([, text]) => text.trim() === '').map(([k]) => k)).toEqual([]);
      for (const key of catalog.keys()) {
        if (key.endsWith('_one')) expect(catalog.has(key.replace(/_one$/, '_other'))).toBe(true);
        if (key.endsWith('_other')) expect(catalog.has(key.replace(/_other$/, '_one'))).toBe(true);
      }
    }
  });

  it('has a title and a remedy for every plat error code, and words for every parse problem', () => {
    const errorCodes: Record<PlatErrorCode, true> = {
      invalid_input: true,
      parameter_error: true,
      item_not_found: true,
      upstream_timeout: true,
      account_not_found: true,
      system_error: true,
      retry_later: true,
      unsupported: true,
      no_permission: true,
      quota_exhausted: true,
      shop_unauthorized: true,
      shop_not_subscribed: true,
      credential_invalid: true,
      wrong_path: true,
      unknown_code: true,
      timeout: true,
      connection_failed: true,
      bad_response: true,
      schema_mismatch: true,
      busy: true,
      unavailable: true,
      budget_exceeded: true,
      aborted: true,
      claim_lost: true,
      lock_lost: true,
      out_of_service: true,
      no_plat_account: true,
    };
    for (const code of Object.keys(errorCodes)) {
      expect(EN.has(`error.title.${code}`), code).toBe(true);
      expect(EN.has(`error.remedy.${code}`) || EN.has(`error.remedy.${code}_other`), code).toBe(true);
    }
    const problemCodes: Record<ProblemCode, true> = {
      item_required: true,
      item_count: true,
      item_short_link: true,
      item_not_an_item: true,
      shop_required: true,
      shop_ww_id_required: true,
      shop_ww_bad_id: true,
      shop_too_many: true,
      shop_full_link: true,
      shop_type: true,
      unknown_option: true,
      waybill_unknown_option: true,
      waybill_whose: true,
      waybill_both: true,
      waybill_bad_id: true,
      waybill_carrier_code: true,
      waybill_none: true,
      waybill_too_many: true,
      waybill_bad_numbers: true,
      waybill_unknown_carrier: true,
      orders_owner: true,
      orders_one_owner: true,
      orders_page: true,
      orders_size: true,
      orders_window_reversed: true,
      orders_window_long: true,
      orders_remark: true,
      orders_flag: true,
      orders_flagname: true,
      orders_filters_need_enhanced: true,
      orders_date: true,
      orders_from: true,
      orders_to: true,
      step_hours: true,
    };
    for (const code of Object.keys(problemCodes)) expect(EN.has(`problem.${code}`), code).toBe(true);
  });

  it('says the domain words as Chinese staff do', () => {
    expect(zh.t('orders.status.1')).toBe('待发货');
    expect(zh.t('orders.status.2')).toBe('已发货待签收');
    expect(zh.t('orders.status.3')).toBe('已签收');
    expect(['1', '2', '3', '4', '5'].map((n) => zh.t(`domain.flag.${n as '1'}`))).toEqual([
      '红',
      '黄',
      '绿',
      '蓝',
      '紫',
    ]);
    expect(['0', '1', '2'].map((n) => zh.t(`shortcut.marketplace.${n as '0'}`))).toEqual([
      '淘宝',
      '天猫',
      '拼多多',
    ]);
    expect(['0', '1', '2'].map((n) => zh.t(`shop.type.${n as '0'}`))).toEqual([
      '淘宝店铺',
      '天猫店铺',
      '拼多多店铺',
    ]);
    const carriers = ['SF', 'YTO', 'ZTO', 'STO', 'YUNDA', 'JT', 'JD', 'DBKD', 'EMS'] as const;
    expect(carriers.map((c) => zh.t(`domain.carrier.${c}`))).toEqual([
      '顺丰',
      '圆通',
      '中通',
      '申通',
      '韵达',
      '极兔',
      '京东',
      '德邦',
      '邮政 EMS',
    ]);
  });
});

describe('formatting by locale (Intl)', () => {
  it('amounts, points with their yuan value, counts and plurals', () => {
    expect(en.yuan(1234.56)).toBe('¥1,234.56');
    expect(zh.yuan(1234.56)).toBe('¥1,234.56');
    expect(en.yuan(-1.5)).toBe('-¥1.50');
    expect(en.yuan(Number.NaN)).toBe('¥—');
    expect(en.points(1)).toBe('1 point (¥0.01)');
    expect(en.points(1234)).toBe('1,234 points (¥12.34)');
    expect(zh.points(1234)).toBe('1,234 点（¥12.34）');
    expect(en.t('common.calls', { count: 1, n: '1' })).toBe('1 call');
    expect(en.t('common.calls', { count: 2, n: '2' })).toBe('2 calls');
    expect(zh.t('common.calls', { count: 2, n: '2' })).toBe('2 次调用');
  });

  it('dates and times in their zone, and the zone named', () => {
    const at = new Date('2026-11-20T06:03:00Z');
    expect(en.dateTime(at)).toBe('2026-11-20 14:03');
    expect(zh.dateTime(at)).toBe('2026年11月20日 14:03');
    expect(en.dateTime(at, 'America/New_York')).toBe('2026-11-20 01:03');
    expect(zh.date(at)).toBe('2026年11月20日');
    expect(zh.age(3 * 3_600_000)).toBe('3 小时');
    expect(en.age(30_000)).toBe('under a minute');
  });
});

/** Every text a user can read in a payload: text objects, the fallback text, image alt texts. */
function visibleTexts(payload: unknown): string[] {
  return readable(payload).map((t) => t.text);
}

/** The texts Slack reads as mrkdwn (where `<!channel>` would notify): mrkdwn objects and the fallback. */
function mrkdwnTexts(payload: unknown): string[] {
  return readable(payload)
    .filter((t) => t.mrkdwn)
    .map((t) => t.text);
}

function readable(payload: unknown): { text: string; mrkdwn: boolean }[] {
  const out: { text: string; mrkdwn: boolean }[] = [];
  const walk = (v: unknown, top: boolean): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, false);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if ((o.type === 'plain_text' || o.type === 'mrkdwn') && typeof o.text === 'string')
      out.push({ text: o.text, mrkdwn: o.type === 'mrkdwn' });
    else if (top && typeof o.text === 'string') out.push({ text: o.text, mrkdwn: true });
    if (typeof o.alt_text === 'string') out.push({ text: o.alt_text, mrkdwn: false });
    for (const [key, value] of Object.entries(o))
      if (key !== 'text' || typeof value !== 'string') walk(value, false);
  };
  walk(payload, true);
  return out;
}

const blocksOf = (r: Render) => (r.payload as { blocks: unknown[] }).blocks;

describe.each([
  ['en', en],
  ['zh-CN', zh],
] as const)('every renderer in %s', (_locale, w) => {
  const renders = [
    ...everyRender(w, EXTREME_TEXT).map((r) => ({ ...r, name: `${r.name} (extreme)` })),
    ...everyRender(w, REALISTIC_TEXT),
  ];

  it.each(renders.map((r) => [r.name, r] as const))('%s fits Slack and escapes foreign text', (_name, r) => {
    // Modals (input blocks) are measured by the Block Kit validator below; their title, submit and
    // close hold at most 24 characters.
    if (r.surface === 'modal') {
      const view = r.payload as {
        title: { text: string };
        submit?: { text: string };
        close?: { text: string };
      };
      for (const t of [view.title, view.submit, view.close])
        if (t) expect([...t.text].length).toBeLessThanOrEqual(24);
    } else expect(slackLimitProblems(blocksOf(r), r.surface)).toEqual([]);
    if ('text' in r.payload && r.surface === 'message') {
      expect(r.payload.text.length).toBeGreaterThan(0);
      expect([...r.payload.text].length).toBeLessThanOrEqual(300);
    }
    const all = mrkdwnTexts(r.payload).join('\n');
    expect(all).not.toContain(HOSTILE);
    expect(all).not.toMatch(/<!channel>|<@U1>|<https:\/\/evil/);
  });
});

describe('Chinese renders', () => {
  const renders = everyRender(zh, REALISTIC_TEXT);
  // English sentences of the catalog (no placeholder, more than two words) must never reach a
  // Chinese reader: a renderer that forgot its Words would show one.
  // (The message shortcuts' names are the manifest's: Slack shows them as they are, so the Chinese
  // App Home names them that way.)
  const sentences = [...EN]
    .filter(
      ([key, text]) =>
        !/\{\{/.test(text) &&
        /\w+ \w+ \w+/.test(text) &&
        ZH.get(key) !== text &&
        !key.startsWith('shortcut.title.'),
    )
    .map(([, text]) => text);

  it.each(renders.map((r) => [r.name, r] as const))('%s has no English sentence', (_name, r) => {
    const all = visibleTexts(r.payload).join('\n');
    expect(sentences.filter((s) => all.includes(s))).toEqual([]);
    expect(all).toMatch(/\p{Script=Han}/u);
  });

  it('cuts a long Chinese title cleanly with "…", counting characters', () => {
    const title = '夏季新款亚麻衬衫'.repeat(40);
    const item = everyRender(zh, { ...REALISTIC_TEXT, title }).find((r) => r.name === 'answer-item');
    const header = blocksOf(item as Render)[0] as { text: { text: string } };
    expect([...header.text.text].length).toBe(150);
    expect(header.text.text.endsWith('…')).toBe(true);
    expect(header.text.text.startsWith('夏季新款亚麻衬衫')).toBe(true);
  });
});

/** The English catalog with every text marked: ⟦…⟧. */
function pseudoCatalog(tree: Tree): Tree {
  return Object.fromEntries(
    Object.entries(tree).map(([k, v]) => [k, typeof v === 'string' ? `⟦${v}⟧` : pseudoCatalog(v)]),
  );
}

/**
 * What is left of a text once every catalog text (with the values inside it) is taken out; a
 * catalog text cut at Slack's limit ("…" at the end) is taken out too.
 */
function outsideCatalog(text: string): string {
  let rest = text.replace(/…$/, '⟧'.repeat(10));
  for (let before = ''; before !== rest; ) {
    before = rest;
    rest = rest.replace(/⟦[^⟦⟧]*⟧/g, ' ');
  }
  return rest.replace(/⟧+$/, '');
}

describe('pseudo-locale: no visible text bypasses the catalog', () => {
  const pseudo: Words = makeWords('en', pseudoCatalog(CATALOGS.en as unknown as Tree) as unknown as Catalog);
  const renders = everyRender(pseudo, REALISTIC_TEXT);

  it('marks catalog texts', () => {
    expect(pseudo.t('confirm.cancelButton')).toBe('⟦Cancel⟧');
    expect(outsideCatalog(pseudo.points(12))).toBe(' ');
  });

  it.each(renders.map((r) => [r.name, r] as const))(
    '%s: every text node came from the catalog',
    (_name, r) => {
      expect(leaksOf(r.payload)).toEqual([]);
    },
  );

  it('would catch a word written outside the catalog, and lets data through', () => {
    const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
    expect(leaksOf({ text: '⟦ok⟧', blocks: [section(`${pseudo.t('common.lookup')} failed`)] })).toEqual([
      '  failed',
    ]);
    expect(leaksOf({ text: 'Lookup failed', blocks: [section('⟦ok⟧')] })).toEqual(['Lookup failed']);
    const header = { type: 'header', text: { type: 'plain_text', text: '夏季亚麻衬衫 SF1234567890123' } };
    expect(leaksOf({ text: '⟦ok⟧', blocks: [header, section('<@U1234> <#C1234> :warning:')] })).toEqual([]);
  });
});

/** The texts of a payload (rendered with the pseudo-locale) that hold words not from the catalog. */
function leaksOf(payload: unknown): string[] {
  return visibleTexts(payload)
    .map((text) =>
      outsideCatalog(text)
        // Data, not words: mentions and links, URLs, emoji, ids and codes (digits, upper case), time
        // zone names, and the foreign text of the fixture (Chinese).
        .replace(/<[@#!][^>]*>|<https?:[^>]*>|https?:\/\/\S+|:[a-z0-9_+-]+:/g, ' ')
        .replace(/\b(?:Asia|Europe|America)\/[A-Za-z_]+\b|\bowner-\d+\b|\bobj-\d+\b|\b[A-Z0-9]{2,}\b/g, ' '),
    )
    .filter((rest) => /[A-Za-z]{2,}/.test(rest));
}

describe('Block Kit schema, both languages (test/helpers/block-kit)', () => {
  const renders = [en, zh].flatMap((w) =>
    [EXTREME_TEXT, REALISTIC_TEXT].flatMap((text) =>
      everyRender(w, text).map((r) => ({ ...r, name: `${w.locale}-${text.extreme ? 'x' : 'r'}-${r.name}` })),
    ),
  );

  it('covers messages, modals and the App Home in both languages', () => {
    for (const w of [en, zh])
      expect(new Set(everyRender(w, REALISTIC_TEXT).map((r) => r.surface))).toEqual(
        new Set(['message', 'modal', 'home']),
      );
  });

  it.each(renders.map((r) => [r.name, r] as const))('%s passes the validator', (_name, r) => {
    expect(blockKitProblems(r.payload, r.surface)).toEqual([]);
  });
});
