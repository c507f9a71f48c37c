// A leader manager run as a child process by stall.test.ts, so that the test can freeze it with
// SIGSTOP. Not a test file. Writes one line per fact to stdout (synchronously, so that nothing is
// lost on exit): `elected`, `event <name>` (a watch event about to be queued), `start <name>
// <hrtime ns>` (a reconcile starting), `exit <hrtime ns> <error>` (start() rejected).
// The reconcile of `o1` waits until the file KF_GO_FILE exists, keeping the only worker busy so
// that later objects stay queued; then it tries to annotate o1 and says `write ok` or
// `write refused <error name>`.
import { existsSync, writeSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { newManager } from '../../../src/runtime/manager/index.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { mergePatch } from '../../../src/runtime/client/index.js';
import { must } from '../../helpers/must.js';

const say = (line: string) => writeSync(1, `${line}\n`);
const kc = new KubeConfig();
kc.loadFromFile(must(process.env.KF_KUBECONFIG, 'process.env.KF_KUBECONFIG'));
const mgr = newManager(kc, {
  leaderElection: true,
  leaderElectionID: must(process.env.KF_LEASE, 'process.env.KF_LEASE'),
  leaderElectionNamespace: 'default',
  leaderElectionIdentity: 'stalled',
  // Short timings for the test; KF_TIMINGS=15000,10000,2000 gives the defaults.
  ...(([leaseDuration, renewDeadline, retryPeriod]) => ({
    leaseDurationMs: leaseDuration,
    renewDeadlineMs: renewDeadline,
    retryPeriodMs: retryPeriod,
  }))((process.env.KF_TIMINGS ?? '3000,2000,500').split(',').map(Number)),
  logger: pino({ level: 'silent' }),
});
const ours = (o: { metadata?: { labels?: Record<string, string>; name?: string } }) => {
  if (o.metadata?.labels?.stall !== 'yes') return false;
  say(`event ${o.metadata.name}`);
  return true;
};
// Settles when o1's reconcile has tried its write: the exit below waits for it (at most 3 s), so
// the test sees the fence refuse that write however the timers of the resumed process are ordered
// (a real main.ts exits at once, and the write is then never made at all).
let o1Tried!: () => void;
const o1Done = new Promise<void>((r) => (o1Tried = r));
controllerManagedBy(mgr)
  .for(
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { predicates: [{ create: (e) => ours(e.object), update: (e) => ours(e.objectNew) }] },
  )
  .named('stall')
  .complete(async (req) => {
    say(`start ${req.name} ${process.hrtime.bigint()}`);
    if (req.name !== 'o1') return;
    while (!existsSync(must(process.env.KF_GO_FILE, 'process.env.KF_GO_FILE')))
      await new Promise((r) => setTimeout(r, 20));
    try {
      await mgr
        .getClient()
        .patch(
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'o1', namespace: 'default' } },
          mergePatch({ metadata: { annotations: { 'written-by': 'stalled' } } }),
        );
      say('write ok');
    } catch (e) {
      say(`write refused ${(e as Error).name}`);
    } finally {
      o1Tried();
    }
  });
void mgr.elected().then(() => say('elected'));
mgr.start(new AbortController().signal).then(
  () => {
    say(`exit ${process.hrtime.bigint()} stopped without error`);
    process.exit(0);
  },
  async (err: Error) => {
    say(`exit ${process.hrtime.bigint()} ${err.message}`);
    await Promise.race([o1Done, new Promise((r) => setTimeout(r, 3_000))]);
    process.exit(1);
  },
);
