/**
 * Leader election on a coordination.k8s.io/v1 Lease, following client-go's leaderelection
 * package: expiry is judged by the local time at which we last saw the lease record change (no
 * trust in other machines' clocks), the leader renews every retry period and gives up when it
 * cannot renew within the renew deadline, and on cancel it releases the lease so that another
 * candidate takes over at once.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import { RestClient, RestError, microTime } from '../util/rest.js';

/** Options of {@link LeaderElector}. */
export interface LeaderElectorOptions {
  rest: RestClient;
  namespace: string;
  /** Lease name (the manager's leaderElectionID). */
  name: string;
  /** This candidate's identity (default `<hostname>_<uuid>`). */
  identity?: string;
  /** How long a lease is valid without renewal, ms (default 15 000). */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying to renew before giving up, ms (default 10 000). */
  renewDeadlineMs?: number;
  /** Wait between attempts, ms (default 2 000). */
  retryPeriodMs?: number;
  logger: Logger;
  /** `leader_election_master_status` gauge; set to 1 while leading. */
  gauge?: Gauge<string>;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Default identity: hostname plus a random suffix, unique per process. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/**
 * Campaigns for a Lease and keeps it. On error: API failures while acquiring are retried every
 * retry period; failing to renew within the renew deadline ends leadership (the `lost` outcome).
 * On shutdown: aborting the signal ends the campaign; call `release()` after the leader's work
 * stopped to hand the lease over immediately.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly o: Required<Omit<LeaderElectorOptions, 'gauge' | 'identity'>> & { gauge?: Gauge<string> };
  private observed?: LeaseSpec;
  private observedRaw = '';
  private observedTime = 0;
  private resourceVersion?: string;
  private leading = false;

  constructor(options: LeaderElectorOptions) {
    this.identity = options.identity ?? defaultIdentity();
    // Explicit undefined (an unset Manager option) means the default.
    this.o = {
      ...options,
      leaseDurationMs: options.leaseDurationMs ?? 15_000,
      renewDeadlineMs: options.renewDeadlineMs ?? 10_000,
      retryPeriodMs: options.retryPeriodMs ?? 2_000,
    };
    for (const k of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const) {
      if (!Number.isFinite(this.o[k]) || this.o[k] <= 0) throw new Error(`leader election: ${k.replace(/Ms$/, '')} must be a positive number of milliseconds (got ${this.o[k]})`);
    }
    if (this.o.leaseDurationMs <= this.o.renewDeadlineMs) throw new Error('leader election: leaseDuration must be greater than renewDeadline');
    if (this.o.renewDeadlineMs <= this.o.retryPeriodMs * 1.2) throw new Error('leader election: renewDeadline must be greater than retryPeriod*1.2');
    this.o.gauge?.set({ name: this.o.name }, 0);
  }

  /** Whether this candidate currently holds the lease. */
  isLeader(): boolean {
    return this.leading;
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.o.namespace)}/leases`;
  }

  /**
   * Waits until this candidate holds the lease. Resolves true once leading, false if `signal`
   * aborted first. Never rejects: API errors are logged and retried.
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    this.o.logger.info({ lease: `${this.o.namespace}/${this.o.name}`, identity: this.identity }, 'attempting to acquire leader lease');
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal)) {
        this.setLeading(true);
        this.o.logger.info({ lease: `${this.o.namespace}/${this.o.name}`, identity: this.identity }, 'successfully acquired lease');
        return true;
      }
      await sleep(this.o.retryPeriodMs * (1 + Math.random() * 0.2), signal);
    }
    return false;
  }

  /**
   * Renews the lease until `signal` aborts (resolves 'stopped') or a renewal does not succeed
   * within the renew deadline (resolves 'lost'; leadership is gone and the caller must stop the
   * leader's work).
   */
  async hold(signal: AbortSignal): Promise<'stopped' | 'lost'> {
    while (!signal.aborted) {
      const deadline = Date.now() + this.o.renewDeadlineMs;
      let renewed = false;
      while (!signal.aborted && Date.now() < deadline) {
        if (await this.tryAcquireOrRenew(signal, deadline - Date.now())) {
          renewed = true;
          break;
        }
        await sleep(Math.min(this.o.retryPeriodMs, Math.max(0, deadline - Date.now())), signal);
      }
      if (signal.aborted) break;
      if (!renewed) {
        this.setLeading(false);
        this.o.logger.error({ lease: `${this.o.namespace}/${this.o.name}`, identity: this.identity }, 'failed to renew lease: leader election lost');
        return 'lost';
      }
      await sleep(this.o.retryPeriodMs, signal);
    }
    return 'stopped';
  }

  /**
   * Gives the lease up if held (empty holder, 1 s duration) so another candidate acquires it on
   * its next attempt. Errors are logged, not thrown: the lease then simply expires.
   */
  async release(): Promise<void> {
    if (!this.leading) return;
    this.setLeading(false);
    const now = microTime();
    const spec: LeaseSpec = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.observed?.leaseTransitions ?? 0,
    };
    try {
      await this.o.rest.request('PUT', `${this.path}/${encodeURIComponent(this.o.name)}`, {
        body: this.leaseBody(spec),
        timeoutMs: this.o.renewDeadlineMs,
      });
      this.o.logger.info({ lease: `${this.o.namespace}/${this.o.name}`, identity: this.identity }, 'released leader lease');
    } catch (e) {
      this.o.logger.warn({ err: e, lease: `${this.o.namespace}/${this.o.name}` }, 'failed to release leader lease; it will expire');
    }
  }

  private setLeading(v: boolean): void {
    this.leading = v;
    this.o.gauge?.set({ name: this.o.name }, v ? 1 : 0);
  }

  private leaseBody(spec: LeaseSpec): unknown {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.o.name, namespace: this.o.namespace, resourceVersion: this.resourceVersion },
      spec,
    };
  }

  /** One attempt; true when we hold the lease afterwards. */
  private async tryAcquireOrRenew(signal: AbortSignal, timeoutMs = this.o.renewDeadlineMs): Promise<boolean> {
    const now = new Date();
    const desired: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    const timeout = Math.max(1, Math.min(timeoutMs, this.o.renewDeadlineMs));
    let lease: { metadata: { resourceVersion: string }; spec?: LeaseSpec };
    try {
      lease = await this.o.rest.get(`${this.path}/${encodeURIComponent(this.o.name)}`, { signal, timeoutMs: timeout });
    } catch (e) {
      if (!(e instanceof RestError && e.status === 404)) {
        if (!signal.aborted) this.o.logger.warn({ err: (e as Error).message }, 'error retrieving lease');
        return false;
      }
      try {
        this.resourceVersion = undefined;
        const created = await this.o.rest.request('POST', this.path, { body: this.leaseBody(desired), signal, timeoutMs: timeout });
        this.remember(created.spec, created.metadata.resourceVersion);
        return true;
      } catch (e2) {
        if (!signal.aborted && !(e2 instanceof RestError && e2.status === 409)) this.o.logger.warn({ err: (e2 as Error).message }, 'error creating lease');
        return false;
      }
    }
    const record = lease.spec ?? {};
    const raw = JSON.stringify([record.holderIdentity, record.renewTime, record.acquireTime, record.leaseDurationSeconds, record.leaseTransitions]);
    if (raw !== this.observedRaw) {
      this.observed = record;
      this.observedRaw = raw;
      this.observedTime = Date.now();
    }
    this.resourceVersion = lease.metadata.resourceVersion;
    const held = !!record.holderIdentity;
    const mine = record.holderIdentity === this.identity;
    const validUntil = this.observedTime + (record.leaseDurationSeconds ?? 0) * 1000;
    if (held && !mine && validUntil > Date.now()) {
      if (this.leading) this.setLeading(false);
      return false;
    }
    if (mine) {
      desired.acquireTime = record.acquireTime ?? desired.acquireTime;
      desired.leaseTransitions = record.leaseTransitions ?? 0;
    } else {
      desired.leaseTransitions = (record.leaseTransitions ?? 0) + 1;
    }
    try {
      const updated = await this.o.rest.request('PUT', `${this.path}/${encodeURIComponent(this.o.name)}`, {
        body: this.leaseBody(desired),
        signal,
        timeoutMs: timeout,
      });
      this.remember(updated.spec, updated.metadata.resourceVersion);
      return true;
    } catch (e) {
      if (!signal.aborted && !(e instanceof RestError && e.status === 409)) this.o.logger.warn({ err: (e as Error).message }, 'error updating lease');
      return false;
    }
  }

  private remember(spec: LeaseSpec, rv: string): void {
    this.observed = spec;
    this.observedRaw = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.acquireTime, spec.leaseDurationSeconds, spec.leaseTransitions]);
    this.observedTime = Date.now();
    this.resourceVersion = rv;
  }
}
