// The embedded Kubernetes schemas installed into a real kube-apiserver (KUBEBUILDER_ASSETS):
// the CRDs must be accepted as structural, good objects accepted, wrong-typed ones rejected.
// (The v1.20 API server names list elements without their index: `containers.ports.containerPort`.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../../src/schema/jsonschema.js';
import { MODEL_NAMES } from '../../../src/schema/k8s/data/source.js';
import { K8S_NEWEST_VERSION, K8S_VERSIONS, type K8sVersion, k8sModelSchema } from '../../../src/schema/k8s/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { StatusError } from '../../../src/runtime/client/errors.js';
import { TestEnvironment, type CRDObject } from '../../../src/testing/index.js';
import { must } from '../../helpers/must.js';

const GROUP = 'k8s.schema.kubeforge.io';

function schema(name: string, descriptions = true): JSONSchemaProps {
  const s = k8sModelSchema(name, { descriptions });
  assert.ok(s, name);
  return s;
}

function crd(plural: string, kind: string, spec: JSONSchemaProps, status?: JSONSchemaProps): CRDObject {
  const properties: Record<string, JSONSchemaProps> = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec,
  };
  if (status) properties.status = status;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties, required: ['spec'] } },
          ...(status ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

/** A Kind embedding the types operators embed most, with descriptions (as `kubeforge manifests` writes them). */
const podSets = crd(
  'podsets',
  'PodSet',
  {
    type: 'object',
    properties: {
      template: schema('V1PodTemplateSpec'),
      jobTemplate: schema('V1JobTemplateSpec'),
      selector: schema('V1LabelSelector'),
      tolerations: { type: 'array', items: schema('V1Toleration') },
      resources: schema('V1ResourceRequirements'),
      serviceRef: schema('V1ObjectReference'),
      secretKey: schema('V1SecretKeySelector'),
      pullSecret: schema('V1LocalObjectReference'),
      env: { type: 'array', items: schema('V1EnvVar') },
      affinity: schema('V1Affinity'),
      maxUnavailable: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
    },
    required: ['template'],
  },
  {
    type: 'object',
    properties: { conditions: { type: 'array', items: schema('V1Condition') } },
  },
);

/**
 * The v1 models that do not hold a pod spec (those are in PodSet), one property each, without
 * descriptions: the CRD stays well under etcd's object size limit.
 */
const zooModels = MODEL_NAMES.filter(
  (n) =>
    /^V1[A-Z]/.test(n) &&
    !/List$/.test(n) &&
    JSON.stringify(k8sModelSchema(n, { descriptions: false })).length < 20_000,
);
const zoo = crd('zoos', 'Zoo', {
  type: 'object',
  properties: Object.fromEntries(zooModels.map((n) => [n, schema(n, false)])),
});

const goodTemplate = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        args: ['--port', '8080'],
        ports: [{ containerPort: 8080, name: 'http' }],
        env: [
          { name: 'MODE', value: 'prod' },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
        ],
        resources: { limits: { cpu: 1, memory: '128Mi' }, requests: { cpu: '250m', 'nvidia.com/gpu': 0 } },
        livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
        readinessProbe: { tcpSocket: { port: 8080 } },
      },
    ],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule', tolerationSeconds: 30 }],
    volumes: [{ name: 'cache', emptyDir: { sizeLimit: '1Gi' } }],
    restartPolicy: 'Always',
  },
};

/** For each older supported minor, a Kind embedding that minor's PodTemplateSpec and Conditions (the newest is PodSet's). */
const olderMinors = K8S_VERSIONS.filter((v) => v !== K8S_NEWEST_VERSION);
const plural = (v: K8sVersion) => `podtemplates${v.replace('.', '')}`;
const perMinor = olderMinors.map((v) =>
  crd(
    plural(v),
    `PodTemplate${v.replace('.', '')}`,
    {
      type: 'object',
      properties: {
        template: must(
          k8sModelSchema('V1PodTemplateSpec', { kubernetesVersion: v }),
          "k8sModelSchema('V1PodTemplateSpec', { kubernetesVersion: v })",
        ),
      },
      required: ['template'],
    },
    {
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          items: must(
            k8sModelSchema('V1Condition', { kubernetesVersion: v }),
            "k8sModelSchema('V1Condition', { kubernetesVersion: v })",
          ),
        },
      },
    },
  ),
);

