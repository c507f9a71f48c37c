/**
 * Leader election on a coordination.k8s.io/v1 Lease, following client-go's leaderelection
 * package: expiry of someone else's lease is judged by the local time at which we last saw the
 * lease record change (no trust in other machines' clocks), the leader renews every retry period
 * and gives up when it cannot renew within the renew deadline, and on cancel it releases the lease
 * so that another candidate takes over at once.
 *
 * Where we go further than client-go (whose renew loop lets a leader that was frozen past its
 * lease go on working for up to the renew deadline beside the new leader):
 * - Leadership is a synchronous gate, {@link LeaderElector.isLeading}: true only while the last
 *   successful renewal was *sent* less than the renew deadline ago by this process's monotonic
 *   clock. Work queues ask it right before handing out each item, so a process resumed after a
 *   stall (SIGSTOP, a long GC pause, a frozen VM) starts nothing before any timer has run. Other
 *   candidates cannot take the lease before `leaseDuration` has passed since they saw that
 *   renewal, which is later than we sent it: the gate closes `leaseDuration - renewDeadline`
 *   (5 s by default) before anyone else may lead.
 * - A renewal that finds another holder ends leadership at once (client-go retries until the
 *   renew deadline).
 * - Answers the API server will repeat forever (an invalid Lease, a missing namespace) end the
 *   campaign with a {@link LeaderElectionError} instead of being retried every retry period.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import type { RestClient } from '../client/rest.js';
import { StatusError, isNotFound } from '../client/errors.js';
import { microTime } from '../client/dates.js';
import { checkOptions, type OptionNames } from '../options.js';
import { activeTracer, recordMoment, safely } from '../tracing.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { isDNS1123Label, isDNS1123Subdomain } from '../../util/apimachinery/validation.js';

/** A monotonic millisecond clock (performance.now by default; tests inject a fake one). */
export interface MonotonicClock {
  now(): number;
}

const monotonic: MonotonicClock = { now: () => performance.now() };

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
  /** Clock of the renew deadline (default: performance.now, monotonic). */
  clock?: MonotonicClock;
  /**
   * Labels this candidate sets on the Lease when it creates or takes it (controller-runtime's
   * LeaderElectionLabels): merged over the Lease's own labels, which stay.
   */
  labels?: Record<string, string>;
}

const LEADER_ELECTOR_OPTION_NAMES: OptionNames<LeaderElectorOptions> = {
  rest: true,
  namespace: true,
  name: true,
  identity: true,
  leaseDurationMs: true,
  renewDeadlineMs: true,
  retryPeriodMs: true,
  logger: true,
  gauge: true,
  clock: true,
  labels: true,
};

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/**
 * A leader election failure that retrying cannot cure: an invalid lease name or namespace, or an
 * API answer such as 422 Invalid or "namespace not found". The Manager stops with it.
 */
export class LeaderElectionError extends Error {
  /** `cause`: the API server's answer (a StatusError, e.g. `isNotFound(err.cause)`), when there was one. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LeaderElectionError';
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, Math.max(0, ms));
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
 * Checks a Lease name and namespace as the API server will (name: a DNS-1123 subdomain of at most
 * 253 characters; namespace: a DNS-1123 label of at most 63). Throws a LeaderElectionError
 * naming the option, the value and the rule; returns nothing when both are valid.
 */
export function validateLeaseName(name: string, namespace: string): void {
  if (isDNS1123Subdomain(name).length) {
    throw new LeaderElectionError(
      `leaderElectionID ${JSON.stringify(name)} is not a valid Lease name: it must be a lowercase RFC 1123 subdomain of at most 253 characters ` +
        `(lowercase letters, digits, '-' and '.', starting and ending with a letter or digit), e.g. '3f1c2a9b.example.com'`,
    );
  }
  if (isDNS1123Label(namespace).length) {
    throw new LeaderElectionError(
      `leaderElectionNamespace ${JSON.stringify(namespace)} is not a valid namespace: it must be a lowercase RFC 1123 label of at most 63 characters ` +
        `(lowercase letters, digits and '-', starting and ending with a letter or digit)`,
    );
  }
}

/** Outcome of one acquire/renew attempt. */
type Attempt = { ok: true } | { ok: false; holder?: string };

/**
 * Campaigns for a Lease and keeps it. On error: transient API failures are retried every retry
 * period; a non-retryable answer rejects `acquire()` (and ends `hold()` as 'lost') with a
 * LeaderElectionError; failing to renew within the renew deadline, or seeing another holder,
 * ends leadership (the 'lost' outcome; `onLost` listeners run synchronously at that moment).
 * On shutdown: aborting the signal ends the campaign; call `release()` after the leader's work
 * stopped to hand the lease over immediately.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly o: Required<Omit<LeaderElectorOptions, 'gauge' | 'identity' | 'labels'>> & {
    gauge?: Gauge<string>;
    labels?: Record<string, string>;
  };
  private observed?: LeaseSpec;
  private observedRaw = '';
  /** Monotonic time at which observedRaw last changed. */
  private observedTime = 0;
  private resourceVersion?: string;
  /** The labels of the Lease last read (kept on update). */
  private leaseLabels?: Record<string, string>;
  private leading = false;
  /** Monotonic time at which the last successful acquire/renew attempt was sent. */
  private renewedAt = -Infinity;
  private lostReason?: string;
  private fatal?: LeaderElectionError;
  private readonly lostListeners: ((reason: string) => void)[] = [];
  private readonly lostAC = new AbortController();

