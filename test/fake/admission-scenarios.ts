/**
 * Differential scenarios (./differential.test.ts) of what `kubeforge dev --fake` needs: admission
 * webhooks and CRDs written through the API. Each admission scenario starts its own webhook
 * server (./hooks.ts), which the fake and the real kube-apiserver both call, and installs
 * configurations that select the scenario's namespace only; what the webhooks were sent is
 * recorded beside the answers. The real server loads a configuration asynchronously, so every
 * configuration carries a probe webhook and the scenario waits until each probe was called.
 */
import type { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import type { Run, Scenario } from './scenarios.js';
import {
  allow,
  configPath,
  configuration,
  deny,
  rule,
  startHookServer,
  webhook,
  type Answer,
  type HookServer,
  type Review,
} from './hooks.js';
import type { Served } from './served.js';

/** A condition in a served status. */
type Condition = { type: string; status: string; reason?: string; message?: string };

const V1 = 'fake.kubeforge.io/v1';
const W = (ns: string, name?: string, sub?: string, v = 'v1') =>
  `/apis/fake.kubeforge.io/${v}/namespaces/${ns}/widgets${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
const widget = (name: string, spec: Record<string, unknown> = { size: 3 }, labels?: Record<string, string>) => ({
  apiVersion: V1,
  kind: 'Widget',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MERGE = { contentType: 'application/merge-patch+json' };
const APPLY = { contentType: 'application/apply-patch+yaml', query: { fieldManager: 'kubeforge-dev', force: 'true' } };

type Kind = 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
type Hook = Record<string, unknown>;

/** What a review says, without what differs by nature (uids, times, revisions, managedFields). */
function digest(path: string, r: Review): Record<string, unknown> {
  const generated = (o: Served) =>
    o?.metadata?.generateName && String(o.metadata.name ?? '').startsWith(o.metadata.generateName)
      ? `${o.metadata.generateName}<suffix>`
      : o?.metadata?.name;
  const obj = (o: Served) =>
    o && {
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: {
        name: generated(o),
        generateName: o.metadata?.generateName,
        namespace: o.metadata?.namespace,
        labels: o.metadata?.labels,
        finalizers: o.metadata?.finalizers,
      },
      spec: o.spec,
      status: o.status,
    };
  return JSON.parse(
    JSON.stringify({
      path,
      operation: r.operation,
      kind: r.kind,
      resource: r.resource,
      subResource: r.subResource,
      requestKind: r.requestKind,
      requestResource: r.requestResource,
      requestSubResource: r.requestSubResource,
      name: r.name && generated(r.object) !== r.object?.metadata?.name ? generated(r.object) : r.name,
      namespace: r.namespace,
      dryRun: r.dryRun,
      object: obj(r.object),
      oldObject: obj(r.oldObject),
      options: r.options,
    }),
  );
}

/**
 * Runs `body` with a webhook server answering `paths` and the configurations `configs` builds
 * (each webhook scoped to the scenario's namespace), installed and loaded; records the reviews.
 */
async function withHooks(
  s: Run,
  paths: Record<string, (r: Review) => Answer>,
  configs: Record<Kind, (h: HookServer) => Hook[]> | Partial<Record<Kind, (h: HookServer) => Hook[]>>,
  body: (h: HookServer) => Promise<void>,
): Promise<void> {
  const hooks = await startHookServer(paths);
  const names: [Kind, string][] = [];
  const scoped = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': s.ns } } };
  try {
    for (const [kind, make] of Object.entries(configs) as [Kind, (h: HookServer) => Hook[]][]) {
      const name = `${s.ns}-${kind === 'MutatingWebhookConfiguration' ? 'm' : 'v'}`;
      const probe = webhook(
        hooks,
        `probe.${name}.kubeforge.io`,
        `/probe/${name}`,
        [rule(['configmaps'], ['CREATE'], [''])],
        {
          ...scoped,
          objectSelector: { matchLabels: { 'kubeforge.io/probe': 'true' } },
        },
      );
      const list = make(hooks).map((h) => ({ ...scoped, ...h }));
      await s.rest.request('POST', configPath(kind), { body: configuration(kind, name, [probe, ...list]) });
      names.push([kind, name]);
    }
    await probe(
      s.rest,
      s.ns,
      hooks,
      names.map(([, n]) => `/probe/${n}`),
    );
    await body(hooks);
    s.note(
      'what the webhooks were sent',
      hooks.reviews.filter((r) => !r.path.startsWith('/probe')).map((r) => digest(r.path, r.request)),
    );
  } finally {
    for (const [kind, name] of names) await s.rest.request('DELETE', configPath(kind, name)).catch(() => undefined);
    await hooks.close();
  }
}

/** Creates labelled ConfigMaps (dry runs) until every probe path was called: the configurations are loaded. */
async function probe(rest: RestClient, ns: string, hooks: HookServer, paths: string[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { generateName: 'probe-', labels: { 'kubeforge.io/probe': 'true' } },
  };
  for (;;) {
    await rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm, query: { dryRun: 'All' } });
    if (paths.every((p) => hooks.reviews.some((r) => r.path === p))) return;
    if (Date.now() > deadline) throw new Error(`webhook configurations not loaded within 20 s: ${paths.join(', ')}`);
    await sleep(100);
  }
}

/** Records the warnings of what `f` sends. */
async function warningsOf(s: Run, label: string, f: () => Promise<unknown>): Promise<void> {
  const got: string[] = [];
  s.rest.setWarningHandler((w) => got.push(w));
  try {
    await f();
  } finally {
    s.rest.setWarningHandler(undefined);
  }
  s.note(label, got);
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A CRD of Gizmos in the scenario's own group (CRDs are cluster-wide; the namespace names the group). */
function gizmoCRD(group: string, o: { max?: number; v2?: boolean; color?: boolean } = {}) {
  const schema = () => ({
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer', maximum: o.max ?? 10 },
            ...(o.color ? { color: { type: 'string', enum: ['red', 'blue'] } } : {}),
          },
        },
      },
    },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gizmos.${group}` },
    spec: {
      group,
      names: { kind: 'Gizmo', plural: 'gizmos' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema() },
        ...(o.v2 ? [{ name: 'v2', served: true, storage: false, schema: schema() }] : []),
      ],
    },
  };
}

