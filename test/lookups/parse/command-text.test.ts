/**
 * Slash command text → a validated request or the problems with it (DESIGN rule 3: invalid input
 * costs nothing, so everything here is decided before any call).
 */

import { describe, expect, it } from 'vitest';
import { describeProblem } from '../../../src/blocks/words-of.js';
import {
  DEFAULT_ORDERS_PAGE_SIZE,
  MAX_WAYBILLS_PER_COMMAND,
  type ParsedCommand,
  parseItemCommand,
  parseOrdersCommand,
  parseShanghaiTime,
  parseShopCommand,
  parseWaybillCommand,
} from '../../../src/lookups/parse/command-text.js';
import type { LookupRequest } from '../../../src/lookups/types.js';
import { SANDBOX_FIXTURES } from '../../../src/sandbox/index.js';
import { en, zh } from '../../helpers/words.js';

const { items, links, shops, owners, wwids } = SANDBOX_FIXTURES;
const HOUR = 3_600_000;
const ENHANCED = { edition: 1 };
const BASIC = { edition: 2 };

function requestOf(parsed: ParsedCommand): LookupRequest {
  if (parsed.kind !== 'request') throw new Error(`expected a request, got ${JSON.stringify(parsed)}`);
  return parsed.request;
}
function problemsOf(parsed: ParsedCommand): string {
  if (parsed.kind !== 'invalid') throw new Error(`expected invalid, got ${JSON.stringify(parsed)}`);
  return parsed.problems.map((p) => describeProblem(en, p)).join('\n');
}

describe('/item', () => {
  it('an id or a link is an item request', () => {
    expect(requestOf(parseItemCommand(items.basic))).toEqual({
      kind: 'item',
      itemId: items.basic,
      withPrices: false,
    });
    expect(requestOf(parseItemCommand(`<${links.brandedStore}|tmall>`))).toEqual({
      kind: 'item',
      itemId: items.tea,
      withPrices: false,
    });
  });

  it('"prices" anywhere asks for the prices too', () => {
    expect(requestOf(parseItemCommand(`prices ${items.basic}`))).toMatchObject({ withPrices: true });
    expect(requestOf(parseItemCommand(`${links.mobile} Price`))).toMatchObject({
      itemId: items.manySkus,
      withPrices: true,
    });
  });

  it.each(['help', '?', '-h', '--help', ' HELP '])('%s is help', (text) => {
    expect(parseItemCommand(text)).toEqual({ kind: 'help' });
  });

  it('refuses empty text, two items, a short link and junk', () => {
    expect(problemsOf(parseItemCommand(''))).toContain('required');
    expect(problemsOf(parseItemCommand(`${items.basic} ${items.tea}`))).toContain('exactly one');
    expect(problemsOf(parseItemCommand('https://m.tb.cn/h.abc'))).toContain('short links');
    expect(problemsOf(parseItemCommand('hello'))).toContain('not an item link');
  });
});

describe('/shop', () => {
  it.each([
    ['a control character', 'ww bee\u0007clothing'],
    ['a zero-width space', 'ww bee\u200bclothing'],
    ['a direction override', 'ww \u202ebeeclothing'],
  ])('refuses an account id with %s', (_what, text) => {
    expect(problemsOf(parseShopCommand(text))).toContain('not a messaging account id');
  });

  it('a link is a shop-info request with the marketplace as its type', () => {
    expect(requestOf(parseShopCommand(links.firstMarketplace))).toEqual({
      kind: 'shop-info',
      url: links.firstMarketplace,
      shopType: '0',
    });
    expect(requestOf(parseShopCommand(links.secondMarketplace))).toMatchObject({ shopType: '2' });
    expect(requestOf(parseShopCommand(`${links.brandedStore} 0`))).toMatchObject({ shopType: '0' });
  });

  it('ww <account> is a shop-id request (account ids may hold spaces and Chinese)', () => {
    expect(requestOf(parseShopCommand(`ww ${wwids.known}`))).toEqual({ kind: 'shop-id', wwid: wwids.known });
    expect(requestOf(parseShopCommand(`WW ${wwids.knownChinese}`))).toEqual({
      kind: 'shop-id',
      wwid: wwids.knownChinese,
    });
  });

  it('refuses a missing account, an id alone, a short link, a bad type and junk', () => {
    expect(problemsOf(parseShopCommand(''))).toContain('required');
    expect(problemsOf(parseShopCommand('ww'))).toContain('account id');
    expect(problemsOf(parseShopCommand('ww <@U1234>'))).toContain('not a messaging account');
    expect(problemsOf(parseShopCommand(items.basic))).toContain('an id alone');
    expect(problemsOf(parseShopCommand('https://e.tb.cn/h.x'))).toContain('short links');
    expect(problemsOf(parseShopCommand(`${links.firstMarketplace} 3`))).toContain('type must be 0, 1 or 2');
    expect(problemsOf(parseShopCommand(`${links.firstMarketplace} 1 2`))).toContain('one item link');
  });
});

