/**
 * Commander wiring. The only module that sets exit codes. Command modules register their
 * flags here cheaply and import their implementation lazily inside the action, so that
 * `kubeforge --help` never loads ts-morph, handlebars, execa or client-node.
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { DiagnosticError, formatDiagnostics } from '../diagnostics/index.js';
import { packageVersion } from '../util/package-root.js';
import { type CliContext, UsageError } from './context.js';
import { registerAlpha } from './commands/alpha.js';
import { registerCompletion } from './commands/completion.js';
import { registerCreate } from './commands/create.js';
import { registerEdit } from './commands/edit.js';
import { registerInit } from './commands/init.js';
import { registerManifests } from './commands/manifests.js';
import { registerSetupEnvtest } from './commands/setup-envtest.js';
import { registerVersion } from './commands/version.js';

export type { CliContext } from './context.js';

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('kubeforge')
    .description('Kubebuilder for TypeScript: scaffold, generate manifests for, and run Kubernetes operators')
    .option('--no-color', 'disable coloured output')
    .showSuggestionAfterError(true)
    // Options after a subcommand belong to it: `create api --version v1` is the API version.
    .enablePositionalOptions()
    .configureOutput({ writeOut: ctx.out, writeErr: ctx.err })
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
  $ kubeforge completion bash >> ~/.bashrc`,
  );
  registerInit(program, ctx);
  registerCreate(program, ctx);
  registerEdit(program, ctx);
  registerAlpha(program, ctx);
  registerManifests(program, ctx);
  registerSetupEnvtest(program, ctx);
  registerVersion(program, ctx);
  registerCompletion(program, ctx);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput({ writeOut: ctx.out, writeErr: ctx.err });
  return program;
}

/**
 * A writer that goes quiet once its reader is gone: `kubeforge --help | head -1` closes the pipe
 * early, and the write then fails with EPIPE (asynchronously, as an 'error' event that would
 * otherwise end the process with a stack trace). The command carries on (it still releases its
 * lock and finishes its commit) and exits with its own code; later output is dropped.
 */
function pipeWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') {
      closed = true;
      return;
    }
    throw e;
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

function defaultContext(argv: readonly string[]): CliContext {
  const noColor = argv.includes('--no-color') || process.env.NO_COLOR !== undefined || process.env.TERM === 'dumb';
  return {
    cwd: process.cwd(),
    color: !noColor && Boolean(process.stdout.isTTY),
    out: pipeWriter(process.stdout),
    err: pipeWriter(process.stderr),
  };
}

/** Runs the CLI and returns the exit code (also set on process.exitCode when run from the shim). */
export async function run(argv: readonly string[], ctx: CliContext = defaultContext(argv)): Promise<number> {
  const program = buildProgram(ctx);
  let code = 0;
  try {
    // --no-color is read from argv by the context; dropping it here lets it follow any subcommand.
    await program.parseAsync([...argv.slice(0, 2), ...argv.slice(2).filter((a) => a !== '--no-color')]);
  } catch (e) {
    code = reportError(e, ctx);
  }
  if (argv === process.argv) process.exitCode = code;
  return code;
}

function reportError(e: unknown, ctx: CliContext): number {
  if (e instanceof CommanderError) {
    // --help and --version end here with exit code 0; commander already printed its message.
    return e.exitCode === 0 ? 0 : 1;
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
  const err = e as Error;
  ctx.err(`error: ${err?.message ?? String(e)}\n${process.env.KUBEFORGE_DEBUG ? `${err?.stack}\n` : ''}`);
  return 1;
}

export { packageVersion };
