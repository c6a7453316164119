/**
 * Only when platdesk runs from its sources (tests, tsx): lets the chart worker run
 * src/charts/worker.ts with Node's own type stripping instead of tsx's loader, which doubled a
 * new worker's start (Vega's hundreds of modules through tsx's hooks). The sources import each
 * other as './x.js' (module: nodenext); this maps such an import from a .ts file to './x.ts'.
 * The build never uses it (dist/chart-worker.js is plain JavaScript).
 */
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      try {
        return next(specifier, context);
      } catch {
        return next(`${specifier.slice(0, -3)}.ts`, context);
      }
    }
    return next(specifier, context);
  },
});
