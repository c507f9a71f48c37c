/**
 * `kubeforge dev --fake` on a project made by the CLI (init, create api, create webhook with
 * defaulting and validation; node_modules linked to this repository's), with no etcd or
 * kube-apiserver (a fast-lane file: KUBEBUILDER_ASSETS is not set): the CRD, ClusterRole and
 * webhook configurations are applied to the fake API server over HTTP, the CRD is served, the
 * manager's webhooks are called on a create (a defaulting webhook's patch lands, a validating
 * webhook's refusal comes back as the API server words it), the object is reconciled, and a save
 * restarts the manager on the new code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { DevSession } from '../../src/dev/session.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { linkDependencies, scaffoldFrigateProject } from './project.js';
import { must } from '../helpers/must.js';

const work = mkdtempSync(join(tmpdir(), 'kf-dev-fake-'));
const project = join(work, 'fleet');
const FRIGATES = '/apis/ship.example.com/v1/namespaces/default/frigates';

async function waitFor<T>(
  what: string,
  f: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      assert.fail(`${what}: not within ${timeoutMs} ms${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('kubeforge dev --fake', { timeout: 5 * 60_000 }, () => {
  before(async () => {
    await scaffoldFrigateProject(project);
    linkDependencies(project);
    // The validator refuses an empty spec.foo (what `create webhook` leaves as a TODO).
    const hook = join(project, 'src/webhook/v1/frigate_webhook.ts');
    const text = readFileSync(hook, 'utf8');
    const edited = text
      .replace(
        /import \{ ([^}]*)\} from 'kubeforge\/runtime';/,
        "import { $1, FieldErrors, field } from 'kubeforge/runtime';",
      )
      .replace(
        "ctx.logger.info({ name: obj.metadata?.name }, 'validation for Frigate upon creation');",
        "ctx.logger.info({ name: obj.metadata?.name }, 'validation for Frigate upon creation');\n    if (!obj.spec?.foo) throw new FieldErrors([field.required('spec.foo', 'a frigate needs a foo')]);",
      );
    assert.notEqual(edited, text);
    writeFileSync(hook, edited);
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  it('serves the CRD applied over the API, calls the webhooks, reconciles, and restarts on a save', async () => {
    // No control-plane binaries: the fast lane runs without KUBEBUILDER_ASSETS; a direct run too.
    delete process.env.KUBEBUILDER_ASSETS;
    let log = '';
    const session = new DevSession({
      projectDir: project,
      fake: true,
      debounceMs: 50,
      out: (t) => (log += t),
      err: (t) => (log += t),
    });
    let rest: RestClient | undefined;
    try {
      await session.start();
      assert.match(
        log,
        /cluster +http:\/\/127\.0\.0\.1:\d+: kubeforge\/testing's fake API server in this process \(--fake\)/,
      );
      assert.match(log, /1 CRD\(s\), 1 ClusterRole\(s\), 2 webhook configuration\(s\)/);
      const kc = new KubeConfig();
      kc.loadFromFile(must(session.kubeconfigPath, 'session.kubeconfigPath'));
      rest = new RestClient(kc);
      const api = rest;
      const crd = await api.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/frigates.ship.example.com');
      assert.ok(
        (crd.status.conditions as { type: string; status: string }[]).some(
          (c) => c.type === 'Established' && c.status === 'True',
        ),
        'the CRD is established',
      );
      // The validating webhook refuses, in the API server's words.
      await assert.rejects(
        api.request('POST', FRIGATES, {
          body: { apiVersion: 'ship.example.com/v1', kind: 'Frigate', metadata: { name: 'bare' }, spec: {} },
        }),
        (e: unknown) =>
          e instanceof StatusError &&
          /admission webhook "vfrigate-v1\.kb\.io" denied the request: .*a frigate needs a foo/.test(e.message),
      );
      const made = await api.request('POST', FRIGATES, {
        body: { apiVersion: 'ship.example.com/v1', kind: 'Frigate', metadata: { name: 'one' }, spec: { foo: 'a' } },
      });
      assert.equal(made.metadata.name, 'one');
      await waitFor('the validating webhook ran in the manager', () =>
        /validation for Frigate upon creation .*name=one/.test(log),
      );
      await waitFor('the defaulting webhook ran in the manager', () => /defaulting for Frigate .*name=one/.test(log));
      await waitFor('the reconcile set Available', async () => {
        const f = await api.get(`${FRIGATES}/one`);
        return (f.status?.conditions as { type: string; status: string }[] | undefined)?.some(
          (c) => c.type === 'Available' && c.status === 'True',
        );
      });
      // A save: the new code reconciles.
      const ctl = join(project, 'src/controller/frigate_controller.ts');
      const pristine = readFileSync(ctl, 'utf8');
      const from = log.length;
      writeFileSync(
        ctl,
        pristine.replace(
          "'generation %d reconciled', generation",
          "'generation %d reconciled on the fake', generation",
        ),
      );
      await waitFor('build 2 runs', () => /ready +manager pid \d+ runs build 2 /.test(log.slice(from)));
      await api.request('POST', FRIGATES, {
        body: { apiVersion: 'ship.example.com/v1', kind: 'Frigate', metadata: { name: 'two' }, spec: { foo: 'b' } },
      });
      await waitFor('the new code reconciled two', async () => {
        const list = await api.get('/apis/events.k8s.io/v1/namespaces/default/events');
        return (list.items as { note?: string; regarding?: { name?: string } }[]).some(
          (e) => e.regarding?.name === 'two' && e.note === 'generation 1 reconciled on the fake',
        );
      });
    } catch (e) {
      if (e instanceof Error) e.message += `\n--- kubeforge dev ---\n${log}`;
      throw e;
    } finally {
      rest?.close();
      await session.stop();
    }
    assert.match(log, /fake API server stopped/);
  });
});
