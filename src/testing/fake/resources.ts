/**
 * What the fake API server serves: the built-in resources of a current kube-apiserver (from the
 * discovery table the project keeps) and the custom resources of the CRDs it was given, with what
 * the server's strategy for each does differently (generation, status subresource, updates
 * without a resourceVersion, field selectors).
 */
import { CORE_GROUPS } from '../../apiserver/builtin-kinds.js';
import type { Schema } from '../../apiserver/structural.js';
import type { Obj } from '../../apiserver/json.js';
import { eventFromCore, eventToCore } from './events.js';

/** The scale subresource of a resource that serves one. */
export function scaleOf(r: Resource): NonNullable<Resource['scale']> {
  if (!r.scale) throw new Error(`fake API server: ${r.plural} has no scale subresource`);
  return r.scale;
}

/** One served resource of one group/version. */
export interface Resource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  /** group/plural: the storage shared by every version. */
  storageKey: string;
  /** The CRD version's schema (custom resources only). */
  schema?: Schema;
  /** Its CRD is being deleted: creates are forbidden (apiextensions' forbidCreateAdmission). */
  terminating?: boolean;
  /** The storage version's schema: its defaults apply to whatever is read from storage (custom resources only). */
  storageSchema?: Schema;
  /** The client-node model of a built-in Kind (its Go type, for decoding: ./decode.ts). */
  model?: string;
  /** The schema has x-kubernetes-validations (CEL rules) somewhere. */
  hasRules?: boolean;
  custom: boolean;
  /** Only created, never stored or read (the reviews, Binding): the API server answers other verbs 405. */
  createOnly?: boolean;
  /** metadata.generation is kept and bumped on spec changes. */
  generation: boolean;
  /** A status subresource exists: the main resource ignores status, /status the rest. */
  status: boolean;
  /** The scale subresource's paths (custom resources with subresources.scale). */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** PUT without metadata.resourceVersion is allowed (most built-ins; never custom resources). */
  unconditionalUpdate: boolean;
  /** Field selectors the server supports besides metadata.name and metadata.namespace. */
  selectableFields: string[];
  shortNames: string[];
  categories: string[];
  /** A view of another resource's storage (events.k8s.io Events are core Events): how objects convert. */
  view?: { toStorage(o: Obj): Obj; fromStorage(o: Obj): Obj };
}

/** Built-in Kinds whose strategy keeps metadata.generation. */
const WITH_GENERATION = new Set([
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'batch/Job',
  'batch/CronJob',
  '/ReplicationController',
  'policy/PodDisruptionBudget',
  'autoscaling/HorizontalPodAutoscaler',
  'networking.k8s.io/NetworkPolicy',
  'networking.k8s.io/Ingress',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'apiextensions.k8s.io/CustomResourceDefinition',
  '/Pod',
]);

/** Built-in Kinds with a status subresource. */
const WITH_STATUS = new Set([
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'batch/Job',
  'batch/CronJob',
  '/Pod',
  '/Service',
  '/Node',
  '/Namespace',
  '/PersistentVolume',
  '/PersistentVolumeClaim',
  '/ReplicationController',
  '/ResourceQuota',
  'policy/PodDisruptionBudget',
  'autoscaling/HorizontalPodAutoscaler',
  'networking.k8s.io/Ingress',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'certificates.k8s.io/CertificateSigningRequest',
]);

/** Built-in Kinds with a scale subresource (the Scale's selector is their spec.selector, formatted). */
const WITH_SCALE = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/ReplicaSet']);

/** Built-in field selectors (the server's per-type field label conversion funcs). */
const BUILTIN_FIELDS: Record<string, string[]> = {
  '/Pod': [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.podIPs',
    'status.nominatedNodeName',
  ],
  '/Secret': ['type'],
  '/Event': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  'events.k8s.io/Event': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  '/Namespace': ['status.phase'],
  '/Node': ['spec.unschedulable'],
  '/ReplicationController': ['status.replicas'],
  'apps/ReplicaSet': ['status.replicas'],
  'batch/Job': ['status.successful'],
  'certificates.k8s.io/CertificateSigningRequest': ['spec.signerName'],
};

const ALWAYS_UNCONDITIONAL_FALSE = new Set(['coordination.k8s.io/Lease']);

export interface BuiltinRow {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  model?: string;
}

