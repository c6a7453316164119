/**
 * Makes assets/fonts/NotoSansSC-charts.otf, the font the charts render with (src/charts/font.ts):
 * Noto Sans CJK SC Regular (SIL Open Font License 1.1, which allows bundling and subsetting;
 * licence in assets/fonts/OFL.txt) cut to printable ASCII, common punctuation and every
 * character of the zh-CN catalog (a chart draws only catalog words, digits and IANA zone names),
 * so a chart never needs a system font. Kept small on purpose: resvg parses the font on every
 * render, and a 1.7 MB subset with GB 2312 cost ~100 ms a chart. Run again when the zh-CN catalog gains a rare character (test/charts checks it):
 *   npx tsx scripts/subset-cjk-font.ts [/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]
 * Subsetting by HarfBuzz's hb-subset (harfbuzzjs, a dev dependency).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const SOURCE = process.argv[2] ?? '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc';
/** The face of Noto Sans CJK SC in NotoSansCJK-Regular.ttc (JP, KR, SC, TC, HK, then mono). */
const FACE_INDEX = Number(process.env.FACE_INDEX ?? 2);
const OUT = 'assets/fonts/NotoSansSC-charts.otf';

function characters(): Set<number> {
  const set = new Set<number>();
  for (let c = 0x20; c <= 0x7e; c++) set.add(c);
  for (const c of '·•—–…‘’“”，。、：；（）！？《》【】％¥￥▲▼←→≤≥×÷°') set.add(c.codePointAt(0) as number);
  const dir = 'src/blocks/i18n/zh-CN';
  for (const f of readdirSync(dir))
    for (const ch of readFileSync(join(dir, f), 'utf8')) {
      const cp = ch.codePointAt(0) as number;
      if (cp >= 0x2000) set.add(cp);
    }
  return set;
}

const require = createRequire(import.meta.url);
const wasm = readFileSync(require.resolve('harfbuzzjs/dist/harfbuzz-subset.wasm'));
const { instance } = await WebAssembly.instantiate(wasm, {});
// biome-ignore lint/suspicious/noExplicitAny: hb-subset's raw C exports
const hb = instance.exports as any;
const font = readFileSync(SOURCE);
const ptr = hb.malloc(font.byteLength);
new Uint8Array(hb.memory.buffer).set(font, ptr);
const blob = hb.hb_blob_create(ptr, font.byteLength, 2 /* writable */, 0, 0);
const face = hb.hb_face_create(blob, FACE_INDEX);
hb.hb_blob_destroy(blob);
const input = hb.hb_subset_input_create_or_fail();
const unicodes = hb.hb_subset_input_unicode_set(input);
const chars = characters();
for (const cp of chars) hb.hb_set_add(unicodes, cp);
const subset = hb.hb_subset_or_fail(face, input);
if (!subset) throw new Error('hb-subset failed');
const result = hb.hb_face_reference_blob(subset);
const offset = hb.hb_blob_get_data(result, 0);
const length = hb.hb_blob_get_length(result);
const out = Buffer.from(new Uint8Array(hb.memory.buffer, offset, length));
writeFileSync(OUT, out);
console.log(`${OUT}: ${chars.size} characters, ${(out.length / 1024).toFixed(0)} KiB`);
