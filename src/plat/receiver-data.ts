/**
 * Receiver data in free text (issue 34, M4). Buyers write their phone number, their address or
 * their ID-card number into an order's remark ("改地址：浙江省杭州市西湖区文三路90号 电话138…"),
 * and the remark is shown in `/orders` answers and digests. The receiver fields themselves never
 * leave the boundary (schemas.ts); this masks the same data where it hides in text, as the order
 * is parsed, so no channel, direct message, picture, log line or stored row ever holds it.
 *
 * What is hidden, in Chinese and English:
 * - phone numbers: mainland mobiles (with +86, spaces or dashes), landlines with an area code
 *   (0571-8888 8888, extensions too), international numbers written with `+`, North American
 *   ones, and any run of digits after a word that says phone (电话, 手机, tel, call…), plus
 *   WeChat ids after 微信/WeChat;
 * - ID numbers: 18-digit resident ID numbers (a valid date inside), and any 15–18 character id
 *   after a word that says ID (身份证, 证件号, ID no.);
 * - address-like runs: Chinese text that names two or more administrative units (省 市 区 县 镇
 *   乡 街道 村…) or a road with a house number (…路90号, …弄5号); English house number + street
 *   (88 Zhangjiang Rd), rooms and flats (Room 1201), named districts and provinces; and whatever
 *   follows a word that says address (地址, 寄到, ship to…) up to the end of its clause.
 *
 * The hidden part becomes a marker (HIDDEN), which blocks/ words in the reader's language
 * ("[phone number hidden]" / "（电话不显示）"): the answer says that something was hidden.
 * Masking errs on hiding: a number that only looks like a phone is hidden too.
 *
 * Every pattern is linear (bounded repeats, fixed look-behinds) and the text is read up to
 * MAX_REMARK characters (issue 34, M3).
 */

/** What a hidden part was; its marker is `\uE000` + the letter + `\uE001` (private-use characters). */
export const HIDDEN = { phone: 'p', id: 'i', address: 'a' } as const;
export type HiddenKind = keyof typeof HIDDEN;

const OPEN = '\uE000';
const CLOSE = '\uE001';
const marker = (kind: HiddenKind) => `${OPEN}${HIDDEN[kind]}${CLOSE}`;
/** A marker in masked text: its letter is group 1. */
export const HIDDEN_MARKER = /\uE000([pia])\uE001/g;
export const hiddenKindOf = (letter: string): HiddenKind =>
  letter === 'p' ? 'phone' : letter === 'i' ? 'id' : 'address';

/** A remark is read up to this many characters (the answers show 300 at most). */
export const MAX_REMARK = 2_000;

// ---- phones and ids ------------------------------------------------------------------------

const DATE = '(?:18|19|20)\\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\\d|3[01])';
const PHONE_WORDS =
  '(?:电话|手机|手机号|联系电话|联系方式|联系|座机|tel|phone|mobile|cell|call|whatsapp|contact)';
const ID_WORDS = '(?:身份证(?:号码?)?|证件(?:号码?)?|护照(?:号码?)?|passport|id\\s?(?:card|no\\.?|number)?)';

const PATTERNS: readonly [HiddenKind, RegExp][] = [
  // An id named as one, then an 18-digit resident id anywhere (its birth date makes it one).
  ['id', new RegExp(`(?<=${ID_WORDS}\\s{0,3}[:：#]?\\s{0,3})[0-9A-Za-z]{6,18}(?![0-9A-Za-z])`, 'giu')],
  ['id', new RegExp(`(?<![0-9A-Za-z])[1-9]\\d{5}${DATE}\\d{3}[\\dXx](?![0-9A-Za-z])`, 'gu')],
  // Digits after a word that says phone, however they are spaced.
  [
    'phone',
    new RegExp(
      `(?<=${PHONE_WORDS}\\s{0,3}(?:号码?)?\\s{0,3}[:：]?\\s{0,3})\\+?\\(?\\d(?:[\\s().-]{0,2}\\d){5,16}`,
      'giu',
    ),
  ],
  [
    'phone',
    /(?<=(?:微信|wechat|weixin|vx|wx)\s{0,3}(?:号)?\s{0,3}[:：]?\s{0,3})[A-Za-z][-_A-Za-z0-9]{5,19}/giu,
  ],
  // Mainland mobiles: 1[3-9]x xxxx xxxx, with +86 and spaces or dashes.
  ['phone', /(?<!\d)(?:(?:\+|00)?86[\s-]{0,2})?1[3-9]\d(?:[\s-]?\d){8}(?!\d)/gu],
  // Landlines with an area code (0571-8888 8888, (010) 6543 2100), an extension after.
  [
    'phone',
    /(?<!\d)(?:\(0[1-9]\d{1,2}\)|0[1-9]\d{1,2})[\s-]{0,2}[2-8]\d{2,3}[\s-]?\d{4}(?:\s{0,2}(?:转|ext\.?|x|-)\s{0,2}\d{1,6})?(?!\d)/giu,
  ],
  // International numbers written with +, and North American ones.
  ['phone', /\+\d{1,3}[\s-]{0,2}(?:\(\d{1,4}\)[\s-]{0,2})?\d(?:[\s.-]?\d){6,13}(?!\d)/gu],
  ['phone', /(?<!\d)(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?!\d)/gu],
];

// ---- addresses ------------------------------------------------------------------------------