/** Polls until `f` holds (the real server establishes and serves asynchronously; the fake at once). */
async function until(f: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`not within 20 s: ${what}`);
    await sleep(50);
  }
}

async function status(rest: RestClient, path: string): Promise<number> {
  try {
    await rest.request('GET', path);
    return 200;
  } catch (e) {
    if (e instanceof StatusError) return e.code;
    throw e;
  }
}

/** A CRD's status without times: conditions as type, status, reason and message. */
function crdState(crd: Served) {
  return {
    generation: crd.metadata.generation,
    finalizers: crd.metadata.finalizers,
    deleting: Boolean(crd.metadata.deletionTimestamp),
    acceptedNames: crd.status?.acceptedNames,
    storedVersions: crd.status?.storedVersions,
    conditions: (crd.status?.conditions ?? []).map((c: Condition) => [c.type, c.status, c.reason, c.message]),
  };
}

async function established(rest: RestClient, name: string): Promise<void> {
  await until(async () => {
    const crd = await rest.request('GET', `${CRDS}/${name}`);
    return (crd.status?.conditions ?? []).some((c: Condition) => c.type === 'Established' && c.status === 'True');
  }, `${name} Established`);
}

export function ADMISSION_SCENARIOS(): Scenario[] {
  return [...WEBHOOK_SCENARIOS(), ...CRD_SCENARIOS()];
}

