/** The error of TestEnvironment and its control plane: a setup problem, with how to fix it. */

/** Thrown by TestEnvironment for setup problems; `hint` says how to fix them. */
export class TestEnvironmentError extends Error {
  readonly hint?: string;
  constructor(message: string, hint?: string) {
    super(hint ? `${message}\n  hint: ${hint}` : message);
    this.name = 'TestEnvironmentError';
    this.hint = hint;
  }
}
