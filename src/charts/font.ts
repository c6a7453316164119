/**
 * The one font charts draw with: a subset of Noto Sans CJK SC (SIL Open Font License 1.1,
 * assets/fonts/OFL.txt), made by scripts/subset-cjk-font.ts. Latin, digits and the zh-CN
 * catalog's characters all come from it; resvg loads no system font. The build copies it to
 * dist/fonts (scripts/build.mjs).
 */
import { CHART_FILES } from './files.js';

export const CHART_FONT_FILE = CHART_FILES.font;
export const CHART_FONT_FAMILY = 'Noto Sans CJK SC';
