/**
 * The write fence: a check a RestClient runs synchronously before sending any request other
 * than a GET. The Manager fences its client with its leadership: once leadership is lost (another
 * holder, or no renewal within the renew deadline by its own monotonic clock), a reconcile that was
 * already running (a frozen process resumed after another replica took over) cannot write any
 * more: its writes reject with LeadershipLostError instead of being sent. Requests already sent
 * before that cannot be recalled.
 */

/** Runs before a write is sent; throws to refuse it. `what` is `<METHOD> <path>`. */
export type WriteFence = (what: string) => void;

/**
 * What the Manager's client rejects writes with once leadership was lost. Not worth retrying:
 * the Manager is stopping, and the new leader reconciles the object again.
 */
export class LeadershipLostError extends Error {
  constructor(what: string, reason?: string) {
    super(`kubeforge/runtime: not sending ${what}: this replica lost leadership${reason ? ` (${reason})` : ''}`);
    this.name = 'LeadershipLostError';
  }
}