function WEBHOOK_SCENARIOS(): Scenario[] {
  const refuse = (r: Review): Answer => {
    const size = r.object?.spec?.size ?? r.oldObject?.spec?.size;
    if (size === 6) return deny('size too big');
    if (size === 7) return deny('seven is out', 422);
    if (size === 8)
      return {
        allowed: false,
        status: { code: 409, reason: 'Conflict', message: 'eight', details: { name: 'x', kind: 'widgets' } },
      };
    if (size === 9) return { allowed: false };
    return allow(size === 5 ? ['five is a lot'] : undefined);
  };
  return [
    {
      name: 'admission: a validating webhook refuses in the words of the server, and allows',
      run: (s) =>
        withHooks(
          s,
          { '/v': refuse },
          { ValidatingWebhookConfiguration: (h) => [webhook(h, 'size.fake.kubeforge.io', '/v', [rule(['widgets'])])] },
          async () => {
            await s.do('refused without a code', 'POST', W(s.ns), widget('six', { size: 6 }));
            await s.do('refused with 422', 'POST', W(s.ns), widget('seven', { size: 7 }));
            await s.do('refused with reason and details', 'POST', W(s.ns), widget('eight', { size: 8 }));
            await s.do('refused without explanation', 'POST', W(s.ns), widget('nine', { size: 9 }));
            await warningsOf(s, 'warnings of an allowed create', () =>
              s.do('allowed with a warning', 'POST', W(s.ns), widget('five', { size: 5 })),
            );
            await s.do('nothing refused was stored', 'GET', W(s.ns));
          },
        ),
    },
    {
      name: 'admission: mutating webhooks patch before validation, in configuration order; the validating one sees the patch',
      run: (s) =>
        withHooks(
          s,
          {
            '/m1': () => ({ allowed: true, patch: [{ op: 'replace', path: '/spec/size', value: 4 }] }),
            '/m2': (r) => ({
              allowed: true,
              patch: [{ op: 'add', path: '/metadata/labels', value: { seen: String(r.object.spec.size) } }],
              warnings: ['m2 was here'],
            }),
            '/v': (r) => (r.object.metadata.labels?.seen === '4' ? allow() : deny('not patched')),
          },
          {
            MutatingWebhookConfiguration: (h) => [
              webhook(h, 'first.fake.kubeforge.io', '/m1', [rule(['widgets'], ['CREATE'])]),
              webhook(h, 'second.fake.kubeforge.io', '/m2', [rule(['widgets'], ['CREATE'])]),
            ],
            ValidatingWebhookConfiguration: (h) => [
              webhook(h, 'check.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])]),
            ],
          },
          async () => {
            await warningsOf(s, 'warnings', () =>
              s.do('size 30 (above maximum) patched to 4', 'POST', W(s.ns), widget('w', { size: 30 })),
            );
            await s.do('generateName: the name is empty for the mutating webhooks', 'POST', W(s.ns), {
              apiVersion: V1,
              kind: 'Widget',
              metadata: { generateName: 'gen-' },
              spec: { size: 1 },
            });
          },
        ),
    },
    {
      name: 'admission: rules by operation and x/status, DELETE with an objectSelector, scope',
      run: (s) =>
        withHooks(
          s,
          { '/v': refuse },
          {
            ValidatingWebhookConfiguration: (h) => [
              webhook(h, 'status.fake.kubeforge.io', '/v', [rule(['widgets/status'], ['UPDATE'])]),
              webhook(h, 'delete.fake.kubeforge.io', '/v', [rule(['*'], ['DELETE'], ['*'], ['*'], 'Namespaced')], {
                objectSelector: { matchExpressions: [{ key: 'guard', operator: 'Exists' }] },
              }),
              webhook(h, 'cluster.fake.kubeforge.io', '/v', [rule(['*'], ['*'], ['*'], ['*'], 'Cluster')]),
            ],
          },
          async () => {
            const o = await s.do('create (no rule)', 'POST', W(s.ns), widget('w', { size: 6 }, { guard: 'x' }));
            const u = await s.do('update of the main resource (no rule)', 'PUT', W(s.ns, 'w'), {
              ...o,
              spec: { size: 6, mode: 'Slow' },
            });
            await s.do('status update refused', 'PUT', W(s.ns, 'w', 'status'), { ...u, status: { replicas: 2 } });
            await s.do('delete refused (guard label)', 'DELETE', W(s.ns, 'w'));
            await s.do('create unguarded', 'POST', W(s.ns), widget('plain', { size: 6 }));
            await s.do('delete unguarded (objectSelector leaves it out)', 'DELETE', W(s.ns, 'plain'));
          },
        ),
    },
    {
      name: 'admission: failurePolicy Fail and Ignore on an unreachable webhook',
      run: (s) =>
        withHooks(
          s,
          {},
          {
            ValidatingWebhookConfiguration: (h) => [
              webhook({ url: 'https://127.0.0.1:1', caBundle: h.caBundle }, 'fail.fake.kubeforge.io', '/x', [
                rule(['widgets'], ['CREATE']),
              ]),
              webhook(
                { url: 'https://127.0.0.1:1', caBundle: h.caBundle },
                'ignore.fake.kubeforge.io',
                '/x',
                [rule(['widgets'], ['UPDATE'])],
                {
                  failurePolicy: 'Ignore',
                },
              ),
            ],
          },
          async () => {
            await s.do('create fails closed', 'POST', W(s.ns), widget('w'));
            await s.do('create through a merge patch of nothing', 'PATCH', W(s.ns, 'w'), { spec: { size: 2 } }, MERGE);
          },
        ),
    },
    {
      name: 'admission: a webhook that answers 404, another uid, or a patch from a validating webhook',
      run: (s) =>
        withHooks(
          s,
          {
            '/wrong-uid': () => ({
              allowed: true,
              raw: {
                apiVersion: 'admission.k8s.io/v1',
                kind: 'AdmissionReview',
                response: { uid: 'nope', allowed: true },
              },
            }),
            '/v-patch': (r) => ({
              allowed: true,
              raw: {
                apiVersion: 'admission.k8s.io/v1',
                kind: 'AdmissionReview',
                response: {
                  uid: r.uid,
                  allowed: true,
                  patchType: 'JSONPatch',
                  patch: Buffer.from('[]').toString('base64'),
                },
              },
            }),
            '/no-response': () => ({
              allowed: true,
              raw: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' },
            }),
          },
          {
            ValidatingWebhookConfiguration: (h) => [
              webhook(h, 'missing.fake.kubeforge.io', '/missing', [rule(['widgets'], ['CREATE'])], {
                objectSelector: { matchLabels: { case: 'missing' } },
              }),
              webhook(h, 'uid.fake.kubeforge.io', '/wrong-uid', [rule(['widgets'], ['CREATE'])], {
                objectSelector: { matchLabels: { case: 'uid' } },
              }),
              webhook(h, 'patch.fake.kubeforge.io', '/v-patch', [rule(['widgets'], ['CREATE'])], {
                objectSelector: { matchLabels: { case: 'patch' } },
              }),
              webhook(h, 'absent.fake.kubeforge.io', '/no-response', [rule(['widgets'], ['CREATE'])], {
                objectSelector: { matchLabels: { case: 'absent' } },
              }),
            ],
          },
          async () => {
            for (const c of ['missing', 'patch', 'absent'])
              await s.do(`webhook ${c}`, 'POST', W(s.ns), widget(c, { size: 1 }, { case: c }));
            // The uid the server made up is in the message: compared without it.
            try {
              await s.rest.request('POST', W(s.ns), { body: widget('uid', { size: 1 }, { case: 'uid' }) });
              s.note('webhook uid', 'accepted');
            } catch (e) {
              const st = (e as StatusError).status as {
                message?: string;
                details?: { causes?: { message?: string }[] };
              };
              const scrub = (m?: string) => m?.replace(/uid="[^"]*"/, 'uid="<uid>"');
              s.note('webhook uid', [
                (e as StatusError).code,
                scrub(st.message),
                scrub(st.details?.causes?.[0]?.message),
              ]);
            }
          },
        ),
    },
    {
      name: 'admission: dry runs: sideEffects None and NoneOnDryRun are called with dryRun',
      run: (s) =>
        withHooks(
          s,
          { '/v': refuse },
          {
            ValidatingWebhookConfiguration: (h) => [
              webhook(h, 'none.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])]),
              webhook(h, 'noneondryrun.fake.kubeforge.io', '/v', [rule(['widgets'], ['UPDATE'])], {
                sideEffects: 'NoneOnDryRun',
              }),
            ],
          },
          async () => {
            await s.do('dry-run create', 'POST', W(s.ns), widget('w'), { query: { dryRun: 'All' } });
            await s.do('nothing stored', 'GET', W(s.ns));
            const o = await s.do('create', 'POST', W(s.ns), widget('w'));
            await s.do(
              'dry-run update refused',
              'PUT',
              W(s.ns, 'w'),
              { ...o, spec: { size: 6 } },
              { query: { dryRun: 'All' } },
            );
            await s.do(
              'dry-run update allowed',
              'PUT',
              W(s.ns, 'w'),
              { ...o, spec: { size: 4 } },
              { query: { dryRun: 'All' } },
            );
            await s.do('unchanged', 'GET', W(s.ns, 'w'));
          },
        ),
    },
    {
      name: 'admission: server-side apply, merge patch and deletecollection meet the webhooks',
      run: (s) =>
        withHooks(
          s,
          { '/v': refuse },
          {
            ValidatingWebhookConfiguration: (h) => [
              webhook(h, 'all.fake.kubeforge.io', '/v', [rule(['widgets'], ['*'])]),
            ],
          },
          async () => {
            await s.do('apply creates', 'PATCH', W(s.ns, 'a'), widget('a'), APPLY);
            await s.do('apply refused', 'PATCH', W(s.ns, 'a'), widget('a', { size: 6 }), APPLY);
            await s.do('merge patch refused', 'PATCH', W(s.ns, 'a'), { spec: { size: 6 } }, MERGE);
            await s.do('merge patch allowed', 'PATCH', W(s.ns, 'a'), { spec: { size: 2 } }, MERGE);
            await s.do('deletecollection', 'DELETE', W(s.ns));
            await s.do('nothing left', 'GET', W(s.ns));
          },
        ),
    },
    {
      name: 'admission: matchPolicy Equivalent converts to the version a webhook names; Exact does not match',
      run: (s) =>
        withHooks(
          s,
          { '/v': refuse },
          {
            ValidatingWebhookConfiguration: (h) => [
              webhook(h, 'equivalent.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])]),
              webhook(h, 'exact.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])], { matchPolicy: 'Exact' }),
            ],
          },
          async () => {
            await s.do('create through v2', 'POST', W(s.ns, undefined, undefined, 'v2'), {
              apiVersion: 'fake.kubeforge.io/v2',
              kind: 'Widget',
              metadata: { name: 'w' },
              spec: { size: 3 },
            });
          },
        ),
    },
    {
      name: 'admission: reinvocationPolicy IfNeeded calls a webhook again after a later one changed the object',
      run: (s) =>
        withHooks(
          s,
          {
            '/saw': (r) => ({
              allowed: true,
              patch: [{ op: 'add', path: '/metadata/annotations', value: { saw: String(r.object.spec.size) } }],
            }),
            '/size': () => ({ allowed: true, patch: [{ op: 'replace', path: '/spec/size', value: 4 }] }),
          },
          {
            MutatingWebhookConfiguration: (h) => [
              webhook(h, 'saw.fake.kubeforge.io', '/saw', [rule(['widgets'], ['CREATE'])], {
                reinvocationPolicy: 'IfNeeded',
              }),
              webhook(h, 'never.fake.kubeforge.io', '/saw', [rule(['widgets'], ['CREATE'])], {
                reinvocationPolicy: 'Never',
                objectSelector: { matchLabels: { never: 'true' } },
              }),
              webhook(h, 'size.fake.kubeforge.io', '/size', [rule(['widgets'], ['CREATE'])]),
            ],
          },
          async () => {
            await s.do('create: saw called twice', 'POST', W(s.ns), widget('w', { size: 3 }));
            await s.do(
              'create: the Never webhook is not called again',
              'POST',
              W(s.ns),
              widget('n', { size: 3 }, { never: 'true' }),
            );
          },
        ),
    },
    {
      name: 'admission: matchConditions: false skips the webhook, an error fails the request (Fail) or skips it (Ignore)',
      run: (s) =>
        withHooks(
          s,
          { '/no': () => deny('matched') },
          {
            ValidatingWebhookConfiguration: (h) => [
              webhook(h, 'big.fake.kubeforge.io', '/no', [rule(['widgets'], ['CREATE'])], {
                objectSelector: { matchLabels: { case: 'big' } },
                matchConditions: [
                  { name: 'create', expression: "request.operation == 'CREATE'" },
                  { name: 'big', expression: 'object.spec.size > 5' },
                ],
              }),
              webhook(h, 'broken.fake.kubeforge.io', '/no', [rule(['widgets'], ['CREATE'])], {
                objectSelector: { matchLabels: { case: 'broken' } },
                matchConditions: [{ name: 'missing', expression: "object.metadata.annotations['x'] == 'y'" }],
              }),
              webhook(h, 'lenient.fake.kubeforge.io', '/no', [rule(['widgets'], ['CREATE'])], {
                objectSelector: { matchLabels: { case: 'lenient' } },
                failurePolicy: 'Ignore',
                matchConditions: [{ name: 'missing', expression: "object.metadata.annotations['x'] == 'y'" }],
              }),
            ],
          },
          async () => {
            await s.do('small: not matched, created', 'POST', W(s.ns), widget('small', { size: 3 }, { case: 'big' }));
            await s.do('big: matched, denied', 'POST', W(s.ns), widget('big', { size: 6 }, { case: 'big' }));
            await s.do('an error under Fail', 'POST', W(s.ns), widget('broken', { size: 1 }, { case: 'broken' }));
            await s.do('an error under Ignore', 'POST', W(s.ns), widget('lenient', { size: 1 }, { case: 'lenient' }));
          },
        ),
    },
    {
      name: 'admission: a create in a namespace that does not exist is refused before any webhook',
      run: (s) =>
        withHooks(
          s,
          {
            '/v': refuse,
            '/m': () => ({ allowed: true, patch: [{ op: 'add', path: '/metadata/annotations', value: { m: 'y' } }] }),
          },
          {
            ValidatingWebhookConfiguration: (h) => [
              webhook(h, 'selecting.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])], {
                namespaceSelector: {
                  matchExpressions: [
                    { key: 'kubernetes.io/metadata.name', operator: 'In', values: [s.ns, `${s.ns}-gone`] },
                  ],
                },
                objectSelector: { matchLabels: { case: 'selecting' } },
              }),
              webhook(h, 'any.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])], {
                namespaceSelector: {},
                objectSelector: { matchLabels: { case: 'any' } },
              }),
            ],
            MutatingWebhookConfiguration: (h) => [
              webhook(h, 'mutating.fake.kubeforge.io', '/m', [rule(['widgets'], ['CREATE'])], {
                namespaceSelector: {},
                objectSelector: { matchLabels: { case: 'mutating' } },
              }),
            ],
          },
          async () => {
            await s.do(
              'a webhook with a namespaceSelector',
              'POST',
              W(`${s.ns}-gone`),
              widget('w', { size: 6 }, { case: 'selecting' }),
            );
            await s.do(
              'a webhook for every namespace, which would deny',
              'POST',
              W(`${s.ns}-gone`),
              widget('w', { size: 6 }, { case: 'any' }),
            );
            await s.do(
              'a webhook for every namespace, which would allow',
              'POST',
              W(`${s.ns}-gone`),
              widget('w', { size: 2 }, { case: 'any' }),
            );
            await s.do('an invalid object', 'POST', W(`${s.ns}-gone`), widget('w', { size: 30 }, { case: 'none' }));
            await s.do(
              'a mutating webhook for every namespace',
              'POST',
              W(`${s.ns}-gone`),
              widget('w', { size: 2 }, { case: 'mutating' }),
            );
          },
        ),
    },
    {
      name: 'admission: a mutating webhook that patches a delete fails it',
      run: (s) =>
        withHooks(
          s,
          { '/m': () => ({ allowed: true, patch: [{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }] }) },
          {
            MutatingWebhookConfiguration: (h) => [
              webhook(h, 'deleter.fake.kubeforge.io', '/m', [rule(['widgets'], ['DELETE'])]),
            ],
          },
          async () => {
            await s.do('create', 'POST', W(s.ns), widget('w'));
            await s.do('delete', 'DELETE', W(s.ns, 'w'));
          },
        ),
    },
  ];
}

function CRD_SCENARIOS(): Scenario[] {
  return [
    {
      name: 'built-in: a ClusterRole applied as kubeforge dev applies config/rbac/role.yaml',
      run: async (s) => {
        const path = `/apis/rbac.authorization.k8s.io/v1/clusterroles/${s.ns}-manager-role`;
        const role = {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: `${s.ns}-manager-role` },
          rules: [{ apiGroups: ['fake.kubeforge.io'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
        };
        try {
          await s.do('apply', 'PATCH', path, role, APPLY);
          await s.do(
            'apply again with another rule',
            'PATCH',
            path,
            { ...role, rules: [...role.rules, { apiGroups: [''], resources: ['events'], verbs: ['create'] }] },
            APPLY,
          );
          await s.do('read', 'GET', path);
        } finally {
          await s.rest.request('DELETE', path).catch(() => undefined);
        }
      },
    },
    {
      name: 'versions: an object written through a version that is not the storage one reads with the storage version defaults',
      run: async (s) => {
        await s.do('create through v2', 'POST', W(s.ns, undefined, undefined, 'v2'), {
          apiVersion: 'fake.kubeforge.io/v2',
          kind: 'Widget',
          metadata: { name: 'w' },
          spec: { size: 3 },
        });
        await s.do('read through v2', 'GET', W(s.ns, 'w', undefined, 'v2'));
      },
    },
    {
      name: 'CRD over the API: created, established, served',
      run: async (s) => {
        const group = `${s.ns}.kubeforge.io`;
        const name = `gizmos.${group}`;
        try {
          const created = await s.rest.request('POST', CRDS, { body: gizmoCRD(group) });
          s.note('created', crdState(created));
          await established(s.rest, name);
          await until(
            async () => (await status(s.rest, `/apis/${group}/v1/namespaces/${s.ns}/gizmos`)) === 200,
            'served',
          );
          s.note('established', crdState(await s.rest.request('GET', `${CRDS}/${name}`)));
          await s.do('create a gizmo', 'POST', `/apis/${group}/v1/namespaces/${s.ns}/gizmos`, {
            apiVersion: `${group}/v1`,
            kind: 'Gizmo',
            metadata: { name: 'g' },
            spec: { size: 3, extra: true },
          });
          await s.do('size above the maximum', 'POST', `/apis/${group}/v1/namespaces/${s.ns}/gizmos`, {
            apiVersion: `${group}/v1`,
            kind: 'Gizmo',
            metadata: { name: 'h' },
            spec: { size: 30 },
          });
        } finally {
          await s.rest.request('DELETE', `${CRDS}/${name}`).catch(() => undefined);
        }
      },
    },
    {
      name: 'CRD over the API: applied, then applied with a new version and schema',
      run: async (s) => {
        const group = `${s.ns}.kubeforge.io`;
        const name = `gizmos.${group}`;
        const G = (v: string, n?: string) => `/apis/${group}/${v}/namespaces/${s.ns}/gizmos${n ? `/${n}` : ''}`;
        const gizmo = (n: string, spec: Record<string, unknown>) => ({
          apiVersion: `${group}/v1`,
          kind: 'Gizmo',
          metadata: { name: n },
          spec,
        });
        try {
          await s.rest.request('PATCH', `${CRDS}/${name}`, { body: gizmoCRD(group), ...APPLY });
          await established(s.rest, name);
          await until(async () => (await status(s.rest, G('v1'))) === 200, 'v1 served');
          await s.do('size 20 refused by v1 (maximum 10)', 'POST', G('v1'), gizmo('a', { size: 20, color: 'red' }));
          await s.rest.request('PATCH', `${CRDS}/${name}`, {
            body: gizmoCRD(group, { max: 30, v2: true, color: true }),
            ...APPLY,
          });
          await until(async () => (await status(s.rest, G('v2'))) === 200, 'v2 served');
          // The new schema is served once v2 is (the server swaps a CRD's handler as a whole).
          await until(async () => {
            try {
              await s.rest.request('POST', G('v1'), { body: gizmo('probe', { size: 20 }), query: { dryRun: 'All' } });
              return true;
            } catch {
              return false;
            }
          }, 'the new schema');
          await s.do(
            'size 20 and a color kept by the new schema',
            'POST',
            G('v1'),
            gizmo('a', { size: 20, color: 'red' }),
          );
          await s.do('a color outside the enum', 'POST', G('v1'), gizmo('b', { size: 2, color: 'green' }));
          await s.do('read through v2', 'GET', G('v2', 'a'));
          s.note('updated', crdState(await s.rest.request('GET', `${CRDS}/${name}`)));
        } finally {
          await s.rest.request('DELETE', `${CRDS}/${name}`).catch(() => undefined);
        }
      },
    },
    {
      name: 'CRD over the API: deleted, its objects go, then it is no longer served',
      run: async (s) => {
        const group = `${s.ns}.kubeforge.io`;
        const name = `gizmos.${group}`;
        const G = `/apis/${group}/v1/namespaces/${s.ns}/gizmos`;
        await s.rest.request('POST', CRDS, { body: gizmoCRD(group) });
        await established(s.rest, name);
        await until(async () => (await status(s.rest, G)) === 200, 'served');
        await s.do(
          'create a gizmo',
          'POST',
          G,
          { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'g' }, spec: { size: 1 } },
          { quiet: true },
        );
        const w = await s.watch('the gizmos watched', G);
        const answer = await s.rest.request('DELETE', `${CRDS}/${name}`);
        s.note('the delete answers', crdState(answer));
        await until(async () => (await status(s.rest, `${CRDS}/${name}`)) === 404, 'the CRD gone');
        await until(async () => (await status(s.rest, G)) === 404, 'no longer served');
        await w.stop();
        s.note('served after', await status(s.rest, `/apis/${group}/v1`));
      },
    },
    {
      name: 'CRD over the API: an object with a finalizer holds the deleted CRD, which takes no new object',
      run: async (s) => {
        const group = `${s.ns}.kubeforge.io`;
        const name = `gizmos.${group}`;
        const G = `/apis/${group}/v1/namespaces/${s.ns}/gizmos`;
        const gizmo = (n: string, finalizers?: string[]) => ({
          apiVersion: `${group}/v1`,
          kind: 'Gizmo',
          metadata: { name: n, ...(finalizers ? { finalizers } : {}) },
          spec: { size: 1 },
        });
        await s.rest.request('POST', CRDS, { body: gizmoCRD(group) });
        await established(s.rest, name);
        await until(async () => (await status(s.rest, G)) === 200, 'served');
        await s.do('create a held gizmo', 'POST', G, gizmo('held', ['kubeforge.io/hold']), { quiet: true });
        await s.rest.request('DELETE', `${CRDS}/${name}`);
        await until(async () => {
          const o = await s.rest.request('GET', `${G}/held`);
          return Boolean(o.metadata.deletionTimestamp);
        }, 'the held gizmo deleting');
        await s.do('a new gizmo is refused', 'POST', G, gizmo('late'));
        await s.do('the held gizmo', 'GET', `${G}/held`);
        s.note('the CRD', crdState(await s.rest.request('GET', `${CRDS}/${name}`)));
        await s.do('release the held gizmo', 'PATCH', `${G}/held`, { metadata: { finalizers: null } }, MERGE);
        await until(async () => (await status(s.rest, `${CRDS}/${name}`)) === 404, 'the CRD gone');
      },
    },
  ];
}
