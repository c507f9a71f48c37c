import type { CommandIo } from '../machinery/runner.js';

/**
 * What every command needs from the process, injected so tests can capture output: the one IO
 * context of the command runner (src/machinery/runner.ts), with colour decided (stdout is a TTY,
 * --no-color absent, NO_COLOR unset).
 */
export interface CliContext extends CommandIo {
  color: boolean;
}

const USAGE_ERROR = Symbol.for('kubeforge.UsageError');

/** A usage mistake (bad flag value, missing argument): printed without a stack, exit 1. */
export class UsageError extends Error {
  /** Holds for a UsageError of another copy of this module too, as DiagnosticError's does. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asks about, a subclass included
    if (this !== UsageError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && USAGE_ERROR in value;
  }
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
Object.defineProperty(UsageError.prototype, USAGE_ERROR, { value: true });
