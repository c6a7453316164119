/** What every operation handler receives and returns. */
import type { Account } from '../account.js';
import type { Reply } from '../envelope.js';
import type { OrderBook } from '../fixtures.js';

export interface OperationRequest {
  query: URLSearchParams;
  body: Buffer;
  contentType: string | undefined;
}

export interface HandlerContext {
  account: Account;
  orders: OrderBook;
  /** The sandbox clock when it was created: orders and traces are placed relative to it. */
  anchorMs: number;
  /** platdybw's request_id: sequential, so runs repeat. */
  nextRequestId(): string;
}

export type Handler = (request: OperationRequest, context: HandlerContext) => Reply | Promise<Reply>;
