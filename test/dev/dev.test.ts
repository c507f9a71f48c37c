/**
 * `kubeforge dev` pieces on a project made by the CLI (init --skip-install, create api, create
 * webhook; node_modules linked to this repository's): bad input refused with its KF14xx code and
 * the disk as it was; one session per project (a second one refused with KF1409, the first one's
 * files untouched); and the remote mode against a real kube-apiserver (a TestEnvironment standing in for a cluster):
 * the CRD, ClusterRole and webhook configurations applied server-side and pointed at the local
 * server, config/samples applied (--apply-samples), then removed on stop, except an object that
 * existed before the session.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { DevSession, recordedManifestsFlags } from '../../src/dev/session.js';
import { linkDependencies, scaffoldFrigateProject } from './project.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { isNotFound } from '../../src/runtime/client/errors.js';
import { TestEnvironment } from '../../src/testing/environment.js';
import { must } from '../helpers/must.js';

const work = mkdtempSync(join(tmpdir(), 'kf-dev-test-'));
const project = join(work, 'fleet');

async function cli(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else out.push(`${r} ${readFileSync(join(d, e.name)).length}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

describe('kubeforge dev', { timeout: 15 * 60_000 }, () => {
  before(() => scaffoldFrigateProject(project));

  after(() => rmSync(work, { recursive: true, force: true }));

  it('refuses a folder that is not a project (KF1400), a project without its dependencies (KF1401) and a bad --webhook-port (KF1407), writing nothing', async () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    let r = await cli(['dev'], empty);
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1400 +.*is not a kubeforge project/);
    assert.match(r.err, /hint: /);
    assert.deepEqual(readdirSync(empty), []);

    const before = listing(project);
    r = await cli(['dev'], project);
    assert.equal(r.code, 1);
    assert.match(r.err, /package\.json +KF1401 +.*dependencies are not installed/);
    assert.match(r.err, /hint: run npm install/);
    assert.deepEqual(listing(project), before, 'the project is as it was');

    r = await cli(['dev', '--webhook-port', '70000'], project);
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1407 +invalid --webhook-port "70000"/);
    assert.deepEqual(listing(project), before);
  });

  it('reads the manifests flags package.json records', () => {
    const dir = join(work, 'flags');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        scripts: {
          manifests: 'kubeforge manifests --max-desc-len 0 --k8s-version 1.35 --generate-embedded-object-meta',
        },
      }),
    );
    assert.deepEqual(recordedManifestsFlags(dir), { maxDescLen: 0, k8sVersion: '1.35', embeddedObjectMeta: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { manifests: 'kubeforge manifests' } }));
    assert.deepEqual(recordedManifestsFlags(dir), {
      maxDescLen: undefined,
      k8sVersion: undefined,
      embeddedObjectMeta: undefined,
    });
  });

  describe('with the dependencies linked', () => {
    before(() => linkDependencies(project));

    it('on a cluster (--kubeconfig): applies the CRD, ClusterRole and webhooks pointed here, runs the manager, and removes what it created on stop', async () => {
      const env = new TestEnvironment({ joinSharedControlPlane: false });
      const kc = await env.start();
      const rest = new RestClient(kc);
      let session: DevSession | undefined;
      try {
        // An object the session finds there: applied over, never removed.
        await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: 'manager-role' },
            rules: [],
          },
        });
        let log = '';
        session = new DevSession({
          projectDir: project,
          kubeconfig: env.kubeconfigPath,
          applySamples: true,
          out: (t) => (log += t),
          err: (t) => (log += t),
        });
        await session.start();
        assert.match(log, /cluster +https:\/\/127\.0\.0\.1:\d+ \(context /);
        assert.match(log, /1 CRD\(s\), 1 ClusterRole\(s\), 2 webhook configuration\(s\)/);
        const pid = must(session.managerPid, 'session.managerPid');
        assert.ok(pid > 0);
        // A second session in the same project is refused before it touches anything; on its way
        // out it must not remove the first one's kubeconfig (it did before the lock).
        const kubeconfig = join(project, '.kubeforge/dev/kubeconfig');
        const kubeconfigText = readFileSync(kubeconfig, 'utf8');
        let second = '';
        await assert.rejects(
          new DevSession({
            projectDir: project,
            kubeconfig: env.kubeconfigPath,
            out: (t) => (second += t),
            err: (t) => (second += t),
          }).start(),
          (e: unknown) =>
            /KF1409/.test(String((e as { diagnostics?: { code: string }[] }).diagnostics?.map((d) => d.code))) &&
            /another kubeforge dev \(pid \d+/.test((e as Error).message),
        );
        assert.equal(readFileSync(kubeconfig, 'utf8'), kubeconfigText, "the first session's kubeconfig is untouched");
        assert.equal(session.managerPid, pid, 'the first session runs on');
        const crd = await rest.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/frigates.ship.example.com');
        assert.ok(
          crd.metadata.managedFields.some(
            (f: { manager: string; operation: string }) => f.manager === 'kubeforge-dev' && f.operation === 'Apply',
          ),
          'server-side applied by kubeforge-dev',
        );
        const mwc = await rest.get(
          '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mutating-webhook-configuration',
        );
        assert.match(
          mwc.webhooks[0].clientConfig.url,
          /^https:\/\/127\.0\.0\.1:\d+\/mutate-ship-example-com-v1-frigate$/,
        );
        const role = await rest.get('/apis/rbac.authorization.k8s.io/v1/clusterroles/manager-role');
        assert.ok(
          role.rules.some((r: { resources: string[] }) => r.resources.includes('frigates')),
          'the role is applied over the one that was there',
        );
        // --apply-samples: config/samples applied once the manager (its webhooks) runs.
        assert.match(log, /samples +applied Frigate default\/frigate-sample/);
        const sample = await rest.get('/apis/ship.example.com/v1/namespaces/default/frigates/frigate-sample');
        assert.equal(sample.spec.foo, 'bar');
        // The manager's log line arrives through its stdout: wait for it.
        for (
          const deadline = Date.now() + 20_000;
          !/validation for Frigate upon creation .*name=frigate-sample/.test(log);
        ) {
          assert.ok(Date.now() < deadline, `the validating webhook saw the sample:\n${log}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        // The live log's reconciles (from the manager's reconcile counter): the sample is reconciled.
        for (const deadline = Date.now() + 20_000; !/reconcile +frigate: \d+ done/.test(log); ) {
          assert.ok(Date.now() < deadline, `a reconcile line:\n${log}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        // The webhooks answer: the defaulter and validator run in the manager.
        const created = await rest.request('POST', '/apis/ship.example.com/v1/namespaces/default/frigates', {
          body: { apiVersion: 'ship.example.com/v1', kind: 'Frigate', metadata: { name: 'one' }, spec: { foo: 'x' } },
        });
        assert.equal(created.metadata.name, 'one');
        await rest.request('DELETE', '/apis/ship.example.com/v1/namespaces/default/frigates/one');

        await session.stop();
        assert.throws(() => process.kill(pid, 0), 'the manager is gone');
        // Webhooks first (no call to a server that is gone), the CRD last; the ClusterRole that was there stays.
        assert.match(
          log,
          /removed from the cluster: MutatingWebhookConfiguration mutating-webhook-configuration, ValidatingWebhookConfiguration validating-webhook-configuration, Frigate frigate-sample, CustomResourceDefinition frigates\.ship\.example\.com\n/,
        );
        for (const path of [
          '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mutating-webhook-configuration',
          '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration',
        ]) {
          await assert.rejects(rest.get(path), (e: unknown) => isNotFound(e), `${path} is removed`);
        }
        // A CRD deletion finishes asynchronously (its objects are removed first).
        const deadline = Date.now() + 30_000;
        for (;;) {
          try {
            await rest.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/frigates.ship.example.com');
          } catch (e) {
            if (isNotFound(e)) break;
            throw e;
          }
          assert.ok(Date.now() < deadline, 'the CRD is removed');
          await new Promise((r) => setTimeout(r, 100));
        }
        await rest.get('/apis/rbac.authorization.k8s.io/v1/clusterroles/manager-role');
        assert.equal(existsSync(join(project, '.kubeforge/dev/kubeconfig')), false);
      } finally {
        await session?.stop();
        rest.close();
        await env.stop();
      }
    });

    it('--type-check strict: a type error keeps the running manager (KF1405, which build and since when); async runs it and warns (KF1410)', async () => {
      const env = new TestEnvironment({ joinSharedControlPlane: false });
      await env.start();
      const file = join(project, 'src/controller/frigate_controller.ts');
      const pristine = readFileSync(file, 'utf8');
      const waitLog = async (get: () => string, re: RegExp, what: string) => {
        for (const deadline = Date.now() + 60_000; !re.test(get()); ) {
          assert.ok(Date.now() < deadline, `${what}:\n${get()}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        return must(get().match(re), 'get().match(re)');
      };
      try {
        for (const mode of ['strict', 'async'] as const) {
          let log = '';
          const session = new DevSession({
            projectDir: project,
            kubeconfig: env.kubeconfigPath,
            typeCheck: mode,
            debounceMs: 50,
            out: (t) => (log += t),
            err: (t) => (log += t),
          });
          try {
            await session.start();
            assert.match(log, new RegExp(`manager running \\(pid \\d+, build 1\\).*type-check ${mode}`));
            const pid = session.managerPid;
            const from = log.length;
            writeFileSync(
              file,
              pristine.replace(
                '    return {};\n  }\n',
                "    const n: number = 'x';\n    void n;\n    return {};\n  }\n",
              ),
            );
            if (mode === 'strict') {
              await waitLog(
                () => log.slice(from),
                /build 2 does not type-check \(--type-check strict\): the running manager \(pid (\d+)\) is the previous build, build 1, running since \d\d:\d\d:\d\d/,
                'strict keeps build 1',
              );
              assert.match(log.slice(from), /KF1405 +the project does not compile/);
              assert.match(log.slice(from), /src\/controller\/frigate_controller\.ts\(\d+,\d+\): error TS2322/);
              assert.doesNotMatch(log.slice(from), /ready +manager pid/);
              assert.equal(session.managerPid, pid, 'the manager of build 1 runs on');
            } else {
              await waitLog(() => log.slice(from), /ready +manager pid \d+ runs build 2 /, 'async runs build 2');
              await waitLog(
                () => log.slice(from),
                /typecheck +build 2: type errors \(above\); the manager runs it anyway/,
                'and reports its type errors',
              );
              assert.match(log.slice(from), /KF1410 +type errors in build 2/);
              assert.notEqual(session.managerPid, pid);
            }
          } finally {
            writeFileSync(file, pristine);
            await session.stop();
          }
        }
      } finally {
        await env.stop();
      }
    });

    it('on a cluster with --keep: leaves what it installed, and says so', async () => {
      const env = new TestEnvironment({ joinSharedControlPlane: false });
      const kc = await env.start();
      const rest = new RestClient(kc);
      try {
        let log = '';
        const session = new DevSession({
          projectDir: project,
          kubeconfig: env.kubeconfigPath,
          keep: true,
          out: (t) => (log += t),
          err: (t) => (log += t),
        });
        await session.start();
        await session.stop();
        assert.match(
          log,
          /--keep: left on the cluster: MutatingWebhookConfiguration mutating-webhook-configuration, ValidatingWebhookConfiguration validating-webhook-configuration, ClusterRole manager-role, CustomResourceDefinition frigates\.ship\.example\.com\n/,
        );
        const crd = await rest.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/frigates.ship.example.com');
        assert.ok(crd.metadata.managedFields.some((f: { manager: string }) => f.manager === 'kubeforge-dev'));
        await rest.get(
          '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration',
        );
      } finally {
        rest.close();
        await env.stop();
      }
    });

    it('refuses an unknown --context (KF1402) before starting anything', async () => {
      const dir = join(work, 'kc');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'config');
      writeFileSync(
        file,
        'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\ncontexts: [{name: one, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: t}}]\ncurrent-context: one\n',
      );
      const r = await cli(['dev', '--kubeconfig', file, '--context', 'two'], project);
      assert.equal(r.code, 1);
      assert.match(r.err, /KF1402 +kubeconfig .* has no context "two" \(it has: one\)/);
      const unreachable = await cli(['dev', '--kubeconfig', file], project);
      assert.equal(unreachable.code, 1);
      assert.match(unreachable.err, /KF1403 +the cluster of .* cannot be reached/);
    });
  });
});
