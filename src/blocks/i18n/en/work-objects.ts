/** Item links as Work Objects (issue 25): the entity's words and its details panel. */
export const workObject = {
  displayType: 'Marketplace item',
  titleUnknown: 'Item {{id}}',
  shop: 'Shop',
  price: 'Price',
  known: 'What platdesk knows',
  knownAge: 'Looked up {{age}} ago; opening this panel charges nothing',
  notKnown: 'Not looked up yet; opening this panel charges nothing',
  lookUpNow: 'Look up now — 1 item quota call',
} as const;
