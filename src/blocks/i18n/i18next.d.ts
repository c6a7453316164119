/** Typed keys: `t('confirm.cancel')` is checked against the English catalog at compile time. */
import 'i18next';
import type { en } from './en/index.js';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
    returnNull: false;
  }
}
