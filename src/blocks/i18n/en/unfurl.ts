/** Item-link unfurls. */
export const unfurl = {
  what: ':shopping_bags: *Item {{id}}*{{where}}{{host}}',
  where: {
    '0': ' on Taobao',
    '1': ' on Tmall',
    '2': ' on Pinduoduo',
  },
  host: ' ({{host}})',
  shop: 'Shop: {{shop}}',
  price: 'Price: {{price}}',
  notListed: 'not listed',
  lookUp: 'Look up ({{short}})',
  showDetails: 'Show details',
  earlierAuto:
    ':recycle: Earlier result (looked up automatically at {{time}}, {{age}} ago): not looked up again, no charge.',
  earlierBy:
    ':recycle: Earlier result (looked up by {{user}} at {{time}}, {{age}} ago): not looked up again, no charge.',
  shortLink:
    ':link: *Short link:* platdesk cannot tell which item {{host}} points to without opening it. Paste the full item link (`item.taobao.com/item.htm?id=…`, `detail.tmall.com/item.htm?id=…` or `mobile.yangkeduo.com/goods.html?goods_id=…`) to look it up.',
  shortLinkIt: 'it',
  capped:
    ":no_entry: Not looked up automatically: this channel's cap of {{cap}} automatic lookups a day is reached ({{used}} of {{cap}} today).",
  refused: ':no_entry: Not looked up automatically, refused for the person who posted it: {{reason}}',
  running: ':hourglass_flowing_sand: Being looked up automatically for an earlier post of this link.',
  failedEarlier:
    ':warning: An automatic lookup of this item failed at {{time}}; look it up by hand if you need it.',
  costs: 'Looking it up costs {{short}}; you confirm first. Nothing has been charged.',
  autoCached: 'from cache, {{age}} old: no charge, not counted ({{used}} of {{cap}} today)',
  autoCounted: '{{used}} of {{cap}} today · {{charge}}',
  auto: ':robot_face: Looked up automatically (this channel auto-looks up item links): {{counted}}.',
  autoFailedWhy: '{{title}}. {{charge}}',
  lookupFailed: 'The lookup failed.',
  autoFailed: ':warning: Looked up automatically ({{used}} of {{cap}} today) and it failed: {{why}}',
  earlierFallback: 'Earlier result: {{text}}',
} as const;
