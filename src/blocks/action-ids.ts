/**
 * Every action_id the renderers put on a button. The Slack layer registers its listeners with
 * these constants; nothing else spells the strings.
 */
export const ACTIONS = {
  /** The agent's plan (issue 36): confirm it; value = the plan's batch id. */
  agentConfirm: 'platdesk.agent.confirm',
  /** The agent's plan: cancel it, or stop it while it runs; value = the plan's batch id. */
  agentStop: 'platdesk.agent.stop',
  /** The agent's answer: feedback buttons; value = agentFeedbackValue(). */
  agentFeedback: 'platdesk.agent.feedback',
  /** An AI client's paid tool call (MCP, issue 37), in its owner's DM: value = the pending lookup id. */
  mcpConfirm: 'platdesk.mcp.confirm',
  /** An AI client's paid tool call: deny it; value = the pending lookup id. */
  mcpDeny: 'platdesk.mcp.deny',
  /** App Home: "Connect an AI client" (MCP): a new token of the clicker's, shown once in a modal. */
  homeMcpConnect: 'platdesk.home.mcp_connect',
  /** Charge confirmation: value = the pending lookup id. */
  confirm: 'platdesk.confirm',
  /** Charge confirmation: value = the pending lookup id. */
  cancel: 'platdesk.cancel',
  /** Item card: look up the item's prices; value = item id. */
  itemPrices: 'platdesk.item.prices',
  /** Item card: look up the item's shop; value = item id. */
  itemShop: 'platdesk.item.shop',
  /** Orders page: value = pagerValue(page - 1). */
  ordersPrev: 'platdesk.orders.prev',
  /** Orders page: value = pagerValue(page + 1). */
  ordersNext: 'platdesk.orders.next',
  /** Waybill print data: upload the print data file; value = what the caller passed as downloadValue. */
  waybillDownload: 'platdesk.waybill.download',
  /** A cached answer: fetch it again, charged; value = a pending lookup id (single-use like Confirm). */
  refresh: 'platdesk.refresh',
  /** URL button to the shop authorization link (error 302). Slack still sends an action: ack it. */
  errorAuthLink: 'platdesk.link.auth',
  /** URL button opening the item page. Ack only. */
  itemLink: 'platdesk.link.item',
  /** URL button opening a shop's page (the shop id of a seller account). Ack only. */
  shopPage: 'platdesk.link.shop',
  /** The shop of a seller account, registered with an owner id: its orders; value = owner id. */
  shopOrders: 'platdesk.shop.orders',
  /** Digest over the cost cap: run it anyway; value = run id. */
  digestRunAnyway: 'platdesk.digest.run_anyway',
  /** Ship-by alert: claim an order; each button's action_id is alertActionId('claim', n). */
  alertClaim: 'platdesk.alert.claim',
  /** Ship-by alert: mark an order handled; alertActionId('handled', n). */
  alertHandled: 'platdesk.alert.handled',
  /** Ship-by alert over its daily cap: run it anyway; value = check id. */
  alertRunAnyway: 'platdesk.alert.run_anyway',
  /** App Home (admins): open the "Add alert" form. */
  homeAlertAdd: 'platdesk.home.alert_add',
  /** App Home (admins): remove an alert; homeAlertRemoveActionId(id), value = alert id. */
  homeAlertRemove: 'platdesk.home.alert_remove',
  /**
   * A digest already posted today: run it again, charged; value = digestRunAgainValue() (the
   * subscription and its newest run, so the button is single-use).
   */
  digestRunAgain: 'platdesk.digest.run_again',
  /** Item-link unfurl: offer the lookup (or show the earlier result); value = unfurlButtonValue(). */
  unfurlLookup: 'platdesk.unfurl.lookup',
  /** Work Object details panel: look the item up now (the click is the consent); value = panelActionValue(). */
  entityLookup: 'platdesk.entity.lookup',
  /** App Home (admins): open the "who may spend" form. */
  homeAccess: 'platdesk.home.access',
  /** App Home (admins): open the auto-lookup channels form. */
  homeAutoLookup: 'platdesk.home.autolookup',
  /** App Home (admins): open the prices form. */
  homePrices: 'platdesk.home.prices',
  /** Distributed mode: an admin connects the workspace's plat account (blocks/plat-account.ts). */
  homePlatAccount: 'platdesk.home.plat_account',
  /** Distributed mode: an admin asks for the workspace's data to be deleted (confirm modal). */
  homeEraseData: 'platdesk.home.erase_data',
  /**
   * App Home (admins): remove a digest subscription; value = subscription id. Each button's
   * action_id is homeDigestRemoveActionId(id), matched by HOME_DIGEST_REMOVE_PATTERN.
   */
  homeDigestRemove: 'platdesk.home.digest_remove',
  /** App Home (admins): open the "Add digest" form. */
  homeDigestAdd: 'platdesk.home.digest_add',
  /** App Home: the person's language; value = en, zh-CN or auto. Each button: homeLanguageActionId(value). */
  homeLanguage: 'platdesk.home.language',
} as const;

export type ActionId = (typeof ACTIONS)[keyof typeof ACTIONS];

/** "3:17": subscription 3, asked while its newest run was 17. */
export function digestRunAgainValue(subscriptionId: number, newestRunId: number): string {
  return `${subscriptionId}:${newestRunId}`;
}

export function parseDigestRunAgainValue(
  value: string | undefined,
): { subscriptionId: number; newestRunId: number } | null {
  const match = /^(\d{1,9}):(\d{1,12})$/.exec(value ?? '');
  return match ? { subscriptionId: Number(match[1]), newestRunId: Number(match[2]) } : null;
}

/**
 * The Home lists one Remove button per digest, and no two elements of a view may share an
 * action_id (test/helpers/block-limits.ts), so each carries the digest's id.
 */
export function homeDigestRemoveActionId(id: number): string {
  return `${ACTIONS.homeDigestRemove}.${id}`;
}

/** Every Remove button of the Home's digest list (the bare id too: Homes published before). */
export const HOME_DIGEST_REMOVE_PATTERN = /^platdesk\.home\.digest_remove(?:\.\d{1,9})?$/;

/** An alert message lists up to 20 orders, each with its own Claim and Handled (no shared action_id). */
export function alertActionId(kind: 'claim' | 'handled', index: number): string {
  return `${kind === 'claim' ? ACTIONS.alertClaim : ACTIONS.alertHandled}.${index}`;
}
export const ALERT_CLAIM_PATTERN = /^platdesk\.alert\.claim(?:\.\d{1,3})?$/;
export const ALERT_HANDLED_PATTERN = /^platdesk\.alert\.handled(?:\.\d{1,3})?$/;

export function homeAlertRemoveActionId(id: number): string {
  return `${ACTIONS.homeAlertRemove}.${id}`;
}
export const HOME_ALERT_REMOVE_PATTERN = /^platdesk\.home\.alert_remove(?:\.\d{1,9})?$/;

/** One action_id per language button (no two elements of a view may share one). */
export function homeLanguageActionId(value: 'en' | 'zh-CN' | 'auto'): string {
  return `${ACTIONS.homeLanguage}.${value}`;
}

export const HOME_LANGUAGE_PATTERN = /^platdesk\.home\.language\.(?:en|zh-CN|auto)$/;

/**
 * Buttons that only open a URL still send a block_actions payload that must be acknowledged;
 * register one ack-only listener for this pattern.
 */
export const LINK_ACTION_PATTERN = /^platdesk\.link\./;
