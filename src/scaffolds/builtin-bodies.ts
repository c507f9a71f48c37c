/**
 * What a test object of a built-in Kind needs besides apiVersion, kind and metadata, for the
 * scaffolded webhook tests (`create webhook` on a built-in Kind).
 *
 * The Kinds a webhook is most often written for have a hand-written body the API server accepts
 * (test/scaffolds/builtin-kinds.test.ts creates each one with dryRun=All on a real API server).
 * Every other Kind gets a body made from client-node's model (src/schema/k8s): its required fields
 * with placeholder values, which type-check; the generated test says to make them valid.
 */
import { k8sModelSchemaShared } from '../schema/k8s/index.js';

const CONTAINERS = "[{ name: 'test', image: 'busybox' }]";
const TEMPLATE = `{ metadata: { labels: { app: 'test' } }, spec: { containers: ${CONTAINERS} } }`;
const SELECTED = `selector: { matchLabels: { app: 'test' } }, template: ${TEMPLATE}`;
const JOB_TEMPLATE = `{ spec: { restartPolicy: 'Never', containers: ${CONTAINERS} } }`;
const HPA_TARGET = "scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'test' }";

/** Top-level fields (TypeScript source, one `name: value` per entry) of the Kinds written by hand, by `version/Kind` or `Kind`. */
export const VALID_BODIES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // No token controller runs in the test API server either: the Pod mounts no token.
  Pod: { spec: `{ automountServiceAccountToken: false, containers: ${CONTAINERS} }` },
  Deployment: { spec: `{ ${SELECTED} }` },
  StatefulSet: { spec: `{ serviceName: 'test', ${SELECTED} }` },
  DaemonSet: { spec: `{ ${SELECTED} }` },
  ReplicaSet: { spec: `{ ${SELECTED} }` },
  ReplicationController: { spec: `{ selector: { app: 'test' }, template: ${TEMPLATE} }` },
  Job: { spec: `{ template: ${JOB_TEMPLATE} }` },
  CronJob: { spec: `{ schedule: '*/5 * * * *', jobTemplate: { spec: { template: ${JOB_TEMPLATE} } } }` },
  'v1/HorizontalPodAutoscaler': { spec: `{ ${HPA_TARGET}, maxReplicas: 3 }` },
  'v2/HorizontalPodAutoscaler': { spec: `{ ${HPA_TARGET}, maxReplicas: 3 }` },
  Service: { spec: "{ selector: { app: 'test' }, ports: [{ port: 80 }] }" },
  ConfigMap: { data: "{ example: 'value' }" },
  Secret: { stringData: "{ example: 'value' }" },
  ServiceAccount: {},
  Namespace: {},
  PersistentVolumeClaim: { spec: "{ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }" },
  PersistentVolume: {
    spec: "{ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/test' } }",
  },
  Ingress: { spec: "{ defaultBackend: { service: { name: 'test', port: { number: 80 } } } }" },
  IngressClass: { spec: "{ controller: 'example.com/ingress-controller' }" },
  NetworkPolicy: { spec: '{ podSelector: {} }' },
  PodDisruptionBudget: { spec: "{ minAvailable: 1, selector: { matchLabels: { app: 'test' } } }" },
  Role: { rules: "[{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]" },
  ClusterRole: { rules: "[{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]" },
  RoleBinding: {
    roleRef: "{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'test' }",
    subjects: "[{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }]",
  },
  ClusterRoleBinding: {
    roleRef: "{ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'test' }",
    subjects: "[{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }]",
  },
  LimitRange: { spec: "{ limits: [{ type: 'Container', max: { cpu: '1' } }] }" },
  ResourceQuota: { spec: "{ hard: { pods: '10' } }" },
  PriorityClass: { value: '1000' },
  Lease: { spec: "{ holderIdentity: 'test' }" },
  StorageClass: { provisioner: "'example.com/provisioner'" },
  PodTemplate: { template: TEMPLATE },
  Endpoints: {},
  EndpointSlice: { addressType: "'IPv4'", endpoints: "[{ addresses: ['10.0.0.1'] }]" },
  RuntimeClass: { handler: "'runc'" },
  // data is mandatory (the server says so); client-node's type also requires revision, the Go type does not.
  ControllerRevision: { data: '{}', revision: '1' },
};

/** The hand-written body of a Kind, if it has one. */
export function validBody(version: string, kind: string): Readonly<Record<string, string>> | undefined {
  return VALID_BODIES[`${version}/${kind}`] ?? VALID_BODIES[kind];
}

type Schema = {
  type?: string;
  format?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
};

/** A value of `schema` that type-checks as client-node's type: required fields only, placeholders. */
function placeholder(schema: Schema | undefined, depth = 0): string {
  if (!schema || depth > 8) return '{}';
  if (schema['x-kubernetes-int-or-string']) return "'example'";
  switch (schema.type) {
    case 'string':
      return schema.format === 'date-time' ? 'new Date()' : "'example'";
    case 'integer':
    case 'number':
      return '1';
    case 'boolean':
      return 'false';
    case 'array':
      return `[${placeholder(schema.items, depth + 1)}]`;
    default: {
      const required = schema.required ?? [];
      if (!required.length) return '{}';
      return `{ ${required.map((name) => `${/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`}: ${placeholder(schema.properties?.[name], depth + 1)}`).join(', ')} }`;
    }
  }
}

/** The body of a Kind made from its client-node model: its required top-level fields (TypeMeta and metadata aside) with placeholder values. */
export function placeholderBody(model: string): Record<string, string> {
  const schema = k8sModelSchemaShared(model, { descriptions: false }) as Schema | undefined;
  const out: Record<string, string> = {};
  for (const name of schema?.required ?? [])
    if (!['apiVersion', 'kind', 'metadata'].includes(name)) out[name] = placeholder(schema?.properties?.[name]);
  return out;
}
