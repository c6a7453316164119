/**
 * The bundled chart font covers every character a chart can draw: all of the zh-CN catalog
 * (charts draw only catalog words, digits and zone names). Read from the font's own cmap table,
 * so a catalog change that brings a new character fails here until
 * `npx tsx scripts/subset-cjk-font.ts` is run again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_FONT_FILE } from '../../src/charts/font.js';

/** The code points of an OpenType font's cmap (formats 4 and 12). */
function cmapOf(font: Buffer): Set<number> {
  const tables = font.readUInt16BE(4);
  let cmap = -1;
  for (let i = 0; i < tables; i++) {
    const rec = 12 + i * 16;
    if (font.toString('latin1', rec, rec + 4) === 'cmap') cmap = font.readUInt32BE(rec + 8);
  }
  if (cmap < 0) throw new Error('no cmap');
  const points = new Set<number>();
  const subtables = font.readUInt16BE(cmap + 2);
  for (let i = 0; i < subtables; i++) {
    const at = cmap + font.readUInt32BE(cmap + 4 + i * 8 + 4);
    const format = font.readUInt16BE(at);
    if (format === 4) {
      const segs = font.readUInt16BE(at + 6) / 2;
      const ends = at + 14;
      const starts = ends + segs * 2 + 2;
      for (let s = 0; s < segs; s++) {
        const end = font.readUInt16BE(ends + s * 2);
        const start = font.readUInt16BE(starts + s * 2);
        if (start === 0xffff) continue;
        for (let c = start; c <= end; c++) points.add(c);
      }
    } else if (format === 12) {
      const groups = font.readUInt32BE(at + 12);
      for (let g = 0; g < groups; g++) {
        const start = font.readUInt32BE(at + 16 + g * 12);
        const end = font.readUInt32BE(at + 20 + g * 12);
        for (let c = start; c <= end; c++) points.add(c);
      }
    }
  }
  return points;
}

describe('bundled chart font', () => {
  it('is small, and maps ASCII and every character of the zh-CN catalog', () => {
    const font = readFileSync(CHART_FONT_FILE);
    expect(font.length).toBeLessThan(5 * 1024 * 1024);
    const cmap = cmapOf(font);
    const missing = new Set<string>();
    for (let c = 0x20; c <= 0x7e; c++) if (!cmap.has(c)) missing.add(String.fromCodePoint(c));
    const dir = 'src/blocks/i18n/zh-CN';
    for (const f of readdirSync(dir))
      for (const ch of readFileSync(join(dir, f), 'utf8')) {
        const cp = ch.codePointAt(0) as number;
        // Emoji and their variation selectors are never drawn in a chart (flags are not charted).
        const selector = cp >= 0xfe00 && cp <= 0xfe0f;
        if (cp >= 0x3000 && cp < 0x1f000 && !selector && !cmap.has(cp)) missing.add(ch);
      }
    expect([...missing].join(''), 'run: npx tsx scripts/subset-cjk-font.ts').toBe('');
    // Not the whole CJK font: a character no catalog uses is absent.
    expect(cmap.has('龘'.codePointAt(0) as number)).toBe(false);
  });
});
