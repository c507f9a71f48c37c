/**
 * The write fence of leader-only work. A leader-only controller runs each reconcile inside
 * `leaderWork.run(leadership, ...)`; the client's RestClient asks that leadership, synchronously,
 * before sending any request other than a GET. A reconcile that was already running when its
 * replica stopped leading (a frozen process resumed after another replica took over) therefore
 * cannot write any more: its writes reject with LeadershipLostError instead of being sent.
 * Requests already sent before leadership ended cannot be recalled.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Leadership } from '../contracts.js';

/** The leadership of the leader-only work running in the current async context, if any. */
export const leaderWork = new AsyncLocalStorage<Leadership>();

/**
 * What a write from leader-only work rejects with once its replica no longer leads. Not retried:
 * the controller is stopping, and the new leader reconciles the object again.
 */
export class LeadershipLostError extends Error {
  constructor(what: string) {
    super(`kubeforge/runtime: not sending ${what}: this replica no longer leads (the write comes from a reconcile started while it did)`);
    this.name = 'LeadershipLostError';
  }
}

/** Throws LeadershipLostError when called from leader-only work whose leadership ended. */
export function checkLeadership(what: string): void {
  const l = leaderWork.getStore();
  if (l && !l.isLeading()) throw new LeadershipLostError(what);
}
