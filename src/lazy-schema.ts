/**
 * A zod schema built when first used instead of at module load: building the app's schemas
 * (plat answers, digests, settings, Home…) at load was a good part of start's CPU
 * (docs/architecture.md, "What start costs"), and most are first used by a later request.
 *
 * The stand-in forwards every read to the built schema (its methods bound to it), so callers use
 * it as the schema itself (`.parse`, `.safeParse`, composed into other schemas, `z.infer`).
 */
export function lazySchema<T extends object>(build: () => T): T {
  let schema: T | undefined;
  const built = (): T => {
    schema ??= build();
    return schema;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const target = built();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    has: (_, key) => Reflect.has(built(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(built()),
    ownKeys: () => Reflect.ownKeys(built()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(built(), key);
      // The stand-in's own target has no such property: it may report it only as configurable.
      if (descriptor) descriptor.configurable = true;
      return descriptor;
    },
  });
}
