/** The Words of each language, for renderer tests. */
import { wordsFor } from '../../src/blocks/i18n/words.js';

export const en = wordsFor('en');
export const zh = wordsFor('zh-CN');
