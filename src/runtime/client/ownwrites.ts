/**
 * Read-your-own-writes for the cache-backed client (the Manager's, with `readYourOwnWrites`).
 *
 * A reconcile that writes an object and reads it back from the cache a moment later usually sees
 * the version before its write: the informer has not received the watch event yet. It then acts
 * on stale data: an update that conflicts (409), a create that already happened, a finalizer added
 * twice. controller-runtime leaves this to the user; JOSDK keeps the answer of each write until
 * the informer catches up, and so does this module:
 *
 * - every write's answer (create, update, patch, apply, and their status forms) is kept, by object;
 * - a cached `get` of that object returns a copy of the kept answer while the cache holds an older
 *   resourceVersion (or none yet, after a create); once the cache has that version or a newer one,
 *   the entry is dropped and the cache answers as always. An entry is never dropped while the
 *   cache is behind it: a watch that goes silent without closing leaves the cache behind for as
 *   long as it lasts, and an expired entry made reconciles act on the stale cache. Instead, once an
 *   entry is older than {@link PENDING_TTL_MS} (the watch event should have come by then), the next
 *   read goes to the API server ({@link READ_FROM_SERVER}) and its answer stands in for the cache
 *   for another PENDING_TTL_MS (a NotFound drops the entry: the object is gone);
 * - `delete` drops the object's entry; `list` is not overlaid.
 *
 * resourceVersions are compared as numbers: the API server documents them as opaque, but etcd's
 * are revision numbers and every current server sends them so (as JOSDK assumes). A version that
 * is not a number is never overlaid.
 *
 * The last version this client wrote of each object is also remembered (bounded), so that a
 * predicate can tell the watch event of its own write from someone else's (`isOwnWrite`).
 */
import type { KubernetesObject } from '@kubernetes/client-node';

/** How long a write's answer (or a server read's) stands in for a cache still behind it before the server is asked again. */
export const PENDING_TTL_MS = 10_000;

/**
 * What {@link OwnWrites.newer} returns when the kept answer is older than PENDING_TTL_MS and the
 * cache is still behind it: read the object from the API server, then hand the answer to
 * {@link OwnWrites.refreshed}.
 */
export const READ_FROM_SERVER: unique symbol = Symbol('kubeforge.readFromServer');
/** How many objects' last own version are remembered for isOwnWrite. */
const REMEMBERED = 10_000;

interface Pending {
  rv: bigint;
  at: number;
  /** The write's answer (JSON), copied for each read. */
  json: string;
}

function revision(obj: KubernetesObject | undefined): bigint | undefined {
  const rv = obj?.metadata?.resourceVersion;
  return rv && /^\d+$/.test(rv) ? BigInt(rv) : undefined;
}

/** The identity of an object: `apiVersion/kind/namespace/name`. */
export function objectKey(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${apiVersion}/${kind}/${namespace ?? ''}/${name}`;
}

export class OwnWrites {
  private readonly pending = new Map<string, Pending>();
  private readonly last = new Map<string, string>();
  /** Writes sent and not answered yet, by object, with those waiting for them to end. */
  private readonly inFlight = new Map<string, { count: number; done: Promise<void>; resolve: () => void }>();
  private overlaid = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** A write of `key` is being sent (its watch event may arrive before its answer). */
  begin(key: string): void {
    const f = this.inFlight.get(key);
    if (f) f.count++;
    else {
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      this.inFlight.set(key, { count: 1, done, resolve });
    }
  }

  /** The write of `key` was answered (after `record`) or failed. */
  end(key: string): void {
    const f = this.inFlight.get(key);
    if (!f || --f.count > 0) return;
    this.inFlight.delete(key);
    f.resolve();
  }

  /** Resolves when no write of `key` is in flight any more; undefined when none is now. */
  settled(key: string): Promise<void> | undefined {
    return this.inFlight.get(key)?.done;
  }

  /** Records the answer of a write (`answer`'s own apiVersion/kind/name address it). */
  record(key: string, answer: KubernetesObject): void {
    const rv = revision(answer);
    const text = answer.metadata?.resourceVersion;
    if (rv === undefined || text === undefined) return;
    this.pending.set(key, { rv, at: this.now(), json: JSON.stringify(answer) });
    this.last.delete(key);
    this.last.set(key, text);
    if (this.last.size > REMEMBERED) {
      const oldest = this.last.keys().next();
      if (!oldest.done) this.last.delete(oldest.value);
    }
  }

  /** The object was deleted by this client: nothing of it stands in for the cache any more. */
  forget(key: string): void {
    this.pending.delete(key);
  }

  /**
   * What a cached read of `key` should return: undefined to use `cached` as it is (no write
   * pending, or the cache caught up), {@link READ_FROM_SERVER} when the kept answer is older than
   * PENDING_TTL_MS and the cache still behind it, else a fresh copy of the written answer (JSON,
   * to be revived by the caller). `cached` is undefined when the cache does not have the object.
   */
  newer(key: string, cached: KubernetesObject | undefined): unknown {
    const p = this.pending.get(key);
    if (!p) return undefined;
    const have = revision(cached);
    if (have !== undefined && have >= p.rv) {
      this.pending.delete(key);
      return undefined;
    }
    if (this.now() - p.at > PENDING_TTL_MS) return READ_FROM_SERVER;
    this.overlaid++;
    return JSON.parse(p.json);
  }

  /**
   * The API server's answer to a read made on {@link READ_FROM_SERVER}: it stands in for the
   * cache, while the cache is behind it, for another PENDING_TTL_MS; undefined (NotFound) drops
   * the entry. Not a write of this client: isOwn is unchanged.
   */
  refreshed(key: string, live: KubernetesObject | undefined): void {
    const rv = revision(live);
    const p = this.pending.get(key);
    if (rv === undefined || !p) {
      this.pending.delete(key);
      return;
    }
    if (rv >= p.rv) this.pending.set(key, { rv, at: this.now(), json: JSON.stringify(live) });
    else p.at = this.now();
  }

  /** Whether a write of `key` is waiting for the cache. */
  has(key: string): boolean {
    return this.pending.has(key);
  }

  /** Whether `resourceVersion` of `key` is the last one this client wrote. */
  isOwn(key: string, resourceVersion: string | undefined): boolean {
    return resourceVersion !== undefined && this.last.get(key) === resourceVersion;
  }

  /** Reads answered from a write instead of the (older) cache, since start. */
  get overlaidReads(): number {
    return this.overlaid;
  }
}
