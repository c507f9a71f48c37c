// `kubeforge test`: runs a project's compiled tests in two tiers (src/testing/runner.ts); the
// runner is imported lazily.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DiagnosticError, error } from '../../diagnostics/index.js';
import type { CliContext } from '../context.js';
import { addFlags, type FlagTable, flagValues } from '../flags.js';

/** The flags of `test`, in the help's order. */
export const TEST_FLAGS = {
  unit: {
    type: 'switch',
    description:
      'the unit tier alone (*.unit.test.js and *.both.test.js, on the fake API server): no control plane, no KUBEBUILDER_ASSETS',
  },
  isolate: {
    type: 'switch',
    description: 'a process per unit test file rather than one per core (finds a file that depends on another)',
  },
  project: { type: 'string', value: '<dir>', default: '.', description: 'project folder' },
} as const satisfies FlagTable;

export function registerTest(program: Command, ctx: CliContext): void {
  addFlags(
    program
      .command('test')
      .description(
        "run the project's compiled tests: the unit tier on the fake API server, then the rest on one control plane",
      )
      .argument(
        '[files...]',
        'compiled test files to run, relative to the project (default: every build/test/**/*.test.js)',
      ),
    TEST_FLAGS,
  )
    .addHelpText(
      'after',
      `
Runs what the build compiled (build it first: npm run build) in child processes, with source maps
on; one TAP stream goes to stdout (to stderr with --json), the tiers numbered through:
  1. the unit tier, *.unit.test.js and *.both.test.js: on kubeforge/testing's fake API server or on
     none; its files run in parallel, one process per core (per file with --isolate), each process
     running its share one after the other;
  2. every other file, *.both.test.js again, one at a time, against ONE etcd + kube-apiserver (from
     KUBEBUILDER_ASSETS, see kubeforge setup-envtest) started for the whole tier; each file's
     TestEnvironment joins it;
  3. e2e files named on the command line (build/test/e2e/...): one at a time, no control plane
     (they deploy to a cluster of their own).
A *.both.test.js file is one test body for both tiers: KUBEFORGE_TEST_TIER is unit, then full, and
kubeforge/testing's startTestAPI() gives it the fake or the real API server accordingly.
Exit 1 when a test fails (a failing todo or skipped test does not), when a file did not report
(a test that called process.exit), or when the control plane did not start.

Examples:
  $ npm run build && kubeforge test
  $ kubeforge test --unit                        # seconds, no binaries needed
  $ kubeforge test build/test/e2e/manager.e2e.js # one file (here: the e2e test, on a real cluster)
  $ c8 kubeforge test                            # with coverage, as npm test does`,
    )
    .action(async (files: string[], parsed: Record<string, unknown>) => {
      const opts = flagValues(TEST_FLAGS, parsed);
      const cwd = resolve(ctx.cwd, opts.project);
      const missing = files.filter((f) => !existsSync(resolve(cwd, f)));
      if (missing.length > 0)
        throw new DiagnosticError(
          error('KF1500', `no such test file: ${missing.join(', ')}`, {
            hint: 'name compiled files under build/test (npm run build first), relative to the project',
          }),
        );
      const { runTests, NoTestFilesError, unrunnableFiles } = await import('../../testing/runner.js');
      const unrunnable = unrunnableFiles(cwd, files, opts.unit === true);
      if (unrunnable.length > 0)
        throw new DiagnosticError(
          unrunnable.map((why) =>
            error('KF1500', `cannot run ${why}`, {
              hint: 'name compiled files under build/test (npm run build first), relative to the project',
            }),
          ),
        );
      const { InterruptedError } = await import('../../machinery/guard.js');
      let result: Awaited<ReturnType<typeof runTests>>;
      try {
        result = await runTests({ cwd, files, unit: opts.unit, isolate: opts.isolate, out: ctx.out, err: ctx.err });
      } catch (e) {
        if (e instanceof NoTestFilesError)
          throw new DiagnosticError(
            error('KF1500', `no compiled test files (*.test.js) under ${e.root}`, {
              hint: 'build the project first (npm run build)',
            }),
          );
        throw e;
      }
      if (result.interrupted) throw new InterruptedError(result.interrupted, 'the test processes were stopped');
      const tiers = [
        ...((result.unitTotals?.fail ?? 0) > 0 ? ['the unit tier'] : []),
        ...((result.serverFailures ?? 0) > 0 ? ['the control-plane tier'] : []),
        ...((result.e2eFailures ?? 0) > 0 ? ['the e2e files'] : []),
      ];
      const problems = [];
      // A unit tier that failed before the control plane could not start is still reported.
      if (tiers.length > 0 || (result.failed && result.controlPlaneError === undefined))
        problems.push(
          error('KF1501', `tests failed in ${tiers.join(' and ') || 'the run'}`, {
            hint: `the TAP${ctx.report ? ' on stderr' : ' above'} names them (not ok)`,
          }),
        );
      if (result.controlPlaneError !== undefined)
        problems.push(
          error('KF1502', `cannot start the test control plane: ${result.controlPlaneError}`, {
            hint: 'set KUBEBUILDER_ASSETS to the folder kubeforge setup-envtest prints',
          }),
        );
      if (problems.length > 0) throw new DiagnosticError(problems);
    });
}
