/**
 * Request inputs of the seven operations, validated before anything is sent: invalid input
 * throws PlatInputError and never costs money (DESIGN rule 3).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { PlatInputError } from './errors.js';
import type { Operation } from './operations.js';

/** spec §8: at most 20 items in platdybw's param_list. We batch platdzmd the same way. */
export const MAX_WAYBILLS_PER_CALL = 20;
/** spec §8: pageSize at most 100. */
export const MAX_PAGE_SIZE = 100;
/** notes.md: the platform's order list allows at most a 24-hour window. */
export const MAX_ORDER_WINDOW_MS = 24 * 60 * 60 * 1000;

const id = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} is required`)
    .max(64, `${what} is too long`)
    .regex(/^[\w.:@\-\u4e00-\u9fff]+$/u, `${what} has characters an id cannot have`);
const itemId = lazySchema(() =>
  z
    .string()
    .trim()
    .regex(/^\d{5,20}$/, 'item id must be 5 to 20 digits'),
);
const waybillCode = lazySchema(() =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{6,40}$/, 'waybill number must be 6 to 40 letters or digits'),
);
const carrierCode = lazySchema(() =>
  z
    .string()
    .trim()
    .regex(/^[A-Z0-9_]{2,20}$/, 'carrier code must be upper-case letters, e.g. ZTO'),
);

export const waybillPrintInput = lazySchema(() =>
  z.object({
    shopId: id('shop id'),
    // spec §4.1 / §9: 1 basic, 3 standard (required: the client fills in the configured edition).
    edition: z.union([z.literal(1), z.literal(3)]).optional(),
    waybills: z
      .array(
        z.object({ waybillCode, cpCode: carrierCode.optional(), objectId: z.string().max(64).optional() }),
      )
      .min(1, 'at least one waybill number is required')
      .max(MAX_WAYBILLS_PER_CALL, `at most ${MAX_WAYBILLS_PER_CALL} waybill numbers per call`),
  }),
);
export type WaybillPrintInput = z.input<typeof waybillPrintInput>;

export const itemInput = lazySchema(() => z.object({ itemId }));
export type ItemInput = z.input<typeof itemInput>;

export const shopInfoInput = lazySchema(() =>
  z.object({
    url: z
      .string()
      .trim()
      .max(2000, 'link is too long')
      .refine((u) => /^https?:\/\/[^\s/]+\.[^\s/]+/i.test(u), 'a full http(s) item link is required'),
    // spec §4.4: 0 first marketplace, 1 its branded-store site, 2 second marketplace.
    type: z.enum(['0', '1', '2']).optional(),
    edition: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
  }),
);
export type ShopInfoInput = z.input<typeof shopInfoInput>;

export const shopIdInput = lazySchema(() =>
  z.object({ wwid: z.string().trim().min(1, 'account id is required').max(64) }),
);
export type ShopIdInput = z.input<typeof shopIdInput>;

export const waybillInfoInput = lazySchema(() =>
  z.object({
    ownerId: id('owner id'),
    edition: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
    waybills: z
      .array(z.object({ waybillCode, wpCode: carrierCode, objectId: z.string().max(64).optional() }))
      .min(1, 'at least one waybill number is required')
      .max(MAX_WAYBILLS_PER_CALL, `at most ${MAX_WAYBILLS_PER_CALL} waybill numbers per call`),
  }),
);
export type WaybillInfoInput = z.input<typeof waybillInfoInput>;

export const ordersInput = lazySchema(() =>
  z
    .object({
      ownerId: id('owner id'),
      edition: z.union([z.literal(1), z.literal(2)]).optional(),
      page: z.number().int('page must be a whole number').min(0, 'page must be 0 or more').default(0),
      pageSize: z
        .number()
        .int('page size must be a whole number')
        .min(1, 'page size must be at least 1')
        .max(MAX_PAGE_SIZE, `page size must be at most ${MAX_PAGE_SIZE}`)
        .default(MAX_PAGE_SIZE),
      startTime: z.date().optional(),
      endTime: z.date().optional(),
      remark: z.string().trim().min(1).max(200).optional(),
      remarkTag: z.number().int().min(1, 'flag must be 1 to 5').max(5, 'flag must be 1 to 5').optional(),
      remarkTagName: z.string().trim().min(1).max(50).optional(),
    })
    .superRefine((o, ctx) => {
      if (o.startTime && o.endTime) {
        if (o.endTime.getTime() < o.startTime.getTime())
          ctx.addIssue({
            code: 'custom',
            message: 'the end time is before the start time',
            path: ['endTime'],
          });
        else if (o.endTime.getTime() - o.startTime.getTime() > MAX_ORDER_WINDOW_MS)
          ctx.addIssue({
            code: 'custom',
            message: 'the time window is longer than 24 hours',
            path: ['endTime'],
          });
      }
    }),
);
export type OrdersInput = z.input<typeof ordersInput>;
export type OrdersParams = z.output<typeof ordersInput>;

/** Order filters are open to the enhanced edition (vvtype 1) only (spec §4.7, §9.3). */
export function ordersFilterIssues(o: OrdersParams, edition: number): string[] {
  if (edition === 1) return [];
  const used = (['startTime', 'endTime', 'remark', 'remarkTag', 'remarkTagName'] as const).filter(
    (k) => o[k] !== undefined,
  );
  return used.length === 0
    ? []
    : [`filters (${used.join(', ')}) are available in the enhanced edition only; this is the basic edition`];
}

/** Parses input or throws PlatInputError naming the operation: nothing is sent. */
export function validate<S extends z.ZodType>(operation: Operation, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new PlatInputError(
    operation,
    parsed.error.issues.map((i) => i.message),
  );
}
