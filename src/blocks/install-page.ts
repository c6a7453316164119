/**
 * The web pages of Slack's OAuth install (distributed mode): what the installer's browser shows
 * after Slack redirects back. Nobody's language is known yet, so each page says it in English and
 * in Chinese. Every value is HTML-escaped (a workspace name is Slack's text, a reason ours).
 */
import { makeWords } from './i18n/words.js';

export type InstallFailure = 'state' | 'denied' | 'other';

const html = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const LANGUAGES = ['en', 'zh-CN'] as const;

function page(sections: string[]): string {
  const title = html(makeWords('en').t('install.title'));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}section{margin-bottom:2rem}a.button{display:inline-block;padding:.5rem 1rem;background:#4a154b;color:#fff;border-radius:4px;text-decoration:none}</style>
</head><body>
${sections.join('\n')}
</body></html>
`;
}

/** The page after a successful install; `slackUrl` opens the app in Slack. */
export function installedPage(input: { workspace: string; slackUrl: string }): string {
  return page(
    LANGUAGES.map((locale) => {
      const { t } = makeWords(locale);
      return `<section lang="${locale}"><h1>${html(t('install.installedHeading'))}</h1>
<p>${html(t('install.installedBody', { workspace: input.workspace }))}</p>
<p><a class="button" href="${html(input.slackUrl)}">${html(t('install.openSlack'))}</a></p></section>`;
    }),
  );
}

/** The page of an install refused by PLATDESK_INSTALL_ALLOW (no link to try again: it would not help). */
export function installRefusedPage(): string {
  return page(
    LANGUAGES.map((locale) => {
      const { t } = makeWords(locale);
      return `<section lang="${locale}"><h1>${html(t('install.notAllowedHeading'))}</h1>
<p>${html(t('install.notAllowedBody'))}</p></section>`;
    }),
  );
}

/** The page after a failed install; `installPath` starts again. */
export function installFailedPage(input: { failure: InstallFailure; installPath: string }): string {
  const reasonKey = {
    state: 'install.reasonState',
    denied: 'install.reasonDenied',
    other: 'install.reasonOther',
  } as const;
  return page(
    LANGUAGES.map((locale) => {
      const { t } = makeWords(locale);
      return `<section lang="${locale}"><h1>${html(t('install.failedHeading'))}</h1>
<p>${html(t('install.failedBody', { reason: t(reasonKey[input.failure]) }))}</p>
<p><a class="button" href="${html(input.installPath)}">${html(t('install.tryAgain'))}</a></p></section>`;
    }),
  );
}
