/**
 * The project's own Block Kit schemas (zod), for the blocks and elements platdesk emits, with the
 * limits Slack documents for each field (https://docs.slack.dev/reference/block-kit/blocks,
 * …/block-elements, …/composition-objects, https://docs.slack.dev/reference/views/modal-views):
 * unknown fields are refused (Slack answers `invalid_blocks`), lengths are counted in UTF-16 units
 * (the stricter count). Payload-wide rules (block counts per surface, unique ids, inputs only in
 * views) are in check.ts.
 */
import { z } from 'zod';

/** Text of 1..max characters that is not only white space (Slack refuses empty text objects). */
const text = (max: number) =>
  z
    .string()
    .max(max, `over ${max} characters`)
    .refine((t) => t.trim() !== '', 'empty text');

const actionId = z.string().min(1).max(255);
const blockId = z.string().min(1).max(255);
const httpUrl = z
  .string()
  .max(3000)
  .regex(/^https?:\/\/\S+$/, 'not an absolute http(s) URL');

export const plainText = (max = 3000) =>
  z.strictObject({ type: z.literal('plain_text'), text: text(max), emoji: z.boolean().optional() });
export const mrkdwnText = (max = 3000) =>
  z.strictObject({ type: z.literal('mrkdwn'), text: text(max), verbatim: z.boolean().optional() });
const anyText = (max = 3000) => z.discriminatedUnion('type', [plainText(max), mrkdwnText(max)]);

const confirmDialog = z.strictObject({
  title: plainText(100),
  text: anyText(300),
  confirm: plainText(30),
  deny: plainText(30),
  style: z.enum(['primary', 'danger']).optional(),
});

/** Option of a select or overflow menu: plain text label ≤ 75, value ≤ 150. */
const option = z.strictObject({
  text: plainText(75),
  value: z.string().min(1).max(150),
  description: plainText(75).optional(),
});
const overflowOption = option.extend({ url: httpUrl.optional() });
/** Option of checkboxes and radio buttons: mrkdwn allowed. */
const choiceOption = z.strictObject({
  text: anyText(75),
  value: z.string().min(1).max(150),
  description: anyText(75).optional(),
});
const optionGroup = z.strictObject({ label: plainText(75), options: z.array(option).min(1).max(100) });

const placeholder = plainText(150).optional();
const common = {
  action_id: actionId.optional(),
  focus_on_load: z.boolean().optional(),
};
const dispatchConfig = z
  .strictObject({
    trigger_actions_on: z
      .array(z.enum(['on_enter_pressed', 'on_character_entered']))
      .min(1)
      .max(2),
  })
  .optional();
const filter = z
  .strictObject({
    include: z
      .array(z.enum(['im', 'mpim', 'private', 'public']))
      .min(1)
      .max(4)
      .optional(),
    exclude_external_shared_channels: z.boolean().optional(),
    exclude_bot_users: z.boolean().optional(),
  })
  .refine((f) => Object.keys(f).length > 0, 'empty filter')
  .optional();
const numeric = z.string().regex(/^-?\d+(\.\d+)?$/, 'not a number');
const userId = z.string().regex(/^[UW][A-Z0-9]+$/, 'not a user id');

export const button = z
  .strictObject({
    type: z.literal('button'),
    text: plainText(75),
    action_id: actionId.optional(),
    value: z.string().min(1).max(2000).optional(),
    url: httpUrl.optional(),
    style: z.enum(['primary', 'danger']).optional(),
    confirm: confirmDialog.optional(),
    accessibility_label: z.string().min(1).max(75).optional(),
  })
  .refine((b) => b.value !== undefined || b.url !== undefined, 'button with neither value nor url');

/**
 * An image's source: a public `image_url`, or a file uploaded to Slack as `slack_file` by `id` or
 * by its Slack `url` (https://docs.slack.dev/reference/block-kit/composition-objects/slack-file-object),
 * exactly one of the two.
 */
const slackFile = z
  .strictObject({
    id: z
      .string()
      .regex(/^F[A-Z0-9]+$/, 'not a file id')
      .optional(),
    url: httpUrl.optional(),
  })
  .refine((f) => (f.id === undefined) !== (f.url === undefined), 'slack_file needs an id or a url, not both');
