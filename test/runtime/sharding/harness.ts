// What replicas.test.ts and bench/scale.ts share: a replica child process (replica-child.ts) with
// its stdout as lines, the ring's Leases as an outside observer reads them, and the audit files
// the replicas append to. Not a test file.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RestClient } from '../../../src/runtime/client/rest.js';
import { HELD_ANNOTATION, RING_LABEL } from '../../../src/runtime/manager/membership.js';
import { type HashRange, parseRangesText } from '../../../src/runtime/sharding/index.js';
import { must } from '../../helpers/must.js';

/** The replica program (compiled next to this file). */
export const REPLICA_CHILD = fileURLToPath(new URL('./replica-child.js', import.meta.url));

/** A replica process: its stdout lines as they come, and its exit code. */
export interface ReplicaProcess {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

/** Starts replica-child.ts with `env` (KF_* variables) added to this process's environment. */
export function spawnReplica(env: Record<string, string>, nodeArgs: string[] = []): ReplicaProcess {
  const child = spawn(process.execPath, [...nodeArgs, REPLICA_CHILD], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let buf = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    buf += c;
    const parts = buf.split('\n');
    buf = must(parts.pop(), 'parts.pop()');
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, lines, exited };
}

/** A member Lease of a ring, as an observer outside the replicas reads it. */
export interface RingLease {
  name: string;
  holder: string;
  /** renewTime, wall-clock ms. */
  renewMs: number;
  held: HashRange[];
}

/** The held Leases of `ring` in namespace default (a released one, with no holder, is left out). */
export async function ringLeases(rest: RestClient, ring: string): Promise<RingLease[]> {
  const list = await rest.request<{
    items: {
      metadata: { name: string; annotations?: Record<string, string> };
      spec: { holderIdentity?: string; renewTime?: string };
    }[];
  }>('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
    query: { labelSelector: `${RING_LABEL}=${ring}` },
  });
  return list.items
    .filter((l) => l.spec.holderIdentity)
    .map((l) => ({
      name: l.metadata.name,
      holder: must(l.spec.holderIdentity, 'l.spec.holderIdentity'),
      renewMs: Date.parse(l.spec.renewTime ?? '') || 0,
      held: parseRangesText(l.metadata.annotations?.[HELD_ANNOTATION] ?? ''),
    }));
}

/** One line of a replica's audit: a reconcile, by whom, from when to when (wall-clock ms). */
export interface AuditLine {
  id: string;
  key: string;
  start: number;
  end: number;
  wrote: 'ok' | 'refused' | 'error' | 'none';
}

/**
 * The audit lines of the given files (missing files: none), read incrementally: each call reads
 * only the bytes appended since the last, so polling a run of 20,000 reconciles costs what is new
 * (bench:scale polls while the replicas work, and must not take their CPU). Read while the replicas
 * write: a last line without its newline is still being written, and is left for the next read.
 */
export class AuditReader {
  private readonly offsets = new Map<string, number>();
  private readonly lines: AuditLine[] = [];
  private readonly keys = new Set<string>();

  /** Every line so far, in the order read. */
  read(files: string[]): AuditLine[] {
    for (const f of files) {
      if (!existsSync(f)) continue;
      const from = this.offsets.get(f) ?? 0;
      const size = statSync(f).size;
      if (size <= from) continue;
      const buf = Buffer.alloc(size - from);
      const fd = openSync(f, 'r');
      try {
        readSync(fd, buf, 0, buf.length, from);
      } finally {
        closeSync(fd);
      }
      const end = buf.lastIndexOf(0x0a);
      if (end < 0) continue;
      this.offsets.set(f, from + end + 1);
      for (const l of buf.subarray(0, end).toString('utf8').split('\n')) {
        if (!l) continue;
        const a = JSON.parse(l) as AuditLine;
        this.lines.push(a);
        this.keys.add(a.key);
      }
    }
    return this.lines;
  }

  /** The distinct objects reconciled so far. */
  reconciled(files: string[]): ReadonlySet<string> {
    this.read(files);
    return this.keys;
  }
}

/** The audit lines of the given files, read whole (see AuditReader). */
export function readAudit(files: string[]): AuditLine[] {
  return new AuditReader().read(files);
}