  constructor(options: LeaderElectorOptions) {
    checkOptions('LeaderElector', options, LEADER_ELECTOR_OPTION_NAMES, {
      leaseDuration: 'leaseDurationMs',
      renewDeadline: 'renewDeadlineMs',
      retryPeriod: 'retryPeriodMs',
    });
    this.identity = options.identity ?? defaultIdentity();
    // Explicit undefined (an unset Manager option) means the default.
    this.o = {
      ...options,
      leaseDurationMs: options.leaseDurationMs ?? 15_000,
      renewDeadlineMs: options.renewDeadlineMs ?? 10_000,
      retryPeriodMs: options.retryPeriodMs ?? 2_000,
      clock: options.clock ?? monotonic,
    };
    for (const k of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const) {
      if (!Number.isFinite(this.o[k]) || this.o[k] <= 0)
        throw new Error(`leader election: ${k} must be a positive number of milliseconds (got ${this.o[k]})`);
    }
    if (this.o.leaseDurationMs <= this.o.renewDeadlineMs)
      throw new Error('leader election: leaseDurationMs must be greater than renewDeadlineMs');
    if (this.o.renewDeadlineMs <= this.o.retryPeriodMs * 1.2)
      throw new Error('leader election: renewDeadlineMs must be greater than retryPeriodMs*1.2');
    validateLeaseName(this.o.name, this.o.namespace);
    this.o.gauge?.set({ name: this.o.name }, 0);
  }

  private get lease(): string {
    return `${this.o.namespace}/${this.o.name}`;
  }

  /**
   * The gate of leader-only work, answered synchronously: true while this candidate holds the
   * lease and its last successful renewal was sent less than the renew deadline ago (monotonic
   * clock). The first call that finds the deadline passed ends leadership (onLost listeners run
   * before it returns). Once false after leading, it stays false.
   */
  isLeading(): boolean {
    if (this.leading && this.o.clock.now() - this.renewedAt >= this.o.renewDeadlineMs) {
      this.loseLeadership(
        `no successful renewal for ${Math.round(this.o.clock.now() - this.renewedAt)} ms (renew deadline ${this.o.renewDeadlineMs} ms, by this process's monotonic clock)`,
      );
    }
    return this.leading;
  }

  /**
   * True once leadership was lost (not released): checks the renew deadline first, like
   * isLeading(). False while campaigning, leading, or after release().
   */
  hasLost(): boolean {
    this.isLeading();
    return this.lostReason !== undefined;
  }

  /** Why leadership ended, once it did. */
  lostBecause(): string | undefined {
    return this.lostReason;
  }

  /** Registers a listener called once, synchronously, when leadership ends other than by release(). */
  onLost(listener: (reason: string) => void): void {
    this.lostListeners.push(listener);
  }