function podSet(name: string, spec: Record<string, unknown>) {
  return { apiVersion: `${GROUP}/v1`, kind: 'PodSet', metadata: { name }, spec };
}

describe('embedded Kubernetes schemas on a real API server', () => {
  // Generous timeouts: the machine is shared, and these CRDs are large (~0.6 MB and ~0.4 MB).
  const env = new TestEnvironment({
    crds: [podSets, zoo, ...perMinor],
    useExistingCluster: false,
    crdInstallTimeout: 120_000,
  });
  let rest: RestClient;
  const path = `/apis/${GROUP}/v1/namespaces/default/podsets`;

  before(async () => {
    await env.start();
    rest = new RestClient(env.config);
  });
  after(async () => {
    rest?.close();
    await env.stop();
  });

  it('accepts the CRDs as structural and establishes them', async () => {
    for (const name of [`podsets.${GROUP}`, `zoos.${GROUP}`, ...olderMinors.map((v) => `${plural(v)}.${GROUP}`)]) {
      const got = await rest.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      const conditions = got.status.conditions as Array<{ type: string; status: string; message?: string }>;
      assert.ok(
        conditions.some((c) => c.type === 'Established' && c.status === 'True'),
        name,
      );
      const nonStructural = conditions.find((c) => c.type === 'NonStructuralSchema');
      assert.equal(nonStructural, undefined, `${name}: ${nonStructural?.message}`);
    }
    assert.ok(zooModels.length > 150, `${zooModels.length} models in the zoo`);
  });

  it('accepts a realistic pod template, job template, selector, tolerations, env and affinity', async () => {
    const created = await rest.request('POST', path, {
      body: podSet('good', {
        template: goodTemplate,
        jobTemplate: {
          spec: { backoffLimit: 2, template: { spec: { ...goodTemplate.spec, restartPolicy: 'Never' } } },
        },
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
        },
        tolerations: [{ operator: 'Exists' }],
        resources: { requests: { memory: '1.5Gi', cpu: 2 } },
        serviceRef: { kind: 'Service', name: 'web', namespace: 'default' },
        secretKey: { name: 's', key: 'k', optional: true },
        pullSecret: { name: 'regcred' },
        env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }],
            },
          },
        },
        maxUnavailable: '25%',
      }),
    });
    const c = created.spec.template.spec.containers[0];
    // ports is a list-map on containerPort+protocol; the API server fills in the key's default.
    assert.deepEqual(c.ports, [{ containerPort: 8080, name: 'http', protocol: 'TCP' }]);
    assert.equal(created.spec.jobTemplate.spec.template.spec.containers[0].ports[0].protocol, 'TCP');
    assert.equal(c.resources.limits.cpu, 1);
    assert.equal(c.livenessProbe.httpGet.port, 'http');
    assert.equal(created.spec.jobTemplate.spec.backoffLimit, 2);
    assert.equal(created.spec.maxUnavailable, '25%');
    // As with controller-gen's `metadata: {type: object}`, the API server prunes the fields of a
    // template's metadata (controller-gen's crd:generateEmbeddedObjectMeta is what keeps them).
    assert.deepEqual(created.spec.template.metadata, {});
  });

  it(`accepts the realistic pod template with the PodTemplateSpec of every older minor (${olderMinors.join(', ')}), filling in the same defaults`, async () => {
    assert.ok(olderMinors.length >= 2, 'the newest three minors are supported');
    for (const v of olderMinors) {
      const created = await rest.request('POST', `/apis/${GROUP}/v1/namespaces/default/${plural(v)}`, {
        body: {
          apiVersion: `${GROUP}/v1`,
          kind: `PodTemplate${v.replace('.', '')}`,
          metadata: { name: 'good' },
          spec: { template: goodTemplate },
        },
      });
      assert.deepEqual(
        created.spec.template.spec.containers[0].ports,
        [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
        v,
      );
      assert.deepEqual(created.spec.template.spec.tolerations, goodTemplate.spec.tolerations, v);
    }
  });

  it('prunes fields the Kubernetes types do not have', async () => {
    const created = await rest.request('POST', path, {
      body: podSet('pruned', {
        template: { spec: { containers: [{ name: 'a', image: 'x', colour: 'blue' }], bogus: 1 } },
      }),
    });
    assert.deepEqual(created.spec.template.spec, { containers: [{ name: 'a', image: 'x' }] });
  });

  it('accepts status conditions in the metav1.Condition shape', async () => {
    await rest.request('POST', path, { body: podSet('cond', { template: { spec: { containers: [{ name: 'a' }] } } }) });
    const current = await rest.get(`${path}/cond`);
    const conditions = [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Up',
        message: 'serving',
        lastTransitionTime: '2026-01-02T03:04:05Z',
        observedGeneration: 1,
      },
    ];
    const updated = await rest.request('PUT', `${path}/cond/status`, { body: { ...current, status: { conditions } } });
    assert.deepEqual(updated.status.conditions, conditions);
    await assert.rejects(
      rest.request('PUT', `${path}/cond/status`, {
        body: { ...updated, status: { conditions: [{ ...conditions[0], lastTransitionTime: 'yesterday' }] } },
      }),
      (e: unknown) => e instanceof StatusError && e.code === 422 && /lastTransitionTime/.test(e.message),
    );
  });

  const rejected: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'a string where int32 containerPort is expected',
      { template: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 'eighty' }] }] } } },
      /spec\.template\.spec\.containers(\[0\])?\.ports(\[0\])?\.containerPort: Invalid value: "string"/,
    ],
    [
      'a Quantity that does not parse',
      { template: { spec: { containers: [{ name: 'a', resources: { limits: { cpu: 'lots' } } }] } } },
      /spec\.template\.spec\.containers(\[0\])?\.resources\.limits\.cpu: Invalid value: "lots": .* should match/,
    ],
    [
      'a container without its required name',
      { template: { spec: { containers: [{ image: 'nginx' }] } } },
      /spec\.template\.spec\.containers(\[0\])?\.name: Required value/,
    ],
    [
      'an object where the containers list is expected',
      { template: { spec: { containers: { name: 'a' } } } },
      /spec\.template\.spec\.containers: Invalid value: "object"/,
    ],
    [
      'a boolean where the IntOrString probe port is expected',
      { template: { spec: { containers: [{ name: 'a', livenessProbe: { tcpSocket: { port: true } } }] } } },
      /spec\.template\.spec\.containers(\[0\])?\.livenessProbe\.tcpSocket\.port: Invalid value: "boolean"/,
    ],
    [
      'a label selector requirement without operator',
      { template: { spec: { containers: [{ name: 'a' }] } }, selector: { matchExpressions: [{ key: 'k' }] } },
      /spec\.selector\.matchExpressions(\[0\])?\.operator: Required value/,
    ],
    [
      'a number where the toleration key string is expected',
      { template: { spec: { containers: [{ name: 'a' }] } }, tolerations: [{ key: 7 }] },
      /spec\.tolerations(\[0\])?\.key: Invalid value: "integer"/,
    ],
    [
      'two ports with the same list-map key (containerPort, protocol defaulted to TCP)',
      {
        template: {
          spec: {
            containers: [
              { name: 'a', ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'TCP', name: 'web' }] },
            ],
          },
        },
      },
      /spec\.template\.spec\.containers(\[0\])?\.ports\[1\]: Duplicate value/,
    ],
    [
      'a repeated value in a set-typed list (podFailurePolicy onExitCodes values)',
      {
        template: { spec: { containers: [{ name: 'a' }] } },
        jobTemplate: {
          spec: {
            template: { spec: { containers: [{ name: 'a' }] } },
            podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1, 1] } }] },
          },
        },
      },
      /spec\.jobTemplate\.spec\.podFailurePolicy\.rules(\[0\])?\.onExitCodes\.values\[1\]: Duplicate value/,
    ],
    [
      'a non-integer int64 (activeDeadlineSeconds)',
      { template: { spec: { containers: [{ name: 'a' }], activeDeadlineSeconds: 1.5 } } },
      // v1.20 names the type ("number"), current servers the value's Go type ("float64").
      /spec\.template\.spec\.activeDeadlineSeconds: Invalid value: "(number|float64)"/,
    ],
  ];
  for (const [what, spec, message] of rejected) {
    it(`rejects ${what}`, async () => {
      await assert.rejects(rest.request('POST', path, { body: podSet('bad', spec) }), (e: unknown) => {
        assert.ok(e instanceof StatusError, String(e));
        assert.equal(e.code, 422, e.message);
        assert.match(e.message, message);
        return true;
      });
    });
  }
});
