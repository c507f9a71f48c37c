import type { CommandIo } from '../machinery/runner.js';

/**
 * What every command needs from the process, injected so tests can capture output: the one IO
 * context of the command runner (src/machinery/runner.ts), with colour decided (stdout is a TTY,
 * --no-color absent, NO_COLOR unset).
 */
export interface CliContext extends CommandIo {
  color: boolean;
}

/** A usage mistake (bad flag value, missing argument): printed without a stack, exit 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