describe('/waybill', () => {
  it('shop: is print data, with carriers guessed from the shapes', () => {
    expect(requestOf(parseWaybillCommand(`SF1234567890123 yt1234567890123 shop:${shops.clothing}`))).toEqual({
      kind: 'waybill-print',
      shopId: shops.clothing,
      waybills: [
        { waybillCode: 'SF1234567890123', carrier: 'SF' },
        { waybillCode: 'YT1234567890123', carrier: 'YTO' },
      ],
    });
  });

  it('print data does not need a carrier (an ambiguous number is sent without one)', () => {
    expect(requestOf(parseWaybillCommand(`773012345678901 shop:${shops.clothing}`))).toMatchObject({
      waybills: [{ waybillCode: '773012345678901', carrier: null }],
    });
  });

  it('owner: is waybill information and needs every carrier: ambiguous numbers name their candidates', () => {
    const problems = problemsOf(parseWaybillCommand(`773012345678901 SF1234567890123 owner:${owners.busy}`));
    expect(problems).toContain('773012345678901 (could be ZTO or STO)');
    expect(problems).toContain('carrier:<code>');
    expect(problems).not.toContain('SF1234567890123');
  });

  it('carrier: applies to every number', () => {
    expect(requestOf(parseWaybillCommand(`773012345678901 owner:${owners.busy} carrier:sto`))).toEqual({
      kind: 'waybill-info',
      ownerId: owners.busy,
      waybills: [{ waybillCode: '773012345678901', carrier: 'STO' }],
    });
  });

  it('repeats are sent once; Slack-wrapped numbers are unwrapped', () => {
    const request = requestOf(
      parseWaybillCommand(`<SF1234567890123> sf1234567890123 shop:${shops.clothing}`),
    );
    expect(request.kind === 'waybill-print' && request.waybills).toHaveLength(1);
  });

  it('up to the command limit is one request (sent in batches of 20 later)', () => {
    const codes = Array.from(
      { length: MAX_WAYBILLS_PER_COMMAND },
      (_, i) => `YT${String(i).padStart(13, '0')}`,
    );
    const request = requestOf(parseWaybillCommand(`${codes.join(' ')} shop:${shops.clothing}`));
    expect(request.kind === 'waybill-print' && request.waybills).toHaveLength(MAX_WAYBILLS_PER_COMMAND);
  });

  it('refuses a list over the limit, bad numbers, no owner/shop, both, unknown options and bad carriers', () => {
    const tooMany = Array.from(
      { length: MAX_WAYBILLS_PER_COMMAND + 1 },
      (_, i) => `YT${String(i).padStart(13, '0')}`,
    );
    expect(problemsOf(parseWaybillCommand(`${tooMany.join(' ')} shop:1`))).toContain(
      `at most ${MAX_WAYBILLS_PER_COMMAND}`,
    );
    expect(problemsOf(parseWaybillCommand('abc shop:1'))).toContain('not waybill numbers: ABC');
    expect(problemsOf(parseWaybillCommand('SF1234567890123'))).toContain('say whose waybills');
    expect(problemsOf(parseWaybillCommand('SF1234567890123 shop:1 owner:2'))).toContain('not both');
    expect(problemsOf(parseWaybillCommand('SF1234567890123 shop:1 foo:bar'))).toContain(
      'unknown option foo:bar',
    );
    expect(problemsOf(parseWaybillCommand('SF1234567890123 shop:1 carrier:z'))).toContain(
      'carrier must be a code',
    );
    expect(problemsOf(parseWaybillCommand('shop:1'))).toContain('at least one waybill number');
  });

  it('help', () => {
    expect(parseWaybillCommand('help')).toEqual({ kind: 'help' });
  });
});

