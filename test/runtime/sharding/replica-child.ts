// One replica of a sharded operator, run as a child process by replicas.test.ts and by
// bench/scale.ts (so that they can SIGKILL, SIGSTOP and SIGTERM it). Not a test file.
//
// The operator: for() ConfigMaps labelled kubeforge.test/sharded=yes, owns() Secrets. Each
// reconcile waits KF_WORK_MS (default 5) on a simulated external call, then (unless KF_WRITE=0)
// applies the Secret `<name>-owned`, owned by the ConfigMap, with `data.by` = this replica's id: a
// write on every reconcile, so the fence of a replica that lost its membership is exercised.
// Every reconcile appends one audit line to KF_AUDIT (JSON: id, key, start and end wall-clock ms,
// `wrote`: ok | refused | error | none); stdout gets `member <lease name>`, `started` and, when
// start() rejects, `exit <message>`; on SIGUSR2, `mem <bytes>` (see below).
import { openSync, writeSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { newManager } from '../../../src/runtime/manager/index.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { LeadershipLostError } from '../../../src/runtime/client/fence.js';
import { createHash } from 'node:crypto';
import { must } from '../../helpers/must.js';

const say = (line: string) => writeSync(1, `${line}\n`);
const env = process.env;
const id = must(env.KF_ID, 'env.KF_ID');
const ring = env.KF_RING ?? 'test-ring';
const [leaseDurationMs, renewDeadlineMs, retryPeriodMs] = (env.KF_TIMINGS ?? '3000,2000,300').split(',').map(Number);
const workMs = Number(env.KF_WORK_MS ?? 5);
const write = env.KF_WRITE !== '0';
const kc = new KubeConfig();
kc.loadFromFile(must(env.KF_KUBECONFIG, 'env.KF_KUBECONFIG'));
const mgr = newManager(kc, {
  sharding: {
    ring,
    field: (env.KF_FIELD as 'uid' | 'namespace' | undefined) ?? 'uid',
    namespace: 'default',
    identity: id,
  },
  leaseDurationMs,
  renewDeadlineMs,
  retryPeriodMs,
  healthProbeBindAddress: env.KF_PROBE ?? '0',
  gracefulShutdownTimeoutMs: 10_000,
  logger: pino({ level: env.KF_LOG ?? 'silent' }, pino.destination({ dest: 2, sync: true })),
});
say(`member ${ring}-${createHash('sha256').update(id).digest('hex').slice(0, 10)}`);
const wall = () => performance.timeOrigin + performance.now();
const audit = openSync(must(env.KF_AUDIT, 'env.KF_AUDIT'), 'a');
const labelled = (o: { metadata?: { labels?: Record<string, string> } }) =>
  o.metadata?.labels?.['kubeforge.test/sharded'] === 'yes';
controllerManagedBy(mgr)
  .for(
    { apiVersion: 'v1', kind: 'ConfigMap' },
    {
      predicates: [
        { create: (e) => labelled(e.object), update: (e) => labelled(e.objectNew), delete: (e) => labelled(e.object) },
      ],
    },
  )
  .owns({ apiVersion: 'v1', kind: 'Secret' })
  .named('sharded')
  .withOptions({ maxConcurrentReconciles: Number(env.KF_CONCURRENCY ?? 4) })
  .complete(async (req, ctx) => {
    const start = wall();
    let wrote = 'none';
    try {
      await new Promise((r) => setTimeout(r, workMs));
      const cm = await mgr
        .getClient()
        .get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: req.namespace, name: req.name })
        .catch(() => undefined);
      if (cm && write) {
        try {
          await mgr.getClient().apply(
            {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: {
                name: `${req.name}-owned`,
                namespace: req.namespace,
                ownerReferences: [
                  {
                    apiVersion: 'v1',
                    kind: 'ConfigMap',
                    name: req.name,
                    uid: must(must(cm.metadata, 'cm.metadata').uid, 'cm.metadata.uid'),
                    controller: true,
                    blockOwnerDeletion: true,
                  },
                ],
              },
              stringData: undefined,
              data: { by: Buffer.from(id).toString('base64') },
            } as never,
            { fieldOwner: 'sharded-test', force: true, signal: ctx.signal },
          );
          wrote = 'ok';
        } catch (e) {
          wrote = e instanceof LeadershipLostError ? 'refused' : 'error';
        }
      }
    } finally {
      // One write(2) per line on a descriptor opened once: a SIGKILL loses no line already ended.
      writeSync(audit, `${JSON.stringify({ id, key: `${req.namespace}/${req.name}`, start, end: wall(), wrote })}\n`);
    }
  });
// Memory: the heap after a full GC (run with --expose-gc), less the same before start (the
// cache's objects and the controller's bookkeeping), on SIGUSR2: `mem <bytes>`.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const baseline = process.memoryUsage().heapUsed;
process.on('SIGUSR2', () => {
  gc?.();
  say(`mem ${process.memoryUsage().heapUsed - baseline}`);
});
const ac = new AbortController();
process.on('SIGTERM', () => ac.abort());
mgr
  .started()
  .then(() => say('started'))
  .catch(() => undefined);
mgr.start(ac.signal).then(
  () => {
    say('exit ok');
    process.exit(0);
  },
  (e: unknown) => {
    say(`exit ${(e as Error).message}`);
    process.exit(1);
  },
);
