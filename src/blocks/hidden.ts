/**
 * Order remarks as people read them (issue 34, M4): receiver data a buyer wrote (phone numbers,
 * ID numbers, addresses) is masked where the order is parsed (plat/receiver-data.ts) and masked
 * again here, so a remark stored before masking existed is never shown as written; each hidden
 * part reads "[phone number hidden]" / "（电话不显示）" in the reader's language.
 */
import { HIDDEN_MARKER, hiddenKindOf, maskReceiverData } from '../plat/receiver-data.js';
import type { Words } from './i18n/words.js';

/** A buyer's text (a remark, a flag name), masked, its hidden parts in words; raw (escape it after). */
export function buyerText(w: Words, text: string): string {
  return maskReceiverData(text).replace(HIDDEN_MARKER, (_, letter: string) =>
    w.t(`common.hidden.${hiddenKindOf(letter)}`),
  );
}
