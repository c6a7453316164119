/**
 * Ends every test run with the plain line `N passed, N failed` (plus `, N skipped`), counted
 * from vitest's own results, so CI can read the outcome whatever the default reporter prints.
 * A module that failed to load counts as one failure; unhandled errors count too. Before it, every
 * test file that did not end as passed is named with its state (a file whose process died after
 * its tests passed, "Worker exited unexpectedly", is otherwise named nowhere in the output), and
 * the Node that ran the suite (test/runtime.test.ts fails unless it is the pinned one).
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    const unfinished: string[] = [];
    for (const module of testModules) {
      const state = module.state();
      if (state !== 'passed' && state !== 'skipped')
        unfinished.push(`${relative(process.cwd(), module.moduleId)} (${state})`);
      const tests = [...module.children.allTests()];
      if (tests.length === 0 && module.state() === 'failed') failed += 1;
      for (const test of tests) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    if (unfinished.length > 0) process.stdout.write(`\nnot passed: ${unfinished.join(', ')}`);
    process.stdout.write(
      `\nran on Node ${process.version}\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
