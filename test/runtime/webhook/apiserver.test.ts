// The webhook server end to end: a real kube-apiserver calls it, as a cluster would, through the
// configurations TestEnvironment installs (envtest's WebhookInstallOptions). Defaulting,
// validation with field causes and warnings, DELETE validation, conversion between two versions
// of a CRD (round trip, mixed-version lists), a defaulting webhook for a built-in Kind (Pod), and
// a serving certificate rotated on disk while the manager runs.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig, KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { newManager, type Manager } from '../../../src/runtime/manager/index.js';
import { generateSelfSignedCert } from '../../../src/runtime/manager/selfsigned.js';
import {
  type AdmissionContext,
  type Conversion,
  type CustomDefaulter,
  type CustomValidator,
  FieldErrors,
  field,
  newWebhookServer,
  webhookManagedBy,
} from '../../../src/runtime/webhook/index.js';
import { eventually, TestEnvironment } from '../../../src/testing/index.js';
import { quiet } from './helpers.js';
import { must } from '../../helpers/must.js';

const GROUP = 'e2e.kubeforge.io';

interface WidgetV1 extends KubernetesObject {
  spec?: { size?: number; color?: string; tags?: string[] };
}
interface WidgetV2 extends KubernetesObject {
  spec?: { dimensions?: { size?: number; depth?: number }; color?: string; tags?: string[] };
}
// biome-ignore lint/complexity/noStaticOnlyClass: a kind reference is a class whose statics name the kind, as the API takes it
class Widget {
  static readonly gvk = { group: GROUP, version: 'v1', kind: 'Widget' };
  static readonly plural = 'widgets';
  static readonly namespaced = true;
}
// biome-ignore lint/complexity/noStaticOnlyClass: a kind reference is a class whose statics name the kind, as the API takes it
class WidgetV2Kind {
  static readonly gvk = { group: GROUP, version: 'v2', kind: 'Widget' };
  static readonly plural = 'widgets';
  static readonly namespaced = true;
}

const specSchema = (v: 'v1' | 'v2') => ({
  type: 'object',
  properties: {
    ...(v === 'v1'
      ? { size: { type: 'integer' } }
      : { dimensions: { type: 'object', properties: { size: { type: 'integer' }, depth: { type: 'integer' } } } }),
    color: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
  },
});
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Namespaced',
    // As `@ConversionWebhook({ conversionReviewVersions: ['v1beta1', 'v1'] })` generates it;
    // TestEnvironment points it at the local /convert. The server sends the first it speaks: v1beta1.
    conversion: {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/convert' } },
        conversionReviewVersions: ['v1beta1', 'v1'],
      },
    },
    versions: (['v1', 'v2'] as const).map((v) => ({
      name: v,
      served: true,
      storage: v === 'v1',
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema(v) } } },
    })),
  },
};

/** One webhook of a configuration as `kubeforge manifests` writes it (service clientConfig). */
const hook = (
  name: string,
  path: string,
  group: string,
  resource: string,
  operations: string[],
  admissionReviewVersions = ['v1'],
) => ({
  name,
  admissionReviewVersions,
  sideEffects: 'None',
  failurePolicy: 'Fail',
  clientConfig: { service: { name: 'webhook-service', namespace: 'system', path } },
  rules: [{ apiGroups: [group], apiVersions: ['v1'], operations, resources: [resource] }],
});

class WidgetDefaulter implements CustomDefaulter<WidgetV1> {
  default(obj: WidgetV1): void {
    obj.spec ??= {};
    obj.spec.color ??= 'blue';
  }
}

class WidgetValidator implements CustomValidator<WidgetV1> {
  deletes: { name?: string; dryRun: boolean }[] = [];
  private check(obj: WidgetV1): string[] {
    const size = obj.spec?.size ?? 0;
    if (size < 0)
      throw new FieldErrors(
        [field.invalid('spec.size', size, 'must be at least 0'), field.required('spec.tags', 'a widget needs a tag')],
        { kind: 'Widget', group: GROUP, name: obj.metadata?.name },
      );
    return size > 5 ? [`spec.size ${size} is above 5: large widgets are deprecated`] : [];
  }
  validateCreate(obj: WidgetV1): string[] {
    return this.check(obj);
  }
  validateUpdate(oldObj: WidgetV1, newObj: WidgetV1): string[] {
    if (oldObj.spec?.color !== newObj.spec?.color)
      throw new FieldErrors([field.forbidden('spec.color', 'is immutable')], {
        kind: 'Widget',
        group: GROUP,
        name: newObj.metadata?.name,
      });
    return this.check(newObj);
  }
  validateDelete(obj: WidgetV1, ctx: AdmissionContext): void {
    this.deletes.push({ name: obj.metadata?.name, dryRun: ctx.dryRun });
    if (obj.metadata?.labels?.protected === 'true')
      throw new Error(`widget ${obj.metadata.name} is protected: remove its "protected" label first`);
  }
}