describe('/orders', () => {
  it('an owner id alone: the first page of 20', () => {
    expect(requestOf(parseOrdersCommand(owners.busy, ENHANCED))).toEqual({
      kind: 'orders',
      ownerId: owners.busy,
      page: 0,
      pageSize: DEFAULT_ORDERS_PAGE_SIZE,
      filters: {},
    });
  });

  it('an alias is taken as the owner (resolved later from the shop registry)', () => {
    expect(requestOf(parseOrdersCommand('tea-shop', ENHANCED))).toMatchObject({ ownerId: 'tea-shop' });
  });

  it('page: counts from 1 for users and from 0 for the API; size: up to 100', () => {
    expect(requestOf(parseOrdersCommand(`${owners.busy} page:3 size:100`, ENHANCED))).toMatchObject({
      page: 2,
      pageSize: 100,
    });
  });

  it('empty text opens the form; help is help', () => {
    expect(parseOrdersCommand('  ', ENHANCED)).toEqual({ kind: 'form' });
    expect(parseOrdersCommand('help', ENHANCED)).toEqual({ kind: 'help' });
  });

  it('date: is that whole day in China time (UTC+8)', () => {
    expect(requestOf(parseOrdersCommand(`${owners.busy} date:2026-11-20`, ENHANCED))).toMatchObject({
      filters: {
        startTime: new Date('2026-11-19T16:00:00Z'),
        endTime: new Date('2026-11-20T15:59:59Z'),
      },
    });
  });

  it('from:/to: are China time, with or without the hour', () => {
    expect(
      requestOf(parseOrdersCommand(`${owners.busy} from:2026-11-20T08:00 to:2026-11-21T08:00`, ENHANCED)),
    ).toMatchObject({
      filters: { startTime: new Date('2026-11-20T00:00:00Z'), endTime: new Date('2026-11-21T00:00:00Z') },
    });
  });

  it('from: alone spans the next 24 hours; to: alone the 24 hours before', () => {
    const from = requestOf(parseOrdersCommand(`${owners.busy} from:2026-11-20`, ENHANCED));
    expect(from).toMatchObject({
      filters: {
        startTime: new Date('2026-11-19T16:00:00Z'),
        endTime: new Date(Date.parse('2026-11-19T16:00:00Z') + 24 * HOUR - 1000),
      },
    });
    const to = requestOf(parseOrdersCommand(`${owners.busy} to:2026-11-20T12:00`, ENHANCED));
    expect(to).toMatchObject({
      filters: {
        startTime: new Date(Date.parse('2026-11-20T04:00:00Z') - 24 * HOUR + 1000),
        endTime: new Date('2026-11-20T04:00:00Z'),
      },
    });
  });

  it('refuses a window over 24 hours (notes.md) and one that ends before it starts', () => {
    expect(
      problemsOf(parseOrdersCommand(`${owners.busy} from:2026-11-20T08:00 to:2026-11-21T08:01`, ENHANCED)),
    ).toContain('at most 24 hours');
    expect(
      problemsOf(parseOrdersCommand(`${owners.busy} from:2026-11-21 to:2026-11-20`, ENHANCED)),
    ).toContain('before its start');
  });

  it('refuses dates that do not exist instead of querying another day', () => {
    expect(problemsOf(parseOrdersCommand(`${owners.busy} date:2026-02-30`, ENHANCED))).toContain(
      'YYYY-MM-DD',
    );
    expect(problemsOf(parseOrdersCommand(`${owners.busy} from:2026-11-20T24:00`, ENHANCED))).toContain(
      'from must be',
    );
    expect(problemsOf(parseOrdersCommand(`${owners.busy} date:2026-11-20T08:00`, ENHANCED))).toContain(
      'date must be YYYY-MM-DD',
    );
    expect(problemsOf(parseOrdersCommand(`${owners.busy} to:yesterday`, ENHANCED))).toContain('to must be');
  });

  it('flag: takes 1–5 or a colour name; flagname: and remark: are kept', () => {
    expect(requestOf(parseOrdersCommand(`${owners.busy} flag:RED flagname:VIP`, ENHANCED))).toMatchObject({
      filters: { remarkTag: 1, remarkTagName: 'VIP' },
    });
    for (const [name, tag] of [
      ['yellow', 2],
      ['green', 3],
      ['blue', 4],
      ['purple', 5],
      ['4', 4],
    ] as const)
      expect(requestOf(parseOrdersCommand(`${owners.busy} flag:${name}`, ENHANCED))).toMatchObject({
        filters: { remarkTag: tag },
      });
    expect(problemsOf(parseOrdersCommand(`${owners.busy} flag:6`, ENHANCED))).toContain(
      'flag must be 1 to 5',
    );
    expect(problemsOf(parseOrdersCommand(`${owners.busy} flag:pink`, ENHANCED))).toContain(
      'flag must be 1 to 5',
    );
  });

  it('remark: with quotes holds spaces', () => {
    expect(
      requestOf(parseOrdersCommand(`${owners.busy} remark:"not shipped yet" page:2`, ENHANCED)),
    ).toMatchObject({
      page: 1,
      filters: { remark: 'not shipped yet' },
    });
    expect(requestOf(parseOrdersCommand(`remark:"加急 发货" ${owners.busy}`, ENHANCED))).toMatchObject({
      ownerId: owners.busy,
      filters: { remark: '加急 发货' },
    });
    expect(problemsOf(parseOrdersCommand(`${owners.busy} remark:""`, ENHANCED))).toContain('remark must be');
  });

  it('the basic edition refuses every filter before any call, and takes a plain page', () => {
    for (const filter of ['date:2026-11-20', 'remark:x', 'flag:1', 'flagname:VIP', 'from:2026-11-20'])
      expect(problemsOf(parseOrdersCommand(`${owners.busy} ${filter}`, BASIC))).toContain('enhanced edition');
    expect(requestOf(parseOrdersCommand(`${owners.busy} page:2`, BASIC))).toMatchObject({
      page: 1,
      filters: {},
    });
  });

  it('refuses bad pages and sizes, unknown options and more or fewer than one owner', () => {
    const problems = problemsOf(parseOrdersCommand(`${owners.busy} page:0 size:101 bogus:1`, ENHANCED));
    expect(problems).toContain('page must be 1 or more');
    expect(problems).toContain('size must be 1 to 100');
    expect(problems).toContain('unknown option bogus:1');
    expect(problemsOf(parseOrdersCommand(`${owners.busy} page:abc`, ENHANCED))).toContain('page must be');
    expect(problemsOf(parseOrdersCommand(`${owners.busy} ${owners.small}`, ENHANCED))).toContain(
      'exactly one owner',
    );
    expect(problemsOf(parseOrdersCommand('page:2', ENHANCED))).toContain('exactly one owner');
    expect(problemsOf(parseOrdersCommand('<@U1234>', ENHANCED))).toContain('one owner id');
  });
});