const imageSource = <T extends z.ZodRawShape>(shape: T) =>
  z
    .strictObject({ ...shape, image_url: httpUrl.optional(), slack_file: slackFile.optional() })
    .refine((i) => {
      const source = i as { image_url?: unknown; slack_file?: unknown };
      return (source.image_url === undefined) !== (source.slack_file === undefined);
    }, 'image needs image_url or slack_file, not both');

export const imageElement = imageSource({
  type: z.literal('image'),
  alt_text: z.string().min(1).max(2000),
});

const staticSelect = z
  .strictObject({
    type: z.literal('static_select'),
    ...common,
    placeholder,
    options: z.array(option).min(1).max(100).optional(),
    option_groups: z.array(optionGroup).min(1).max(100).optional(),
    initial_option: option.optional(),
    confirm: confirmDialog.optional(),
  })
  .refine((s) => (s.options === undefined) !== (s.option_groups === undefined), 'options XOR option_groups');
const multiStaticSelect = z
  .strictObject({
    type: z.literal('multi_static_select'),
    ...common,
    placeholder,
    options: z.array(option).min(1).max(100).optional(),
    option_groups: z.array(optionGroup).min(1).max(100).optional(),
    initial_options: z.array(option).min(1).optional(),
    max_selected_items: z.number().int().min(1).optional(),
    confirm: confirmDialog.optional(),
  })
  .refine((s) => (s.options === undefined) !== (s.option_groups === undefined), 'options XOR option_groups');
const externalSelect = z.strictObject({
  type: z.literal('external_select'),
  ...common,
  placeholder,
  initial_option: option.optional(),
  min_query_length: z.number().int().min(0).optional(),
  confirm: confirmDialog.optional(),
});
const usersSelect = z.strictObject({
  type: z.literal('users_select'),
  ...common,
  placeholder,
  initial_user: userId.optional(),
  confirm: confirmDialog.optional(),
});
const multiUsersSelect = z.strictObject({
  type: z.literal('multi_users_select'),
  ...common,
  placeholder,
  initial_users: z.array(userId).min(1).optional(),
  max_selected_items: z.number().int().min(1).optional(),
  confirm: confirmDialog.optional(),
});
const conversationsSelect = z.strictObject({
  type: z.literal('conversations_select'),
  ...common,
  placeholder,
  initial_conversation: z.string().min(1).optional(),
  default_to_current_conversation: z.boolean().optional(),
  response_url_enabled: z.boolean().optional(),
  filter,
  confirm: confirmDialog.optional(),
});
const multiConversationsSelect = z.strictObject({
  type: z.literal('multi_conversations_select'),
  ...common,
  placeholder,
  initial_conversations: z.array(z.string().min(1)).min(1).optional(),
  default_to_current_conversation: z.boolean().optional(),
  max_selected_items: z.number().int().min(1).optional(),
  filter,
  confirm: confirmDialog.optional(),
});
const channelsSelect = z.strictObject({
  type: z.literal('channels_select'),
  ...common,
  placeholder,
  initial_channel: z.string().min(1).optional(),
  response_url_enabled: z.boolean().optional(),
  confirm: confirmDialog.optional(),
});
const overflow = z.strictObject({
  type: z.literal('overflow'),
  action_id: actionId.optional(),
  options: z.array(overflowOption).min(1).max(5),
  confirm: confirmDialog.optional(),
});
const datepicker = z.strictObject({
  type: z.literal('datepicker'),
  ...common,
  placeholder,
  initial_date: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'not YYYY-MM-DD')
    .optional(),
  confirm: confirmDialog.optional(),
});
const timepicker = z.strictObject({
  type: z.literal('timepicker'),
  ...common,
  placeholder,
  initial_time: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'not HH:mm')
    .optional(),
  timezone: z.string().min(1).optional(),
  confirm: confirmDialog.optional(),
});
const datetimepicker = z.strictObject({
  type: z.literal('datetimepicker'),
  ...common,
  initial_date_time: z.number().int().min(0).max(9_999_999_999).optional(),
  confirm: confirmDialog.optional(),
});
const checkboxes = z.strictObject({
  type: z.literal('checkboxes'),
  ...common,
  options: z.array(choiceOption).min(1).max(10),
  initial_options: z.array(choiceOption).min(1).max(10).optional(),
  confirm: confirmDialog.optional(),
});
const radioButtons = z.strictObject({
  type: z.literal('radio_buttons'),
  ...common,
  options: z.array(choiceOption).min(1).max(10),
  initial_option: choiceOption.optional(),
  confirm: confirmDialog.optional(),
});
const plainTextInput = z
  .strictObject({
    type: z.literal('plain_text_input'),
    ...common,
    placeholder,
    initial_value: z.string().max(3000).optional(),
    multiline: z.boolean().optional(),
    min_length: z.number().int().min(0).max(3000).optional(),
    max_length: z.number().int().min(1).max(3000).optional(),
    dispatch_action_config: dispatchConfig,
  })
  .refine(
    (e) =>
      e.initial_value === undefined || e.max_length === undefined || e.initial_value.length <= e.max_length,
    'initial_value longer than max_length',
  );
