/**
 * JSON that keeps Dates, for what the store holds as text (requests, quotes, settings, cached
 * answers).
 */
// ---- JSON with dates -----------------------------------------------------------------------

// Requests hold Dates (OrderFilters.startTime/endTime); plain JSON would bring them back as
// strings. A Date is written as {"$date": ms} and revived on read.
export function toJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const original = this[key];
    return original instanceof Date ? { $date: original.getTime() } : v;
  });
}

export function fromJson<T>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const ms = (v as { $date?: unknown }).$date;
      if (keys.length === 1 && typeof ms === 'number') return new Date(ms);
    }
    return v;
  }) as T;
}
