/**
 * `npm run demo`, as the README tells a user to run it: it regenerates the CronJob sample, installs
 * it against this kubeforge, starts a test API server, runs the operator with its clock compressed
 * and prints a live log. The log must show the operator at work (Jobs created with a controller
 * reference, the CronJob's status, events, history trimmed), and nothing it started may outlive it:
 * no kube-apiserver or etcd, no temporary folder. A step that cannot run ends with one line.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MINUTES, repo, sh } from './helpers.js';

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

describe('e2e: npm run demo', { timeout: 6 * MINUTES }, () => {
  it('shows the operator creating Jobs, updating the status and trimming history, then leaves nothing behind', {
    timeout: 5 * MINUTES,
  }, () => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (npm test sets it)',
    );
    const r = sh('npm', ['run', 'demo', '--', '--speed', '60', '--duration', '20'], repo);
    const out = r.stdout;
    assert.equal(r.status, 0, `npm run demo failed (exit ${r.status ?? r.signal}):\n${out}\n${r.stderr}`);

    const created = [
      ...out.matchAll(
        /^\[[^\]]+\] job +(\S+) created by the operator, scheduled for \d\d:\d\d:\d\d \(controller: CronJob\/cronjob-sample\)$/gm,
      ),
    ].map((m) => m[1]);
    assert.ok(created.length >= 1, `the log shows a Job created by the operator:\n${out}`);
    assert.match(
      out,
      new RegExp(
        `^\\[[^\\]]+\\] status +active=\\[[^\\]]*${created[0]}[^\\]]*\\] lastScheduleTime=\\d\\d:\\d\\d:\\d\\d$`,
        'm',
      ),
      'the log shows the status naming the Job as active, with lastScheduleTime',
    );
    assert.match(
      out,
      new RegExp(`^\\[[^\\]]+\\] event +Normal SuccessfulCreate: Created job ${created[0]}$`, 'm'),
      'the log shows the SuccessfulCreate event',
    );
    assert.match(
      out,
      /^\[[^\]]+\] job +\S+ deleted by the operator$/m,
      'the log shows a finished Job deleted beyond successfulJobsHistoryLimit',
    );
    assert.match(
      out,
      /^\[[^\]]+\] webhook +refused: .*spec\.schedule/m,
      'the validating webhook refused the bad schedule',
    );
    assert.match(out, /^demo: done$/m);

    const temp = /^demo: working in (\S+) \(removed at the end\)$/m.exec(out)?.[1];
    assert.ok(temp, 'the demo names its temporary folder');
    assert.equal(existsSync(temp), false, `the temporary folder ${temp} is removed`);
    const plane = /\(kube-apiserver pid (\d+), etcd pid (\d+); data in (\S+)\)$/m.exec(out);
    assert.ok(plane, 'the demo names the pids of the API server it started');
    assert.equal(alive(Number(plane[1])), false, 'kube-apiserver is stopped');
    assert.equal(alive(Number(plane[2])), false, 'etcd is stopped');
    assert.equal(existsSync(plane[3]), false, "the API server's data folder is removed");
  });

  it('a step that cannot run ends with one clear line and exit 1, and removes its temporary folder', () => {
    const r = sh(process.execPath, ['scripts/demo.mjs'], repo, { KUBEBUILDER_ASSETS: '/nonexistent/envtest' });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.equal(
      r.stderr,
      'demo: KUBEBUILDER_ASSETS=/nonexistent/envtest holds no etcd and kube-apiserver; point it at a folder that does: `npx kubeforge setup-envtest` or `npm run setup-envtest` prints one\n',
    );
    const temp = /^demo: working in (\S+) /m.exec(r.stdout)?.[1];
    assert.ok(temp);
    assert.equal(existsSync(temp), false, `the temporary folder ${temp} is removed`);
  });
});
