/**
 * Ack first (DESIGN rule 1), then yield one turn of the event loop before the request's work
 * goes on, so that when many requests arrive together every one of them is acknowledged before
 * any of them quotes, stores or posts. Measured with `npm run bench`: 200 simultaneous slash
 * commands otherwise waited behind each other's post-ack work.
 */
export async function ackFirst(ack: () => Promise<void>): Promise<void> {
  await ack();
  await new Promise<void>((resolve) => setImmediate(resolve));
}
