/** Item links as Work Objects (issue 25): the entity's words and its details panel. */
export const workObject = {
  displayType: 'Marketplace item',
  titleUnknown: 'Item {{id}}',
  shop: 'Shop',
  price: 'Price',
  known: 'What platdesk knows',
  knownAge: 'Looked up {{age}} ago; opening this panel charges nothing',
  notKnown: 'Not looked up yet; opening this panel charges nothing',
  /** The paid action's label: it is the consent, so it states the charge. */
  lookUpNow: 'Look up now — {{charge}}',
  /** Shown by Slack on the action while the lookup runs (plain text). */
  lookingUp: 'Looking up item {{id}} ({{charge}})…',
  lookedUpNow: 'Looked up just now · {{charge}}',
  refusedLabel: 'Why you cannot look it up',
  /** The panel had closed before the answer came: the answer goes by direct message. */
  panelClosed:
    'The details panel of item {{id}} had closed before the answer came, so here it is. Reopen the panel to see it there too.',
  /** A panel action clicked after its offer ended (expired, cancelled): nothing was called. */
  offerEnded: 'That offer had ended, so nothing was looked up or charged. The button below is a fresh one.',
  notice: 'Note',
  /** A clicked offer whose lookup was interrupted by a restart: it may have been charged. */
  interrupted:
    'That lookup was interrupted by a platdesk restart and was not run again; it may have been charged (/platdesk usage shows your spend).',
  failedTitle: 'The lookup failed',
} as const;
