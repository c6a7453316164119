/** The Chinese (zh-CN) catalog, typed by the English one: a missing or extra key does not compile. */

import type { Catalog } from '../words.js';
import { agent } from './agent.js';
import { alertForm, shipAlert, shipAlertProblem } from './alerts.js';
import { item, shop, waybill } from './answers.js';
import { chart, table } from './charts.js';
import { common, domain } from './common.js';
import { digest, digestForm, digestProblem } from './digest.js';
import { error } from './errors.js';
import { help, invalid } from './help.js';
import { alert, home } from './home.js';
import { install } from './install.js';
import { cap, charge, confirm, refusal, subject, summary } from './lookup.js';
import { mcp } from './mcp.js';
import { notice } from './notices.js';
import { orders } from './orders.js';
import { platdesk } from './platdesk.js';
import { problem } from './problems.js';
import { shortcut } from './shortcut.js';
import { step } from './steps.js';
import { tool } from './tools.js';
import { unfurl } from './unfurl.js';
import { workObject } from './work-objects.js';

export const zhCN: Catalog = {
  common,
  domain,
  help,
  invalid,
  problem,
  charge,
  confirm,
  subject,
  summary,
  cap,
  refusal,
  error,
  item,
  shop,
  orders,
  waybill,
  unfurl,
  home,
  alert,
  digest,
  digestProblem,
  digestForm,
  shipAlert,
  shipAlertProblem,
  alertForm,
  shortcut,
  notice,
  platdesk,
  step,
  tool,
  workObject,
  install,
  chart,
  table,
  agent,
  mcp,
};