/** Built-in Kinds the API server only creates (group/Kind): their discovery verbs are ["create"]. */
const CREATE_ONLY = new Set([
  'authentication.k8s.io/TokenReview',
  'authentication.k8s.io/SelfSubjectReview',
  'authorization.k8s.io/SubjectAccessReview',
  'authorization.k8s.io/SelfSubjectAccessReview',
  'authorization.k8s.io/SelfSubjectRulesReview',
  'authorization.k8s.io/LocalSubjectAccessReview',
  '/Binding',
]);

/** The API group of a short group name of the built-in table ('core' is the empty group). */
export function fullGroup(short: string): string {
  return CORE_GROUPS[short] ?? (short === 'internal' ? 'internal.apiserver.k8s.io' : short);
}

/** A built-in resource from a discovery row (`group` as the table spells it: 'core', 'apps', 'rbac'...). */
export function builtinResource(row: BuiltinRow): Resource {
  // The full group from the one table of Kubernetes' groups (rbac is rbac.authorization.k8s.io,
  // flowcontrol flowcontrol.apiserver.k8s.io: spelling them `<short>.k8s.io` served ClusterRoles at a
  // path the API server does not have).
  const group = fullGroup(row.group);
  const gk = `${group}/${row.kind}`;
  // events.k8s.io/v1 Events are the core Events, stored once and shown through both APIs.
  const eventsView = gk === 'events.k8s.io/Event';
  return {
    group,
    version: row.version,
    kind: row.kind,
    plural: row.plural,
    singular: row.kind.toLowerCase(),
    namespaced: row.namespaced,
    storageKey: eventsView ? '/events' : `${group}/${row.plural}`,
    ...(eventsView ? { view: { toStorage: eventToCore, fromStorage: eventFromCore } } : {}),
    model: row.model,
    custom: false,
    createOnly: CREATE_ONLY.has(gk) || undefined,
    generation: WITH_GENERATION.has(gk),
    status: WITH_STATUS.has(gk),
    ...(WITH_SCALE.has(gk)
      ? {
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.spec.selector',
          },
        }
      : {}),
    unconditionalUpdate: !ALWAYS_UNCONDITIONAL_FALSE.has(gk),
    selectableFields: BUILTIN_FIELDS[gk] ?? [],
    shortNames: [],
    categories: [],
  };
}

/** The resources of one CRD (apiextensions.k8s.io/v1), one per served version. */
export function crdResources(crd: Obj): Resource[] {
  const spec = (crd.spec ?? {}) as Obj;
  const names = (spec.names ?? {}) as Obj;
  const group = String(spec.group ?? '');
  const plural = String(names.plural ?? '');
  const out: Resource[] = [];
  const stored = ((spec.versions ?? []) as Obj[]).find((v) => v.name === storageVersion(crd));
  const storageSchema = (stored?.schema as Obj | undefined)?.openAPIV3Schema as Schema | undefined;
  for (const v of (spec.versions ?? []) as Obj[]) {
    if (v.served === false) continue;
    const sub = (v.subresources ?? {}) as Obj;
    const scale = sub.scale as Resource['scale'] | undefined;
    const schema = ((v.schema as Obj | undefined)?.openAPIV3Schema ?? {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    }) as Schema;
    out.push({
      group,
      version: String(v.name),
      kind: String(names.kind ?? ''),
      plural,
      singular: String(names.singular ?? String(names.kind ?? '').toLowerCase()),
      namespaced: spec.scope !== 'Cluster',
      storageKey: `${group}/${plural}`,
      schema,
      storageSchema,
      hasRules: JSON.stringify(schema).includes('"x-kubernetes-validations"'),
      custom: true,
      generation: true,
      status: sub.status !== undefined,
      scale,
      unconditionalUpdate: false,
      selectableFields: ((v.selectableFields ?? []) as { jsonPath: string }[]).map((f) =>
        f.jsonPath.replace(/^\./, ''),
      ),
      shortNames: ((names.shortNames ?? []) as string[]).slice(),
      categories: ((names.categories ?? []) as string[]).slice(),
    });
  }
  return out;
}

/** The storage version of a CRD (the version objects are kept in). */
export function storageVersion(crd: Obj): string | undefined {
  const versions = (((crd.spec ?? {}) as Obj).versions ?? []) as Obj[];
  return String(versions.find((v) => v.storage === true)?.name ?? versions[0]?.name ?? '') || undefined;
}