/** Words that say an address follows; what follows, up to the end of its clause, is hidden. */
const ADDRESS_LEAD =
  /(?:收货地址|收件地址|新地址|地址|寄到|送到|发到|送至|寄至|发往|address|addr\.?|ship(?:ping)? to|deliver(?:y)? to|send to)\s{0,3}(?:是|为|改为|改成)?\s{0,3}[:：]?\s{0,3}/giu;
/**
 * The end of a clause: sentence punctuation, a Chinese comma (a Chinese address has none; an
 * English one has ASCII commas), a line break, a marker already placed.
 */
const CLAUSE_END = /[。！？!?;；，、\n\uE000]|[.](?:\s|$)/u;
const MAX_LED_ADDRESS = 80;

/** A run of Chinese text, digits and the signs addresses use (a place to test as a whole). */
const HAN_RUN = /[\p{Script=Han}0-9A-Za-z#＃\-－—·()（）]+/gu;
const DIVISIONS = /省|自治区|特别行政区|市|区|县|旗|镇|乡|街道|村|社区|小区|新村/gu;
const HOUSE_NUMBER =
  /(?:路|街|道|巷|弄|里|胡同|大道|公路|广场|大厦|花园|公寓|园)[^\s，。]{0,12}?\d{1,5}(?:号|弄|栋|幢|座|楼|单元|室)|\d{1,5}(?:号楼|栋|幢|单元)\s{0,2}\d{1,5}(?:室|号)?/u;
/** Words that may open a run without being part of the address ("改地址浙江省…"). */
const RUN_LEAD = /^(?:请|麻烦)?(?:改|修改|更改)?(?:收货)?(?:地址)?(?:为|成|到)?(?:寄|送|发)?(?:到|至|往)?/u;

function addressLikeRun(run: string): boolean {
  if (HOUSE_NUMBER.test(run)) return true;
  return new Set(run.match(DIVISIONS) ?? []).size >= 2;
}

const ENGLISH_ADDRESS: readonly RegExp[] = [
  // House number and street: 88 Zhangjiang Rd, 1600 Amphitheatre Parkway.
  /(?<![\w-])\d{1,6}[A-Za-z]?(?:-\d{1,4})?,?\s{1,3}(?:[A-Za-z][A-Za-z'.-]{0,20}\s{1,3}){0,4}(?:street|st|road|rd|avenue|ave|lane|ln|boulevard|blvd|drive|dr|way|court|ct|place|pl|parkway|pkwy|highway|hwy|terrace|close|crescent|lu|jie|dadao|hutong|nong)\b\.?/giu,
  // Rooms, flats, floors, buildings: Room 1201, Apt 5B, Flat 3, Bldg 7.
  /\b(?:room|rm|apt|apartment|unit|suite|ste|flat|floor|fl|building|bldg|block|blk)\.?\s{0,2}#?\s{0,2}\d{1,6}[A-Za-z]?\b/giu,
  // Named districts, provinces, counties: Pudong New District, Zhejiang Province.
  /(?:\b[A-Z][a-z]{1,20}\s{1,2}){1,3}(?:District|Province|County|Prefecture|Township|Village|City)\b/gu,
];

/** The remark (or any text a buyer wrote) with receiver data replaced by markers. */
export function maskReceiverData(text: string): string;
export function maskReceiverData(text: string | null): string | null;
export function maskReceiverData(text: string | null): string | null {
  if (text === null) return null;
  // Markers are ours: the marker characters a buyer typed are dropped first, except whole
  // markers (masked text masked again stays as it is; a buyer's whole marker only says "hidden").
  let out = (text.length > MAX_REMARK ? text.slice(0, MAX_REMARK) : text).replace(
    /\uE000[pia]\uE001|[\uE000\uE001]/g,
    (m) => (m.length === 3 ? m : ''),
  );
  for (const [kind, pattern] of PATTERNS) out = out.replace(pattern, marker(kind));
  out = maskLedAddresses(out);
  out = out.replace(HAN_RUN, (run) => {
    if (!addressLikeRun(run)) return run;
    const lead = RUN_LEAD.exec(run)?.[0] ?? '';
    return `${lead}${marker('address')}`;
  });
  for (const pattern of ENGLISH_ADDRESS) out = out.replace(pattern, marker('address'));
  // Neighbouring address parts ("[address], [address], [address]") read as one.
  const a = marker('address');
  return out.replace(new RegExp(`${a}(?:[\\s,，、]{0,3}${a})+`, 'gu'), a);
}

/** After a word that says address: the rest of its clause (at most MAX_LED_ADDRESS characters). */
function maskLedAddresses(text: string): string {
  let out = '';
  let last = 0;
  ADDRESS_LEAD.lastIndex = 0;
  for (let m = ADDRESS_LEAD.exec(text); m; m = ADDRESS_LEAD.exec(text)) {
    const from = m.index + m[0].length;
    if (from < last) continue;
    const window = text.slice(from, from + MAX_LED_ADDRESS);
    const end = window.search(CLAUSE_END);
    const length = end < 0 ? window.length : end;
    if (length < 2) continue;
    out += `${text.slice(last, from)}${marker('address')}`;
    last = from + length;
    ADDRESS_LEAD.lastIndex = last;
  }
  return out + text.slice(last);
}

/** Whether masked text hides anything. */
export const hidesAnything = (masked: string): boolean => masked.includes(OPEN);