  private loseLeadership(reason: string): void {
    if (!this.leading) return;
    this.setLeading(false);
    this.lostReason = reason;
    this.o.logger.error({ lease: this.lease, identity: this.identity, reason }, 'leader election lost');
    recordMoment('leader election', 'lost', {
      'kubeforge.lease': this.lease,
      'kubeforge.identity': this.identity,
      'kubeforge.reason': reason,
    });
    this.lostAC.abort();
    for (const f of this.lostListeners) {
      try {
        f(reason);
      } catch (e) {
        this.o.logger.error({ err: e }, 'leader election lost listener threw');
      }
    }
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.o.namespace)}/leases`;
  }

  /**
   * Waits until this candidate holds the lease. Resolves true once leading, false if `signal`
   * aborted first. Transient API errors are logged and retried; a non-retryable answer rejects
   * with a LeaderElectionError.
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    // Traced: a span from the first attempt to the lease (or the end of trying), the outcome as an
    // event. Not active: a standby's lease reads every retry period would be its children.
    const tracer = activeTracer();
    const attributes = { 'kubeforge.lease': this.lease, 'kubeforge.identity': this.identity };
    const span = tracer && safely(() => tracer.startSpan('leader election', { root: true, attributes }));
    if (!span) return this.campaign(signal);
    try {
      const won = await this.campaign(signal);
      safely(() => span.addEvent(won ? 'acquired' : 'stopped', attributes));
      return won;
    } catch (e) {
      safely(() => {
        span.recordException(e as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
      });
      throw e;
    } finally {
      safely(() => span.end());
    }
  }

  private async campaign(signal: AbortSignal): Promise<boolean> {
    this.o.logger.info({ lease: this.lease, identity: this.identity }, 'attempting to acquire leader lease');
    while (!signal.aborted) {
      const sentAt = this.o.clock.now();
      const r = await this.tryAcquireOrRenew(signal, this.o.renewDeadlineMs);
      if (this.fatal) throw this.fatal;
      if (r.ok) {
        this.renewedAt = sentAt;
        this.setLeading(true);
        this.o.logger.info({ lease: this.lease, identity: this.identity }, 'successfully acquired lease');
        // Aborted meanwhile: still leading, so that release() hands the lease back.
        return !signal.aborted;
      }
      await sleep(this.o.retryPeriodMs * (1 + Math.random() * 0.2), signal);
    }
    return false;
  }

  /**
   * Renews the lease every retry period until `signal` aborts (resolves 'stopped') or leadership
   * ends (resolves 'lost'): a renewal finds another holder, the renew deadline passes without a
   * successful renewal (noticed by a timer, or earlier by any isLeading() call), or the API
   * answers with a non-retryable error.
   */
  async hold(signal: AbortSignal): Promise<'stopped' | 'lost'> {
    const stop = AbortSignal.any([signal, this.lostAC.signal]);
    let expiry: NodeJS.Timeout | undefined;
    // Fires when the deadline passes even while a renewal request hangs.
    const arm = () => {
      clearTimeout(expiry);
      expiry = setTimeout(
        () => this.isLeading(),
        Math.max(0, this.renewedAt + this.o.renewDeadlineMs - this.o.clock.now()) + 1,
      );
    };
    arm();
    try {
      while (!stop.aborted) {
        await sleep(this.o.retryPeriodMs, stop);
        if (stop.aborted || !this.isLeading()) break;
        const sentAt = this.o.clock.now();
        const left = this.renewedAt + this.o.renewDeadlineMs - sentAt;
        const r = await this.tryAcquireOrRenew(stop, left);
        if (r.ok) this.renewedAt = Math.max(this.renewedAt, sentAt);
        if (signal.aborted || !this.isLeading()) break;
        if (r.ok) {
          arm();
        } else if (this.fatal) {
          this.loseLeadership(this.fatal.message);
        } else if (r.holder !== undefined) {
          this.loseLeadership(
            r.holder ? `the lease is held by ${r.holder}` : 'the lease was released or deleted by someone else',
          );
        }
      }
    } finally {
      clearTimeout(expiry);
    }
    return this.lostReason !== undefined ? 'lost' : 'stopped';
  }

  /**
   * Gives the lease up if held (empty holder, 1 s duration) so another candidate acquires it on
   * its next attempt. Errors are logged, not thrown: the lease then simply expires.
   */
  async release(): Promise<void> {
    if (!this.isLeading()) return;
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
      this.o.logger.info({ lease: this.lease, identity: this.identity }, 'released leader lease');
      recordMoment('leader election', 'released', {
        'kubeforge.lease': this.lease,
        'kubeforge.identity': this.identity,
      });
    } catch (e) {
      this.o.logger.warn({ err: e, lease: this.lease }, 'failed to release leader lease; it will expire');
    }
  }

  private setLeading(v: boolean): void {
    this.leading = v;
    this.o.gauge?.set({ name: this.o.name }, v ? 1 : 0);
  }

  private leaseBody(spec: LeaseSpec): unknown {
    // As client-go's LeaseLock: the candidate's labels over those the Lease has (a PUT replaces them all).
    const labels =
      this.o.labels || this.leaseLabels ? { ...(this.leaseLabels ?? {}), ...(this.o.labels ?? {}) } : undefined;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.o.name,
        namespace: this.o.namespace,
        resourceVersion: this.resourceVersion,
        ...(labels ? { labels } : {}),
      },
      spec,
    };
  }

  /**
   * Records a failed request: answers that will not change on retry become `this.fatal`; the rest
   * are logged (RBAC denials loudly, since they need an operator's fix but may be fixed live).
   */
  private failed(e: unknown, what: string, signal: AbortSignal): void {
    if (signal.aborted) return;
    if (e instanceof StatusError) {
      const permanent = [400, 405, 406, 413, 415, 422].includes(e.code) || (what === 'create' && e.code === 404);
      if (permanent) {
        const hint = e.code === 404 ? ` (does namespace "${this.o.namespace}" exist? set leaderElectionNamespace)` : '';
        this.fatal ??= new LeaderElectionError(
          `leader election: cannot ${what} Lease ${this.lease}: the API server answered ${e.code} ${e.reason}: ${e.message}${hint}`,
          { cause: e },
        );
        return;
      }
      if (e.code === 409) return;
      if (e.code === 401 || e.code === 403) {
        this.o.logger.error(
          { err: e.message, lease: this.lease },
          `cannot ${what} the leader lease: check the manager's credentials and RBAC (get, create, update on leases in coordination.k8s.io); retrying`,
        );
        return;
      }
    }
    this.o.logger.warn(
      { err: (e as Error).message, lease: this.lease },
      `error trying to ${what} the leader lease; retrying`,
    );
  }

  /** One attempt. `{ ok: false, holder }` when someone else holds (or released) the lease. */
  private async tryAcquireOrRenew(signal: AbortSignal, timeoutMs: number): Promise<Attempt> {
    const now = new Date();
    const desired: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    const timeout = Math.max(1, Math.min(timeoutMs, this.o.renewDeadlineMs));
    let lease: { metadata: { resourceVersion: string; labels?: Record<string, string> }; spec?: LeaseSpec };
    try {
      lease = await this.o.rest.get(`${this.path}/${encodeURIComponent(this.o.name)}`, { signal, timeoutMs: timeout });
    } catch (e) {
      if (!isNotFound(e)) {
        this.failed(e, 'get', signal);
        return { ok: false };
      }
      if (this.leading) return { ok: false, holder: '' };
      try {
        this.resourceVersion = undefined;
        this.leaseLabels = undefined;
        const created = await this.o.rest.request('POST', this.path, {
          body: this.leaseBody(desired),
          signal,
          timeoutMs: timeout,
        });
        this.remember(created.spec, created.metadata.resourceVersion);
        return { ok: true };
      } catch (e2) {
        this.failed(e2, 'create', signal);
        return { ok: false };
      }
    }
    const record = lease.spec ?? {};
    const raw = JSON.stringify([
      record.holderIdentity,
      record.renewTime,
      record.acquireTime,
      record.leaseDurationSeconds,
      record.leaseTransitions,
    ]);
    if (raw !== this.observedRaw) {
      this.observed = record;
      this.observedRaw = raw;
      this.observedTime = this.o.clock.now();
    }
    this.resourceVersion = lease.metadata.resourceVersion;
    this.leaseLabels = lease.metadata.labels;
    const held = !!record.holderIdentity;
    const mine = record.holderIdentity === this.identity;
    // While leading, any other holder (or an emptied lease) means someone else led meanwhile.
    if (this.leading && !mine) return { ok: false, holder: record.holderIdentity ?? '' };
    const validUntil = this.observedTime + (record.leaseDurationSeconds ?? 0) * 1000;
    if (held && !mine && validUntil > this.o.clock.now()) return { ok: false };
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
      return { ok: true };
    } catch (e) {
      this.failed(e, 'update', signal);
      return { ok: false };
    }
  }

  private remember(spec: LeaseSpec, rv: string): void {
    this.observed = spec;
    this.observedRaw = JSON.stringify([
      spec.holderIdentity,
      spec.renewTime,
      spec.acquireTime,
      spec.leaseDurationSeconds,
      spec.leaseTransitions,
    ]);
    this.observedTime = this.o.clock.now();
    this.resourceVersion = rv;
  }
}
