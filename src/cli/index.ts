/**
 * Commander wiring. The only module that sets exit codes. Command modules register their
 * flags here cheaply and import their implementation lazily inside the action, so that
 * `kubeforge --help` never loads ts-morph, handlebars, execa or client-node.
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { DiagnosticError, error, formatDiagnostics } from '../diagnostics/index.js';
import { CommandReport } from '../machinery/report.js';
import { isSystemError, type SystemError, systemErrorHint } from '../util/fs-errors.js';
import { packageVersion } from '../util/package-root.js';
import { type CliContext, UsageError } from './context.js';
import { registerAlpha } from './commands/alpha.js';
import { registerCompletion } from './commands/completion.js';
import { registerCreate } from './commands/create.js';
import { registerDev } from './commands/dev.js';
import { registerDocs } from './commands/docs.js';
import { registerEdit } from './commands/edit.js';
import { registerInit } from './commands/init.js';
import { registerManifests } from './commands/manifests.js';
import { registerSetupEnvtest } from './commands/setup-envtest.js';
import { registerTest } from './commands/test.js';
import { registerVersion } from './commands/version.js';

export type { CliContext } from './context.js';

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('kubeforge')
    .description('Kubebuilder for TypeScript: scaffold, generate manifests for, and run Kubernetes operators')
    .option('--no-color', 'disable coloured output')
    .option('--json', 'print one JSON document on stdout (any command; schemas/output.schema.json), text on stderr')
    .showSuggestionAfterError(true)
    // Options after a subcommand belong to it: `create api --version v1` is the API version.
    .enablePositionalOptions()
    .configureOutput(outputOf(ctx))
    .exitOverride();
  program.addHelpText(
    'after',
    `
Examples:
  $ kubeforge init --domain example.com --project-name guestbook
  $ kubeforge create api --group batch --version v1 --kind CronJob
  $ kubeforge manifests
  $ kubeforge manifests --check
  $ kubeforge setup-envtest
  $ kubeforge test --unit
  $ kubeforge completion bash >> ~/.bashrc`,
  );
  registerInit(program, ctx);
  registerCreate(program, ctx);
  registerEdit(program, ctx);
  registerAlpha(program, ctx);
  registerManifests(program, ctx);
  registerDev(program, ctx);
  registerDocs(program, ctx);
  registerSetupEnvtest(program, ctx);
  registerTest(program, ctx);
  registerVersion(program, ctx);
  registerCompletion(program, ctx);
  const configure = (cmd: Command) => {
    cmd.exitOverride().configureOutput(outputOf(ctx));
    cmd.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return program;
}

/**
 * Where commander prints: help on stdout, its errors on stderr; with --json, the help goes into
 * the document (`help`) and the error into its diagnostics (by {@link reportError}).
 */
function outputOf(ctx: CliContext) {
  const { report } = ctx;
  if (!report) return { writeOut: ctx.out, writeErr: ctx.err };
  return {
    writeOut: (text: string) => {
      report.details.help = (report.details.help ?? '') + text;
    },
    writeErr: ctx.err,
  };
}

/** The command path typed (`create api`): the leading words of argv that name commands. */
function commandPath(program: Command, args: readonly string[]): string {
  const path: string[] = [];
  let cmd: Command | undefined = program;
  for (const a of args) {
    if (a.startsWith('-')) continue;
    const sub: Command | undefined = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!sub) break;
    path.push(sub.name());
    cmd = sub;
  }
  return path.join(' ');
}

/**
 * A writer that goes quiet once its reader is gone: `kubeforge --help | head -1` closes the pipe
 * early, and the write then fails with EPIPE (asynchronously, as an 'error' event that would
 * otherwise end the process with a stack trace). The command carries on (it still releases its
 * lock and finishes its commit) and exits with its own code; later output is dropped.
 */
function pipeWriter(stream: NodeJS.WriteStream, name: 'stdout' | 'stderr'): (text: string) => void {
  let closed = false;
  const fail = (e: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') return;
    // Any other failure (a full disk behind `> file`, /dev/full, an I/O error): the output is lost,
    // which the exit code says (1), and stderr too when it is stdout that failed.
    streamFailure ??= { stream: name, error: e };
  };
  stream.on('error', fail);
  return (text) => {
    if (closed) return;
    try {
      stream.write(text);
    } catch (e) {
      // A file or /dev/full behind the stream: Node writes synchronously, and the write throws.
      fail(e as NodeJS.ErrnoException);
    }
  };
}

/** The first write to stdout or stderr that failed other than by the reader leaving (EPIPE). */
let streamFailure: { stream: 'stdout' | 'stderr'; error: NodeJS.ErrnoException } | undefined;

function defaultContext(argv: readonly string[]): CliContext {
  const noColor = argv.includes('--no-color') || process.env.NO_COLOR !== undefined || process.env.TERM === 'dumb';
  return {
    cwd: process.cwd(),
    color: !noColor && Boolean(process.stdout.isTTY),
    out: pipeWriter(process.stdout, 'stdout'),
    err: pipeWriter(process.stderr, 'stderr'),
  };
}

/** The options every command takes, read from argv before commander parses it (they may follow any subcommand). */
const GLOBAL_SWITCHES = ['--no-color', '--json'];

