/**
 * The App Home's "Add digest" form (issue 6: admins add digests from the Home as well as with
 * `/orders digest add`). The Slack layer checks what comes back with the same rules as the command.
 * Modal limits: https://docs.slack.dev/reference/views/modal-views (title, submit, close: 24
 * characters), https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element
 * (at most 100 options; option text 75, value 150 characters).
 */
import type { ModalView, PlainTextOption } from '@slack/types';
import { digestCostLine } from './digest.js';
import type { Words } from './i18n/words.js';
import { context, section } from './kit.js';
import { truncate } from './text.js';

/** Every action_id is unique across the view, as Block Kit validation requires. */
export const HOME_DIGEST_FORM = {
  callbackId: 'platdesk.home.digest.form',
  shop: { block: 'shop', action: 'digest.shop' },
  owner: { block: 'owner', action: 'digest.owner' },
  channel: { block: 'channel', action: 'digest.channel' },
  time: { block: 'time', action: 'digest.time' },
  timeZone: { block: 'zone', action: 'digest.zone' },
  language: { block: 'language', action: 'digest.language' },
  layout: { block: 'layout', action: 'digest.layout' },
  days: { block: 'days', action: 'digest.days' },
  flags: { block: 'flags', action: 'digest.flags' },
  statuses: { block: 'statuses', action: 'digest.statuses' },
} as const;

/** Weekdays as the store keeps them (0 Sunday … 6 Saturday), listed Monday first. */
export const DIGEST_FORM_DAYS = [1, 2, 3, 4, 5, 6, 0] as const;
/** remark_tag flag colours (spec/notes.md). */
export const DIGEST_FORM_FLAGS = [1, 2, 3, 4, 5] as const;
/** order_status codes (spec/notes.md). */
export const DIGEST_FORM_STATUSES = [1, 2, 3] as const;

/** The time zones offered: where the shops' staff work, first the default. */
export const DIGEST_TIME_ZONES = [
  'Asia/Shanghai',
  'Asia/Hong_Kong',
  'Asia/Singapore',
  'Asia/Tokyo',
  'Europe/London',
  'Europe/Berlin',
  'America/New_York',
  'America/Los_Angeles',
  'UTC',
] as const;

export const DIGEST_DEFAULT_LOCAL_TIME = '09:00';

/** Slack's limit on the options of a static_select. */
const MAX_OPTIONS = 100;
/** An owner id or alias, as `/orders digest add` accepts it (digest/grammar.ts). */
const OWNER_MAX = 64;

const plain = (text: string, max = 75) => ({ type: 'plain_text' as const, text: truncate(text, max) || '—' });
const option = (text: string, value: string): PlainTextOption => ({ text: plain(text), value });

/** An optional field of checkboxes (weekdays, flags, statuses) in the digest form. */
function checkboxInput(
  field: { block: string; action: string },
  label: string,
  hint: string,
  options: PlainTextOption[],
): ModalView['blocks'][number] {
  return {
    type: 'input',
    block_id: field.block,
    optional: true,
    label: plain(label),
    hint: plain(hint, 150),
    element: { type: 'checkboxes', action_id: field.action, options },
  };
}

export interface DigestFormShop {
  alias: string;
  ownerId: string;
}

export interface DigestFormOptions {
  /** Registered shops that have an owner id (an alias without one cannot be subscribed). */
  shops: readonly DigestFormShop[];
  /** Preselected; added to the list when it is not in DIGEST_TIME_ZONES. */
  defaultTimeZone: string;
  /** The price of a page of orders and the digest cap, stated as `/orders digest add` states them. */
  cost: { pagePoints: number | null; capPoints: number };
}

