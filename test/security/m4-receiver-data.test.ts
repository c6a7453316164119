/**
 * Issue 34 M4 / point 8: receiver data that buyers write into order remarks (phone numbers,
 * ID-card numbers, addresses; Chinese and English) is masked before any channel, direct message,
 * picture, log line or stored row holds it, and the masked form says that something was hidden.
 * On 5ce7905 remarks went as written into `/orders` answers and digests.
 *
 * First the masking itself over real-looking remarks (what must go, what must stay), then the
 * real app: an `/orders` page and a digest of orders with such remarks (injected at the sandbox)
 * on both store engines, with the log at debug level.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buyerText } from '../../src/blocks/hidden.js';
import { maskReceiverData } from '../../src/plat/receiver-data.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';
import { en, zh } from '../helpers/words.js';

/** A remark, what must not survive masking, and words that must. */
const REMARKS: { remark: string; gone: string[]; kept: string[] }[] = [
  {
    remark: '改地址：浙江省杭州市西湖区文三路90号 电话13812345678',
    gone: ['13812345678', '浙江省', '杭州市', '西湖区', '文三路', '90号'],
    kept: ['改地址'],
  },
  {
    remark: '收件人换成李四，手机 139-8765-4321，送到上海市浦东新区张江路88弄5号楼1201室，谢谢',
    gone: ['139-8765-4321', '8765', '上海市', '浦东新区', '张江路', '88弄', '1201室'],
    kept: ['收件人换成李四', '谢谢'],
  },
  {
    remark: '请联系座机0571-88886666转123，地址北京市朝阳区建国路1号国贸大厦A座',
    gone: ['0571', '88886666', '北京市', '朝阳区', '建国路', '国贸大厦'],
    kept: ['请联系'],
  },
  {
    remark: '清关需要身份证号 33010619900101123X，护照 E12345678',
    gone: ['33010619900101123X', 'E12345678'],
    kept: ['清关需要'],
  },
  { remark: '身份证330106199001011234', gone: ['330106199001011234'], kept: [] },
  { remark: '加我微信 zhang_san_1990 发视频', gone: ['zhang_san_1990'], kept: ['发视频'] },
  { remark: '寄到广东省深圳市南山区科技园南区', gone: ['广东省', '深圳市', '南山区', '科技园'], kept: [] },
  {
    remark:
      'Please deliver to Room 1201, 88 Zhangjiang Rd, Pudong New District, Shanghai. Call +86 138 1234 5678',
    gone: ['1201', '88 Zhangjiang', 'Pudong', '138 1234 5678'],
    kept: ['Please deliver'],
  },
  {
    remark: 'Ship to 1600 Amphitheatre Parkway, Mountain View, CA; phone (650) 253-0000 before 6pm',
    gone: ['1600 Amphitheatre', 'Mountain View', '(650) 253-0000', '253-0000'],
    kept: ['before 6pm'],
  },
  { remark: 'tel: 020 8765 4321 (evenings)', gone: ['8765 4321'], kept: ['(evenings)'] },
  { remark: 'new address: 12 Baker Street, London', gone: ['12 Baker', 'Baker Street', 'London'], kept: [] },
];

/** Remarks with nothing to hide: they stay as written. */
const PLAIN = [
  '请尽快发货',
  '不要放发票',
  '送人的，别放价格单',
  '周末再送',
  '要大号的，3号之前发货',
  '和订单260101-0000000001一起发',
  '快递用顺丰 SF1234567890123',
  'size XL, 2 pcs, gift wrap please',
  'VIP客户，加急',
];

