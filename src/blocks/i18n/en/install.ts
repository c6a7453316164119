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
  notAllowedHeading: 'platdesk is not open to this workspace',
  notAllowedBody:
    'This platdesk runs for named workspaces only, and yours is not one of them. Nothing was stored, and platdesk was uninstalled from the workspace again. Ask whoever runs it to add your workspace.',
  platAccountHeading: 'Plat account',
  platAccountFirstStep: 'First step: connect a plat account',
  platAccountMemberNone:
    ':information_source: This workspace has no plat account yet, so lookups cannot run: an admin connects one on their App Home.',
  platAccountNone: 'No plat account is connected: lookups cannot run until an admin connects one.',
  platAccountDefault:
    "Lookups are charged to the operator's plat account. Connect your own to be charged on it.",
  platAccountUnchecked:
    'Connected to {{url}}. The plat API has no free call, so the token is checked by the first lookup (charged as usual).',
  platAccountVerified: 'Connected to {{url}}; the token was accepted.',
  platAccountRefused:
    'Connected to {{url}}, but the plat API refused the token ({{code}}). Connect it again with a valid token.',
  platAccountButton: 'Connect plat account',
  platAccountModalTitle: 'Plat account',
  platAccountModalSave: 'Save',
  platAccountBaseUrl: 'Base URL',
  platAccountBaseUrlHint: 'The plat API base URL your provider gave you (https://…).',
  platAccountToken: 'Token',
  platAccountTokenHint: 'Stored encrypted; never shown again.',
  platAccountBadUrl: 'Enter an https:// URL (with no user name or password in it).',
  platAccountPrivateUrl:
    "That address is not on the public internet (it points at this machine or an inner network): enter the plat API's public https:// URL your provider gave you.",
  platAccountUnresolvedUrl: 'That host name could not be found: check the URL.',
  platAccountBadToken: 'The token may hold printable ASCII only (no spaces).',
  platAccountOnlyAdmins: 'Only a platdesk admin of this workspace can connect the plat account.',
  eraseButton: 'Delete workspace data',
  eraseModalTitle: 'Delete workspace data',
  eraseModalBody:
    'This uninstalls platdesk from this workspace now: its Slack tokens and plat account are deleted at once, and all of its data (spend ledger, settings, digests, alerts) is erased within the hour. This cannot be undone.',
  eraseModalSubmit: 'Delete',
} as const;