export function renderDigestAddModal(w: Words, opts: DigestFormOptions): ModalView {
  const { t } = w;
  const f = HOME_DIGEST_FORM;
  const shops = opts.shops.slice(0, MAX_OPTIONS);
  const more = opts.shops.length - shops.length;
  const zones: string[] = [...DIGEST_TIME_ZONES];
  if (!zones.includes(opts.defaultTimeZone)) zones.unshift(opts.defaultTimeZone);
  const zoneOptions = zones.slice(0, MAX_OPTIONS).map((z) => option(w.zone(z), z));
  const initialZone = zoneOptions.find((o) => o.value === opts.defaultTimeZone) ?? zoneOptions[0];

  const shopBlocks: ModalView['blocks'] =
    shops.length > 0
      ? [
          {
            type: 'input',
            block_id: f.shop.block,
            optional: true,
            label: plain(t('digestForm.shop')),
            element: {
              type: 'static_select',
              action_id: f.shop.action,
              placeholder: plain(t('digestForm.chooseShop')),
              options: shops.map((s) =>
                option(t('digestForm.shopOption', { alias: s.alias, owner: s.ownerId }), s.alias),
              ),
            },
          },
        ]
      : [];
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain(t('digestForm.title'), 24),
    submit: plain(t('digestForm.submit'), 24),
    close: plain(t('digestForm.close'), 24),
    blocks: [
      section(t('digestForm.intro')),
      ...shopBlocks,
      {
        type: 'input',
        block_id: f.owner.block,
        optional: true,
        label: plain(shops.length > 0 ? t('digestForm.orOwner') : t('digestForm.ownerOrAlias')),
        hint: plain(
          shops.length > 0
            ? more > 0
              ? t('digestForm.hintBothMore', { n: w.count(more) })
              : t('digestForm.hintBoth')
            : t('digestForm.hintNone'),
          150,
        ),
        element: {
          type: 'plain_text_input',
          action_id: f.owner.action,
          max_length: OWNER_MAX,
          placeholder: plain(t('digestForm.ownerPlaceholder'), 150),
        },
      },
      {
        type: 'input',
        block_id: f.channel.block,
        label: plain(t('digestForm.channel')),
        element: {
          type: 'conversations_select',
          action_id: f.channel.action,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
        },
      },
      {
        type: 'input',
        block_id: f.time.block,
        label: plain(t('digestForm.time')),
        element: { type: 'timepicker', action_id: f.time.action, initial_time: DIGEST_DEFAULT_LOCAL_TIME },
      },
      {
        type: 'input',
        block_id: f.timeZone.block,
        label: plain(t('digestForm.timeZone')),
        element: {
          type: 'static_select',
          action_id: f.timeZone.action,
          options: zoneOptions,
          ...(initialZone ? { initial_option: initialZone } : {}),
        },
      },
      // What `/orders digest add` offers besides: layout, weekdays, filters (issue 26).
      {
        type: 'input',
        block_id: f.layout.block,
        label: plain(t('digestForm.layout')),
        element: {
          type: 'radio_buttons',
          action_id: f.layout.action,
          options: [
            option(t('digestForm.layoutThread'), 'thread'),
            option(t('digestForm.layoutSingle'), 'single'),
          ],
          initial_option: option(t('digestForm.layoutThread'), 'thread'),
        },
      },
      checkboxInput(
        f.days,
        t('digestForm.days'),
        t('digestForm.daysHint'),
        DIGEST_FORM_DAYS.map((d) => option(t(`digestForm.day.${d}`), String(d))),
      ),
      checkboxInput(
        f.flags,
        t('digestForm.flags'),
        t('digestForm.filterHint'),
        DIGEST_FORM_FLAGS.map((n) => option(t(`domain.flag.${n}`), String(n))),
      ),
      checkboxInput(
        f.statuses,
        t('digestForm.statuses'),
        t('digestForm.filterHint'),
        DIGEST_FORM_STATUSES.map((n) => option(t(`orders.status.${n}`), String(n))),
      ),
      {
        type: 'input',
        block_id: f.language.block,
        optional: true,
        label: plain(t('digestForm.language')),
        element: {
          type: 'static_select',
          action_id: f.language.action,
          options: [
            option(t('digestForm.languageDefault'), 'default'),
            option(t('home.languageName.en'), 'en'),
            option(t('home.languageName.zh-CN'), 'zh-CN'),
          ],
        },
      },
      context(digestCostLine(w, opts.cost)),
      context(t('digestForm.footer')),
    ],
  };
}

/** The form's answer once the digest is added: the same words as `/orders digest add`'s. */
export function renderDigestAddedModal(w: Words, text: string, costLine: string): ModalView {
  return {
    type: 'modal',
    title: plain(w.t('digestForm.addedTitle'), 24),
    close: plain(w.t('digestForm.addedClose'), 24),
    blocks: [section(text), context(costLine)],
  };
}