describe('M4: masking receiver data in remarks', () => {
  it.each(REMARKS)('$remark', ({ remark, gone, kept }) => {
    const masked = maskReceiverData(remark);
    for (const part of gone) expect(masked, `${part} in ${masked}`).not.toContain(part);
    for (const part of kept) expect(masked).toContain(part);
    expect(masked).toMatch(/\uE000[pia]\uE001/);
  });

  it('leaves remarks with nothing to hide as written, and is idempotent', () => {
    for (const remark of PLAIN) expect(maskReceiverData(remark)).toBe(remark);
    for (const { remark } of REMARKS) {
      const once = maskReceiverData(remark);
      expect(maskReceiverData(once)).toBe(once);
    }
  });

  it('says in each language what was hidden', () => {
    const remark = REMARKS[0]?.remark ?? '';
    expect(buyerText(en, remark)).toBe('改地址：[address hidden][phone number hidden]');
    expect(buyerText(zh, remark)).toBe('改地址：（地址不显示）（电话不显示）');
    expect(buyerText(zh, '身份证330106199001011234')).toBe('身份证（证件号不显示）');
  });

  it('a buyer’s own marker characters are dropped (a whole marker only says “hidden”)', () => {
    expect(maskReceiverData('\uE000x hello\uE001')).toBe('x hello');
    expect(maskReceiverData('\uE000p\uE001 hello')).toBe('\uE000p\uE001 hello');
  });
});

const { owners } = SANDBOX_FIXTURES;
const ORDERS = REMARKS.map(({ remark }, i) => ({
  order_sn: `260101-00000000${String(i + 10)}`,
  goods_name: `山楂条 ${i}`,
  goods_spec: '500g',
  goods_count: 1,
  pay_amount: 9.9,
  order_status: 1,
  confirm_time: Math.floor(Date.now() / 1000) - 3600,
  last_ship_time: Math.floor(Date.now() / 1000) + 3600,
  remark,
  remark_tag: 1,
  remark_tag_name: i === 0 ? '电话13900001111' : null,
}));
const SECRETS = [...REMARKS.flatMap((r) => r.gone), '13900001111'];

describe.each(ENGINES)('M4: /orders and digests on %s', (engine) => {
  let h: PlatdeskHarness;
  beforeAll(async () => {
    h = await startPlatdeskHarness({ engine, logLevel: 'debug' });
    h.sandbox.setFaults([
      {
        kind: 'code',
        code: 0,
        operations: ['paging-orders'],
        data: { content: ORDERS, page: 0, pageSize: 20, total_elements: ORDERS.length, withholding_money: 2 },
      },
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('no phone, ID or address reaches a message, the log or the store; the answers say what was hidden', async () => {
    const { answer } = await h.lookup('/orders', owners.busy);
    const page = textOf(answer);
    expect(page).toContain('改地址');
    expect(page).toContain('[phone number hidden]');
    expect(page).toContain('[address hidden]');
    expect(page).toContain('[ID number hidden]');

    const later = new Date(h.now().getTime() + 20 * 3_600_000);
    const at = `${String(later.getUTCHours()).padStart(2, '0')}:00`;
    const say = async (text: string, wait = 5000) => {
      const sent = await h.command('/orders', text, { userId: SLACK.adminId });
      return textOf(await h.nextResponse(sent.responseUrlId, wait));
    };
    expect(await say(`digest add ${owners.busy} <#C1234|support> ${at}`)).toContain('Digest #1 added');
    const sent = await h.command('/orders', 'digest run 1', { userId: SLACK.adminId });
    await h.nextResponse(sent.responseUrlId);
    expect(textOf(await h.nextResponse(sent.responseUrlId, 10_000))).toContain('Digest posted');
    const digest = h.fake
      .callsTo('chat.postMessage')
      .map((c) => textOf(c.body))
      .join('\n');
    expect(digest).toContain('[address hidden]');

    // What the store keeps of the run: its summary and the pages it read.
    const run = await h.platdesk.store.digests.lastRun(1);
    // Kept masked (the marker, worded when the summary is rendered).
    expect(run?.summaryJson).toMatch(/\uE000a\uE001/);
    const stored = [
      run?.summaryJson ?? '',
      JSON.stringify(run ? await h.platdesk.store.digestPages.list(run.id) : []),
    ];
    const everything = [...h.fake.calls.map((c) => JSON.stringify(c.body)), ...h.logs(), ...stored].join(
      '\n',
    );
    for (const secret of SECRETS) expect(everything, secret).not.toContain(secret);
  });
});