const numberInput = z.strictObject({
  type: z.literal('number_input'),
  ...common,
  placeholder,
  is_decimal_allowed: z.boolean(),
  initial_value: numeric.optional(),
  min_value: numeric.optional(),
  max_value: numeric.optional(),
  dispatch_action_config: dispatchConfig,
});

/** Interactive elements by where they may stand (Slack's "works with" lists), by their `type`. */
type Members = Record<string, z.ZodType>;
const selects: Members = {
  static_select: staticSelect,
  multi_static_select: multiStaticSelect,
  external_select: externalSelect,
  users_select: usersSelect,
  multi_users_select: multiUsersSelect,
  conversations_select: conversationsSelect,
  multi_conversations_select: multiConversationsSelect,
  channels_select: channelsSelect,
};
const pickers: Members = { datepicker, timepicker, datetimepicker, checkboxes, radio_buttons: radioButtons };

/** One of `members`, chosen by the value's `type` (so a mistake is reported once, in its own terms). */
const oneOf = (members: Members) =>
  z.unknown().superRefine((value, ctx) => {
    const type = (value as { type?: unknown } | null)?.type;
    const schema = typeof type === 'string' && Object.hasOwn(members, type) ? members[type] : undefined;
    if (!schema) {
      ctx.addIssue({ code: 'custom', message: `type ${JSON.stringify(type)} not allowed here` });
      return;
    }
    const result = schema.safeParse(value);
    if (!result.success)
      for (const issue of result.error.issues)
        ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] });
  });

const sectionAccessory = oneOf({ button, image: imageElement, overflow, ...selects, ...pickers });
const actionsElement = oneOf({
  button,
  overflow,
  ...selects,
  ...pickers,
  plain_text_input: plainTextInput,
  number_input: numberInput,
});
const inputElement = oneOf({
  ...selects,
  ...pickers,
  plain_text_input: plainTextInput,
  number_input: numberInput,
});
const contextElement = oneOf({ image: imageElement, plain_text: plainText(3000), mrkdwn: mrkdwnText(3000) });

const section = z
  .strictObject({
    type: z.literal('section'),
    block_id: blockId.optional(),
    text: anyText(3000).optional(),
    fields: z.array(anyText(2000)).min(1).max(10).optional(),
    accessory: sectionAccessory.optional(),
    expand: z.boolean().optional(),
  })
  .refine((s) => s.text !== undefined || s.fields !== undefined, 'section needs text or fields');
const header = z.strictObject({
  type: z.literal('header'),
  block_id: blockId.optional(),
  text: plainText(150),
});
const divider = z.strictObject({ type: z.literal('divider'), block_id: blockId.optional() });
const context = z.strictObject({
  type: z.literal('context'),
  block_id: blockId.optional(),
  elements: z.array(contextElement).min(1).max(10),
});
const actions = z.strictObject({
  type: z.literal('actions'),
  block_id: blockId.optional(),
  elements: z.array(actionsElement).min(1).max(25),
});
const image = imageSource({
  type: z.literal('image'),
  block_id: blockId.optional(),
  alt_text: z.string().min(1).max(2000),
  title: plainText(2000).optional(),
});

