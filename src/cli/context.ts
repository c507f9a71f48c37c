/** What every command needs from the process, injected so tests can capture output. */
export interface CliContext {
  cwd: string;
  /** Colour on: stdout is a TTY, --no-color absent, NO_COLOR unset. */
  color: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** A usage mistake (bad flag value, missing argument): printed without a stack, exit 1. */
export class UsageError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message);
    this.name = 'UsageError';
  }
}