/**
 * Runs the CLI and returns the exit code (also set on process.exitCode when run from the shim).
 * With --json, stdout gets one JSON document (schemas/output.schema.json) when the command ends,
 * whatever its outcome; what it prints for people goes to stderr, without colour.
 */
export async function run(argv: readonly string[], ctx: CliContext = defaultContext(argv)): Promise<number> {
  const args = argv.slice(2);
  const json = args.includes('--json');
  const stdout = ctx.out;
  const report = json ? new CommandReport() : undefined;
  if (report) {
    // Text for people goes to stderr; a `warning: ...` line (a warning without a KF code) is also
    // kept for the document's `warnings`.
    const err = ctx.err;
    const tee = (text: string) => {
      for (const m of text.matchAll(/^warning: (.*)$/gm)) report.addWarning(m[1]);
      err(text);
    };
    ctx = { ...ctx, color: false, out: tee, err: tee, report };
  }
  const program = buildProgram(ctx);
  if (report) report.command = commandPath(program, args);
  let code = 0;
  try {
    // --no-color and --json are read from argv here; dropping them lets them follow any subcommand.
    const rest = args.filter((a) => !GLOBAL_SWITCHES.includes(a));
    // No command: the help on stdout and exit 0, as Kubebuilder (cobra) does; commander would
    // print it on stderr and exit 1.
    await program.parseAsync([...argv.slice(0, 2), ...(rest.length === 0 ? ['--help'] : rest)]);
  } catch (e) {
    code = reportError(e, ctx);
  }
  if (report) stdout(`${JSON.stringify(report.document(packageVersion(), code), null, 2)}\n`);
  // A failed write to a file or device is reported as an 'error' event on the next tick.
  await new Promise((r) => setImmediate(r));
  const lost = streamFailure;
  if (lost) {
    streamFailure = undefined;
    if (lost.stream === 'stdout')
      ctx.err(
        formatDiagnostics(
          [
            error(
              'KF1105',
              `standard output could not be written (${lost.error.message}): what the command printed there is lost; its work on disk is as it left it`,
              { hint: systemErrorHint(lost.error as SystemError) },
            ),
          ],
          {
            color: ctx.color,
            cwd: ctx.cwd,
          },
        ),
      );
    code ||= 1;
  }
  if (argv === process.argv) process.exitCode = code;
  return code;
}

function reportError(e: unknown, ctx: CliContext): number {
  const { report } = ctx;
  if (e instanceof CommanderError) {
    // --help and --version end here with exit code 0; commander already printed its message.
    if (e.exitCode === 0) {
      // -v / --version: commander printed the version as its "help".
      if (report && e.code === 'commander.version') {
        report.details.help = undefined;
        report.details.version = { kubeforge: packageVersion(), node: process.version };
      }
      return 0;
    }
    // A usage mistake commander found (an unknown option, a missing value): its message is on stderr.
    report?.addDiagnostics([
      error('KF1007', e.message.replace(/^error: /, ''), {
        hint: `see kubeforge ${report.command ? `${report.command} ` : ''}--help`,
      }),
    ]);
    return 1;
  }
  if (report) {
    if (e instanceof DiagnosticError) report.addDiagnostics(e.diagnostics);
    else if (e instanceof UsageError)
      report.addDiagnostics([error('KF1007', e.message, { ...(e.hint !== undefined && { hint: e.hint }) })]);
    else if (isSystemError(e))
      report.addDiagnostics([
        error('KF1105', e.message, { ...(e.path && { file: e.path }), hint: systemErrorHint(e) }),
      ]);
    else report.addDiagnostics([error('KF9002', (e as Error)?.message ?? String(e))]);
  }
  if (e instanceof DiagnosticError) {
    // Stopped by a signal: the shell's convention, 128 + the signal's number.
    const signal = (e as { signal?: string }).signal;
    const code = signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1;
    ctx.err(
      formatDiagnostics(e.diagnostics, {
        color: ctx.color,
        cwd: ctx.cwd,
        readSource: (f) => {
          try {
            return readFileSync(f, 'utf8');
          } catch {
            return undefined;
          }
        },
      }),
    );
    return code;
  }
  if (e instanceof UsageError) {
    ctx.err(`error: ${e.message}\n${e.hint ? `hint: ${e.hint}\n` : ''}`);
    return 1;
  }
  if (isSystemError(e)) {
    // A file-system failure no command foresaw (a full disk, a file where a folder should be):
    // still a code, the path and what to do; the stack only with KUBEFORGE_DEBUG.
    ctx.err(
      formatDiagnostics([error('KF1105', e.message, { ...(e.path && { file: e.path }), hint: systemErrorHint(e) })], {
        color: ctx.color,
        cwd: ctx.cwd,
      }),
    );
    if (process.env.KUBEFORGE_DEBUG) ctx.err(`${e.stack}\n`);
    return 1;
  }
  const err = e as Error;
  ctx.err(`error: ${err?.message ?? String(e)}\n${process.env.KUBEFORGE_DEBUG ? `${err?.stack}\n` : ''}`);
  return 1;
}

export { packageVersion };
