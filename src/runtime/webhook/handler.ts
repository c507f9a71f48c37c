/**
 * The raw handler contract of the webhook server, apart so that the admission and conversion
 * handlers and the server can share it without importing each other.
 */
import type { Logger } from 'pino';

/** What a {@link WebhookHandler} gets besides the body. */
export interface WebhookHandlerContext {
  /** Aborted when the request times out, the client goes away, or the server shuts down. */
  signal: AbortSignal;
  /** Child of the server's logger with `webhook` (the path). */
  logger: Logger;
  /**
   * Counts a crash of user code in `controller_runtime_webhook_panics_total` (the admission and
   * conversion handlers call it; absent when a handler is called outside a server).
   */
  recordPanic?: (value: unknown) => void;
}

/** A raw HTTP-level handler: gets the parsed JSON body, returns the JSON answer. */
export interface WebhookHandler {
  /**
   * Answers one request. Throw a {@link WebhookHttpError} to answer with its status and a
   * plain-text message (400 for a malformed review); any other throw answers 500 and is logged.
   */
  handle(body: unknown, ctx: WebhookHandlerContext): Promise<unknown>;
}

/** Thrown by a handler to answer with an HTTP status and a plain-text message instead of JSON. */
export class WebhookHttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookHttpError';
  }
}

/** A thrown value as text, whatever it is. */
export function describeThrown(v: unknown): string {
  if (v instanceof Error) return v.message;
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * True for a throw that is a bug rather than a decision: a value that is not an Error, or one of
 * the errors the JavaScript engine raises (TypeError, ReferenceError, RangeError, SyntaxError,
 * EvalError, URIError). Those are answered as internal errors and counted as panics.
 */
export function isCrash(v: unknown): boolean {
  if (!(v instanceof Error)) return true;
  return (
    v instanceof TypeError ||
    v instanceof ReferenceError ||
    v instanceof RangeError ||
    v instanceof SyntaxError ||
    v instanceof EvalError ||
    v instanceof URIError
  );
}