/**
 * https://docs.slack.dev/reference/block-kit/blocks/table-block: 1..100 rows of 1..20 cells, every
 * row as wide as the first; `column_settings` at most 20 items of `align` (left, center, right) and
 * `is_wrapped`. Cells are `raw_text` (platdesk never sends rich_text cells), whose text Slack
 * refuses empty. The reference states no per-cell limit; integrators report Slack refusing a table
 * whose cells hold over 10,000 characters in all, so that is checked too (TABLE_MAX_CHARACTERS).
 * One table per message and messages only: check.ts.
 */
export const TABLE_MAX_CHARACTERS = 10_000;
const rawTextCell = z.strictObject({
  type: z.literal('raw_text'),
  text: z.string().refine((t) => t.trim() !== '', 'empty cell'),
});
const table = z
  .strictObject({
    type: z.literal('table'),
    block_id: blockId.optional(),
    rows: z.array(z.array(rawTextCell).min(1).max(20, 'over 20 cells')).min(1).max(100, 'over 100 rows'),
    column_settings: z
      .array(
        z.strictObject({
          align: z.enum(['left', 'center', 'right']).optional(),
          is_wrapped: z.boolean().optional(),
        }),
      )
      .max(20, 'over 20 column settings')
      .optional(),
  })
  .refine((t) => t.rows.every((r) => r.length === t.rows[0]?.length), 'rows of different widths')
  .refine(
    (t) => t.rows.flat().reduce((n, c) => n + c.text.length, 0) <= TABLE_MAX_CHARACTERS,
    `cells over ${TABLE_MAX_CHARACTERS} characters in all`,
  );
const input = z.strictObject({
  type: z.literal('input'),
  block_id: blockId.optional(),
  label: plainText(2000),
  element: inputElement,
  hint: plainText(2000).optional(),
  optional: z.boolean().optional(),
  dispatch_action: z.boolean().optional(),
});

/**
 * https://docs.slack.dev/reference/block-kit/blocks/context-actions-block: up to 5 feedback
 * buttons (a positive and a negative button, each a plain_text label and a value) or icon buttons.
 */
const feedbackButton = z.strictObject({
  text: plainText(75),
  value: z.string().min(1).max(2000),
  accessibility_label: z.string().max(75).optional(),
});
const feedbackButtons = z.strictObject({
  type: z.literal('feedback_buttons'),
  action_id: z.string().max(255).optional(),
  positive_button: feedbackButton,
  negative_button: feedbackButton,
});
const contextActions = z.strictObject({
  type: z.literal('context_actions'),
  block_id: blockId.optional(),
  elements: z
    .array(oneOf({ feedback_buttons: feedbackButtons }))
    .min(1)
    .max(5),
});

/** Every block type platdesk may emit. */
export const block = oneOf({
  section,
  header,
  divider,
  context,
  actions,
  image,
  input,
  table,
  context_actions: contextActions,
});

export const modalView = z
  .strictObject({
    type: z.literal('modal'),
    title: plainText(24),
    blocks: z.array(z.unknown()).max(100),
    close: plainText(24).optional(),
    submit: plainText(24).optional(),
    private_metadata: z.string().max(3000).optional(),
    callback_id: z.string().max(255).optional(),
    clear_on_close: z.boolean().optional(),
    notify_on_close: z.boolean().optional(),
    external_id: z.string().max(255).optional(),
    submit_disabled: z.boolean().optional(),
  })
  .refine(
    (v) => v.submit !== undefined || !v.blocks.some((b) => (b as { type?: unknown })?.type === 'input'),
    'a modal with input blocks needs a submit button',
  );

export const homeView = z.strictObject({
  type: z.literal('home'),
  blocks: z.array(z.unknown()).max(100),
  private_metadata: z.string().max(3000).optional(),
  callback_id: z.string().max(255).optional(),
  external_id: z.string().max(255).optional(),
});
