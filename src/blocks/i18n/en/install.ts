/** The install pages of distributed mode (a web page after Slack's OAuth redirect). */
export const install = {
  title: 'platdesk',
  installedHeading: 'platdesk is installed',
  installedBody:
    'platdesk is now in {{workspace}}. Open its App Home in Slack: an admin connects the plat account there, then everyone can use /item, /shop, /waybill and /orders.',
  openSlack: 'Open Slack',
  failedHeading: 'platdesk could not be installed',
  failedBody:
    'The installation did not finish ({{reason}}). Nothing was stored. Start again from the install link.',
  tryAgain: 'Install again',
  reasonState: 'the install link expired or was opened in another browser',
  reasonDenied: 'the installation was cancelled in Slack',
  reasonOther: 'Slack did not confirm it',
} as const;
