export { CODE_MESSAGES, NOT_ENOUGH_CALLS } from './envelope.js';
export { parseFaults } from './faults.js';
export { SANDBOX_FIXTURES } from './fixtures.js';
export { ITEM_NOT_FOUND } from './handlers/item-info.js';
export { DEFAULT_PAGE_SIZE, MAX_TIME_WINDOW_MS } from './handlers/paging-orders.js';
export { SHOP_NOT_FOUND } from './handlers/shop-id.js';
export { LINK_NOT_FOUND } from './handlers/shop-info.js';
export { DEFAULT_PRICES, platPrices } from './prices.js';
export { createSandbox, SANDBOX_DEFAULTS } from './server.js';
export type {
  EditionPrices,
  FaultKind,
  FaultRule,
  FaultScope,
  PriceSetting,
  Sandbox,
  SandboxOptions,
  SandboxPrices,
  SandboxStats,
} from './types.js';
