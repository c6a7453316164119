/** Short notices of the Slack layer: files sent, links not understood, lookups interrupted. */
export const notice = {
  unknownCommand:
    'platdesk does not know `{{command}}`. Its commands: `/item`, `/shop`, `/waybill`, `/orders` and `/platdesk` (each answers `help`).',
  printDataGone: 'That print data is no longer available to you; run the waybill lookup again.',
  printDataTitle: 'Waybill print data',
  printDataComment: 'Print data for {{summary}}, for your printing tool.',
  printDataFailed:
    'The print data file could not be sent to you; try the button again in a moment (no new charge).',
  printDataSent: 'The print data file is in your direct messages with platdesk.',
  notItemLink: 'That link is not an item link platdesk can look up. Nothing was charged.',
  exportFailed: 'The ledger export could not be sent to your direct messages; try again in a moment.',
  exportTitle: 'platdesk ledger',
} as const;