describe('parseShanghaiTime', () => {
  it('reads a day or a minute in UTC+8', () => {
    expect(parseShanghaiTime('2026-11-20')).toEqual(new Date('2026-11-19T16:00:00Z'));
    expect(parseShanghaiTime('2026-11-20 08:30')).toEqual(new Date('2026-11-20T00:30:00Z'));
    expect(parseShanghaiTime('2026-11-20T23:59')).toEqual(new Date('2026-11-20T15:59:00Z'));
    expect(parseShanghaiTime('2024-02-29')).toEqual(new Date('2024-02-28T16:00:00Z'));
  });

  it.each([
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-11-20T24:00',
    '2026-11-20T23:60',
    '20-11-2026',
    '',
  ])('%s → null', (text) => {
    expect(parseShanghaiTime(text)).toBeNull();
  });
});

describe('Chinese input (issue 14)', () => {
  it('帮助 is help, 价格 asks for the prices', () => {
    for (const parse of [parseItemCommand, parseShopCommand, parseWaybillCommand])
      expect(parse('帮助')).toEqual({ kind: 'help' });
    expect(parseOrdersCommand(' 帮助 ', ENHANCED)).toEqual({ kind: 'help' });
    expect(requestOf(parseItemCommand(`${items.basic} 价格`))).toEqual({
      kind: 'item',
      itemId: items.basic,
      withPrices: true,
    });
  });

  it('the /orders keywords in Chinese, with the ASCII or the full-width colon', () => {
    const parsed = requestOf(
      parseOrdersCommand(
        `${owners.busy} 页：2 每页:50 从:2026-11-20T08:00 到：2026-11-20T20:00 备注:"加急 发货" 旗:红`,
        ENHANCED,
      ),
    );
    expect(parsed).toEqual({
      kind: 'orders',
      ownerId: owners.busy,
      page: 1,
      pageSize: 50,
      filters: {
        startTime: new Date('2026-11-20T00:00:00Z'),
        endTime: new Date('2026-11-20T12:00:00Z'),
        remark: '加急 发货',
        remarkTag: 1,
      },
    });
    expect(requestOf(parseOrdersCommand(`${owners.busy} 日期:2026-11-20 旗:紫旗`, ENHANCED))).toMatchObject({
      filters: { startTime: new Date('2026-11-19T16:00:00Z'), remarkTag: 5 },
    });
    for (const [colour, tag] of [
      ['黄', 2],
      ['绿', 3],
      ['蓝', 4],
    ] as const)
      expect(requestOf(parseOrdersCommand(`${owners.busy} 旗:${colour}`, ENHANCED))).toMatchObject({
        filters: { remarkTag: tag },
      });
  });

  it('bad Chinese input gets its problems as codes, worded in either language', () => {
    const parsed = parseOrdersCommand(`${owners.busy} 每页:101 旗:黑 颜色:红`, ENHANCED);
    if (parsed.kind !== 'invalid') throw new Error(parsed.kind);
    expect(parsed.problems.map((p) => p.code)).toEqual(['unknown_option', 'orders_size', 'orders_flag']);
    expect(parsed.problems.map((p) => describeProblem(zh, p))).toEqual([
      '无法识别的选项颜色:红',
      '每页数量须为 1 到 100',
      '旗帜须为 1 到 5（或 红、黄、绿、蓝、紫）',
    ]);
  });
});