/**
 * Hub v1, spoke v2: v2 moves spec.size to spec.dimensions.size and has a depth the hub lacks,
 * which travels in an annotation (the pattern of cluster-api's conversion-data annotation).
 */
const DEPTH = 'e2e.kubeforge.io/v2-depth';
const widgetV2Conversion: Conversion<WidgetV2, WidgetV1> = {
  convertTo: (s) => {
    const depth = s.spec?.dimensions?.depth;
    const annotations = { ...s.metadata?.annotations };
    if (depth === undefined) delete annotations[DEPTH];
    else annotations[DEPTH] = String(depth);
    return {
      metadata: { ...s.metadata, annotations },
      spec: { size: s.spec?.dimensions?.size, color: s.spec?.color, tags: s.spec?.tags },
    };
  },
  convertFrom: (h) => {
    const { [DEPTH]: depth, ...annotations } = h.metadata?.annotations ?? {};
    const dimensions = depth === undefined ? { size: h.spec?.size } : { size: h.spec?.size, depth: Number(depth) };
    return { metadata: { ...h.metadata, annotations }, spec: { dimensions, color: h.spec?.color, tags: h.spec?.tags } };
  },
};

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: the API server's JSON, read by the tests without a schema
  body: any;
}

/** A request with the test admin's credentials, keeping the response headers (warnings) and the whole Status. */
async function raw(kc: KubeConfig, method: string, path: string, body?: unknown): Promise<RawResponse> {
  const url = new URL(path, must(kc.getCurrentCluster(), 'kc.getCurrentCluster()').server);
  const opts: https.RequestOptions = {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
  };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = https.request(url, opts, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const widgets = (v: 'v1' | 'v2', name?: string) =>
  `/apis/${GROUP}/${v}/namespaces/default/widgets${name ? `/${name}` : ''}`;

describe('webhook server through a real API server', () => {
  const env = new TestEnvironment({
    crds: [crd] as never,
    webhookInstallOptions: {
      mutatingWebhooks: [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingWebhookConfiguration',
          metadata: { name: 'mutating-webhook-configuration' },
          // The Widget defaulter is asked in admission.k8s.io/v1beta1 (the first version listed).
          webhooks: [
            hook(
              'mwidget-v1.kb.io',
              '/mutate-e2e-kubeforge-io-v1-widget',
              GROUP,
              'widgets',
              ['CREATE', 'UPDATE'],
              ['v1beta1', 'v1'],
            ),
            hook('mpod-v1.kb.io', '/mutate--v1-pod', '', 'pods', ['CREATE']),
          ],
        },
      ],
      validatingWebhooks: [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'validating-webhook-configuration' },
          webhooks: [
            hook('vwidget-v1.kb.io', '/validate-e2e-kubeforge-io-v1-widget', GROUP, 'widgets', [
              'CREATE',
              'UPDATE',
              'DELETE',
            ]),
          ],
        },
      ],
    },
  });
  const validator = new WidgetValidator();
  const stop = new AbortController();
  let kc: KubeConfig;
  let mgr: Manager;
  let running: Promise<void>;

  before(async () => {
    kc = await env.start();
    mgr = newManager(kc, {
      webhookServer: newWebhookServer({ ...env.webhookServerOptions(), logger: quiet() }),
      logger: quiet(),
    });
    webhookManagedBy(mgr)
      .for(Widget)
      .withDefaulter(new WidgetDefaulter())
      .withValidator(validator)
      .withConversion(WidgetV2Kind, widgetV2Conversion)
      .complete();
    webhookManagedBy(mgr)
      .for<V1Pod>({ apiVersion: 'v1', kind: 'Pod' })
      .withDefaulter({
        default: (pod: V1Pod) => {
          pod.metadata ??= {};
          pod.metadata.labels = { ...pod.metadata.labels, 'defaulted-by': 'kubeforge' };
        },
      })
      .complete();
    running = mgr.start(stop.signal);
    await mgr.getWebhookServer().whenStarted();
  });

  after(async () => {
    stop.abort();
    await running;
    await env.stop();
  });

  it('a create is defaulted (the JSON patch is applied by the API server)', async () => {
    const r = await raw(kc, 'POST', widgets('v1'), {
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'plain' },
      spec: { size: 1, tags: ['a'] },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.spec.color, 'blue');
    const stored = await raw(kc, 'GET', widgets('v1', 'plain'));
    assert.deepEqual(stored.body.spec, { size: 1, color: 'blue', tags: ['a'] });
  });

  it("an invalid create is refused 422 Invalid with the validator's message and field causes; nothing is stored", async () => {
    const r = await raw(kc, 'POST', widgets('v1'), {
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'negative' },
      spec: { size: -3 },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.reason, 'Invalid');
    assert.match(r.body.message, /admission webhook "vwidget-v1\.kb\.io" denied the request: /);
    assert.match(r.body.message, /spec\.size: Invalid value: -3: must be at least 0/);
    assert.match(r.body.message, /spec\.tags: Required value: a widget needs a tag/);
    const causes = r.body.details?.causes ?? [];
    assert.deepEqual(
      causes.map((c: { field: string; reason: string }) => [c.field, c.reason]),
      [
        ['spec.size', 'FieldValueInvalid'],
        ['spec.tags', 'FieldValueRequired'],
      ],
    );
    assert.equal((await raw(kc, 'GET', widgets('v1', 'negative'))).status, 404);
  });

  it('warnings reach the client as Warning headers', async () => {
    const r = await raw(kc, 'POST', widgets('v1'), {
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'big' },
      spec: { size: 8, tags: ['x'] },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.match(String(r.headers.warning), /299 - "spec\.size 8 is above 5: large widgets are deprecated"/);
  });

  it('an invalid update is refused with the old object compared (immutable field)', async () => {
    const current = (await raw(kc, 'GET', widgets('v1', 'plain'))).body;
    const r = await raw(kc, 'PUT', widgets('v1', 'plain'), { ...current, spec: { ...current.spec, color: 'red' } });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.match(r.body.message, /spec\.color: Forbidden: is immutable/);
    const ok = await raw(kc, 'PUT', widgets('v1', 'plain'), { ...current, spec: { ...current.spec, size: 2 } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  it('DELETE is validated with the deleted object, dry runs marked as such; a plain Error is 403 Forbidden', async () => {
    const created = await raw(kc, 'POST', widgets('v1'), {
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'keep', labels: { protected: 'true' } },
      spec: { size: 1, tags: ['k'] },
    });
    assert.equal(created.status, 201);
    const dry = await raw(kc, 'DELETE', `${widgets('v1', 'keep')}?dryRun=All`);
    assert.equal(dry.status, 403);
    assert.equal(dry.body.reason, 'Forbidden');
    assert.match(dry.body.message, /widget keep is protected/);
    const refused = await raw(kc, 'DELETE', widgets('v1', 'keep'));
    assert.equal(refused.status, 403);
    assert.deepEqual(
      validator.deletes.filter((d) => d.name === 'keep'),
      [
        { name: 'keep', dryRun: true },
        { name: 'keep', dryRun: false },
      ],
    );
    assert.equal((await raw(kc, 'GET', widgets('v1', 'keep'))).status, 200, 'still there');
    const unlabelled = (await raw(kc, 'GET', widgets('v1', 'keep'))).body;
    delete unlabelled.metadata.labels.protected;
    assert.equal((await raw(kc, 'PUT', widgets('v1', 'keep'), unlabelled)).status, 200);
    assert.equal((await raw(kc, 'DELETE', widgets('v1', 'keep'))).status, 200);
  });

  it('a v1 object read as v2 and written back as v2 round-trips through the conversion webhook, nothing lost', async () => {
    const created = await raw(kc, 'POST', widgets('v1'), {
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'roundtrip', labels: { team: 'a' }, annotations: { note: 'kept' } },
      spec: { size: 3, color: 'green', tags: ['a', 'b'] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const asV2 = await raw(kc, 'GET', widgets('v2', 'roundtrip'));
    assert.equal(asV2.status, 200, JSON.stringify(asV2.body));
    assert.equal(asV2.body.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(asV2.body.spec, { dimensions: { size: 3 }, color: 'green', tags: ['a', 'b'] });
    assert.deepEqual(
      [asV2.body.metadata.labels, asV2.body.metadata.annotations, asV2.body.metadata.uid],
      [{ team: 'a' }, { note: 'kept' }, created.body.metadata.uid],
    );

    asV2.body.spec.tags.push('c');
    const written = await raw(kc, 'PUT', widgets('v2', 'roundtrip'), asV2.body);
    assert.equal(written.status, 200, JSON.stringify(written.body));
    const back = await raw(kc, 'GET', widgets('v1', 'roundtrip'));
    assert.deepEqual(back.body.spec, { size: 3, color: 'green', tags: ['a', 'b', 'c'] });
    assert.deepEqual(back.body.metadata.labels, { team: 'a' });
  });

  it('a v2 field the hub lacks survives: written as v2, read and written back as v1, read as v2 (v1beta1 reviews)', async () => {
    const created = await raw(kc, 'POST', widgets('v2'), {
      apiVersion: `${GROUP}/v2`,
      kind: 'Widget',
      metadata: { name: 'deep' },
      spec: { dimensions: { size: 2, depth: 9 }, color: 'red', tags: ['d'] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const asV1 = await raw(kc, 'GET', widgets('v1', 'deep'));
    assert.deepEqual(asV1.body.spec, { size: 2, color: 'red', tags: ['d'] });
    assert.equal(asV1.body.metadata.annotations[DEPTH], '9', 'the stored hub object carries the depth');
    asV1.body.spec.tags = ['d', 'e'];
    const written = await raw(kc, 'PUT', widgets('v1', 'deep'), asV1.body);
    assert.equal(written.status, 200, JSON.stringify(written.body));
    const asV2 = await raw(kc, 'GET', widgets('v2', 'deep'));
    assert.deepEqual(asV2.body.spec, { dimensions: { size: 2, depth: 9 }, color: 'red', tags: ['d', 'e'] });
    assert.equal(asV2.body.metadata.annotations?.[DEPTH], undefined, 'v2 shows the field, not the annotation');
  });

  it('a list of objects stored from both versions converts to either version', async () => {
    const v2 = await raw(kc, 'POST', widgets('v2'), {
      apiVersion: `${GROUP}/v2`,
      kind: 'Widget',
      metadata: { name: 'from-v2' },
      spec: { dimensions: { size: 4 }, color: 'black', tags: ['n'] },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    for (const version of ['v1', 'v2'] as const) {
      const list = await raw(kc, 'GET', widgets(version));
      assert.equal(list.status, 200, JSON.stringify(list.body));
      const byName = Object.fromEntries(
        list.body.items.map((i: WidgetV1 & WidgetV2) => [must(i.metadata, 'i.metadata').name, i]),
      );
      assert.ok(list.body.items.every((i: KubernetesObject) => i.apiVersion === `${GROUP}/${version}`));
      const size = (name: string) => (version === 'v1' ? byName[name].spec.size : byName[name].spec.dimensions.size);
      assert.deepEqual([size('from-v2'), size('roundtrip'), size('plain')], [4, 3, 2]);
    }
  });

  it('a defaulting webhook for a built-in Kind: Pods get their label', async () => {
    // The test API server runs no controller-manager: the ServiceAccount a Pod needs is made by hand.
    await raw(kc, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default' },
    });
    const r = await raw(kc, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: { automountServiceAccountToken: false, containers: [{ name: 'web', image: 'nginx' }] },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.metadata.labels, { app: 'web', 'defaulted-by': 'kubeforge' });
  });

  it('a serving certificate rotated on disk is picked up without a restart', async () => {
    const dir = env.webhookInstallOptions.localServingCertDir;
    const original = {
      cert: readFileSync(join(dir, 'tls.crt'), 'utf8'),
      key: readFileSync(join(dir, 'tls.key'), 'utf8'),
    };
    const create = (name: string) =>
      raw(kc, 'POST', widgets('v1'), {
        apiVersion: `${GROUP}/v1`,
        kind: 'Widget',
        metadata: { name },
        spec: { size: 1, tags: ['r'] },
      });
    try {
      // A certificate from a CA the API server does not trust: once served, its calls fail.
      const stranger = generateSelfSignedCert({ hosts: ['127.0.0.1', 'localhost'] });
      writeFileSync(join(dir, 'tls.key'), stranger.key);
      writeFileSync(join(dir, 'tls.crt'), stranger.cert);
      let n = 0;
      const refused = await eventually(
        async () => {
          const r = await create(`rotated-${n++}`);
          assert.equal(r.status, 500, `still served with the old certificate: HTTP ${r.status}`);
          return r;
        },
        { timeout: 20_000, interval: 200 },
      );
      assert.match(refused.body.message, /x509|certificate/i);
    } finally {
      writeFileSync(join(dir, 'tls.key'), original.key);
      writeFileSync(join(dir, 'tls.crt'), original.cert);
    }
    // The original is picked up again, still without a restart.
    let m = 0;
    await eventually(async () => assert.equal((await create(`restored-${m++}`)).status, 201), {
      timeout: 20_000,
      interval: 200,
    });
  });
});
