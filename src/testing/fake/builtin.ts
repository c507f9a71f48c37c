/**
 * What the API server does to the built-in Kinds an operator writes most (Deployments,
 * StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs, Pods, Services, Secrets,
 * PersistentVolumeClaims) besides storing them:
 *  - the defaults of their Go types (Kubernetes' `SetDefaults_*` functions and `+default`
 *    markers, run on every write), so that a reconciler comparing what it wants with what it
 *    reads sees the same fields it would see on a cluster (`imagePullPolicy`, probe timings,
 *    `strategy`, `revisionHistoryLimit`, `targetPort`...);
 *  - the empty status their Go structs always print, and the status a create starts from;
 *  - on create, what their registry strategies and the test control plane's admission plugins
 *    add: a Job's selector and labels, a DaemonSet's template generation annotation, a Service's
 *    cluster IP, a PersistentVolumeClaim's protection finalizer, and for a Pod its service account
 *    (refused when it does not exist, as no controller creates `default` in a test control
 *    plane), the service-account token volume, priority, default tolerations and QoS class.
 * Each behaviour is a scenario of test/fake's differential suite, judged by a real kube-apiserver.
 * Not done (docs/testing.md, "Testing without an API server"): quantities are kept as written (the server
 * prints them canonically: 0.5 -> 500m), a false / 0 / "" of a Go field that is not a pointer is
 * kept (the server drops it), and the built-in Kinds' validation beyond metadata.
 */
import { randomBytes } from 'node:crypto';
import type { Resource } from './resources.js';
import { forbidden } from './status.js';
import { childObject, type Obj, isObj } from '../../apiserver/json.js';

const obj = childObject;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const unset = (o: Obj, key: string) => o[key] === undefined || o[key] === null;
const empty = (o: Obj, key: string) => unset(o, key) || o[key] === '';
function orDefault(o: Obj, key: string, value: unknown, when: (o: Obj, key: string) => boolean = unset): void {
  if (when(o, key)) o[key] = value;
}

/** The Kind's key in the tables below: `group/Kind`, the core group empty. */
const gk = (r: Resource) => `${r.group}/${r.kind}`;

/** The status the Kind's Go struct prints when nothing is set (fields that are not omitempty). */
const ZERO_STATUS: Record<string, () => Obj> = {
  'apps/Deployment': () => ({}),
  'apps/StatefulSet': () => ({ replicas: 0, availableReplicas: 0 }),
  'apps/DaemonSet': () => ({
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  }),
  'apps/ReplicaSet': () => ({ replicas: 0 }),
  'batch/Job': () => ({}),
  'batch/CronJob': () => ({}),
  '/Service': () => ({ loadBalancer: {} }),
  '/PersistentVolumeClaim': () => ({ phase: 'Pending' }),
};

/** Kinds whose create starts from an empty status (their strategy's PrepareForCreate), whatever the body says. */
const STATUS_RESET_ON_CREATE = new Set([
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'batch/Job',
  'batch/CronJob',
  '/Pod',
  '/Service',
  '/PersistentVolumeClaim',
  '/ReplicationController',
]);

/** The defaults of the built-in Kind's Go type, applied to every object written (`o` is changed). */
export function defaultBuiltin(r: Resource, o: Obj): void {
  const spec = isObj(o.spec) ? o.spec : undefined;
  switch (gk(r)) {
    case 'apps/Deployment':
      if (spec) {
        orDefault(spec, 'replicas', 1);
        const strategy = obj(spec, 'strategy');
        orDefault(strategy, 'type', 'RollingUpdate', empty);
        if (strategy.type === 'RollingUpdate') {
          const ru = obj(strategy, 'rollingUpdate');
          orDefault(ru, 'maxUnavailable', '25%');
          orDefault(ru, 'maxSurge', '25%');
        }
        orDefault(spec, 'revisionHistoryLimit', 10);
        orDefault(spec, 'progressDeadlineSeconds', 600);
        podTemplateDefaults(spec);
      }
      break;
    case 'apps/StatefulSet':
      if (spec) {
        orDefault(spec, 'podManagementPolicy', 'OrderedReady', empty);
        const strategy = obj(spec, 'updateStrategy');
        if (empty(strategy, 'type')) {
          strategy.type = 'RollingUpdate';
          orDefault(strategy, 'rollingUpdate', {});
        }
        if (strategy.type === 'RollingUpdate' && isObj(strategy.rollingUpdate)) {
          orDefault(strategy.rollingUpdate, 'partition', 0);
          orDefault(strategy.rollingUpdate, 'maxUnavailable', 1);
        }
        const retention = obj(spec, 'persistentVolumeClaimRetentionPolicy');
        orDefault(retention, 'whenDeleted', 'Retain', empty);
        orDefault(retention, 'whenScaled', 'Retain', empty);
        orDefault(spec, 'replicas', 1);
        orDefault(spec, 'revisionHistoryLimit', 10);
        podTemplateDefaults(spec);
        for (const claim of list(spec.volumeClaimTemplates)) {
          // A claim template is printed as a whole PersistentVolumeClaim, its defaults included.
          orDefault(claim, 'apiVersion', 'v1', empty);
          orDefault(claim, 'kind', 'PersistentVolumeClaim', empty);
          orDefault(claim, 'metadata', {});
          pvcSpecDefaults(obj(claim, 'spec'));
          orDefault(obj(claim, 'status'), 'phase', 'Pending', empty);
        }
      }
      break;
    case 'apps/DaemonSet':
      if (spec) {
        const strategy = obj(spec, 'updateStrategy');
        orDefault(strategy, 'type', 'RollingUpdate', empty);
        if (strategy.type === 'RollingUpdate') {
          const ru = obj(strategy, 'rollingUpdate');
          orDefault(ru, 'maxUnavailable', 1);
          orDefault(ru, 'maxSurge', 0);
        }
        orDefault(spec, 'revisionHistoryLimit', 10);
        podTemplateDefaults(spec);
      }
      break;
    case 'apps/ReplicaSet':
      if (spec) {
        orDefault(spec, 'replicas', 1);
        podTemplateDefaults(spec);
      }
      break;
    case '/ReplicationController':
      if (spec) {
        orDefault(spec, 'replicas', 1);
        podTemplateDefaults(spec);
      }
      break;
    case 'batch/Job':
      if (spec) jobDefaults(o, spec);
      break;
    case 'batch/CronJob':
      if (spec) {
        orDefault(spec, 'concurrencyPolicy', 'Allow', empty);
        orDefault(spec, 'suspend', false);
        orDefault(spec, 'successfulJobsHistoryLimit', 3);
        orDefault(spec, 'failedJobsHistoryLimit', 1);
        // The job template's ObjectMeta and its pod template's are structs: printed even when empty.
        const jobTemplate = obj(spec, 'jobTemplate');
        orDefault(jobTemplate, 'metadata', {});
        podTemplateDefaults(obj(jobTemplate, 'spec'));
      }
      break;
    case '/PodTemplate':
      if (isObj(o.template)) podSpecDefaults(obj(o.template, 'spec'), false);
      break;
    case '/Pod':
      if (spec) podDefaults(spec);
      break;
    case '/Service':
      if (spec) serviceDefaults(spec);
      break;
    case '/Secret':
      orDefault(o, 'type', 'Opaque', empty);
      // stringData is write-only: merged into data (base64), its keys winning.
      if (isObj(o.stringData)) {
        const data = obj(o, 'data');
        for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
      }
      delete o.stringData;
      break;
    case '/PersistentVolumeClaim':
      if (spec) pvcSpecDefaults(spec);
      break;
    case '/PersistentVolume':
      if (spec) {
        orDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain', empty);
        orDefault(spec, 'volumeMode', 'Filesystem');
      }
      orDefault(obj(o, 'status'), 'phase', 'Pending', empty);
      break;
  }
  const zero = ZERO_STATUS[gk(r)];
  if (zero) o.status = { ...zero(), ...(isObj(o.status) ? o.status : {}) };
}

/** A create's status: reset by the Kind's strategy (the caller then applies {@link defaultBuiltin}). */
export function resetStatusOnCreate(r: Resource, o: Obj): void {
  if (STATUS_RESET_ON_CREATE.has(gk(r))) delete o.status;
}

function jobDefaults(o: Obj, spec: Obj): void {
  if (unset(spec, 'completions') && unset(spec, 'parallelism')) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  orDefault(spec, 'parallelism', 1);
  orDefault(spec, 'backoffLimit', unset(spec, 'backoffLimitPerIndex') ? 6 : 2147483647);
  const meta = obj(o, 'metadata');
  const templateLabels =
    isObj(spec.template) && isObj((spec.template as Obj).metadata)
      ? ((spec.template as Obj).metadata as Obj).labels
      : undefined;
  if (isObj(templateLabels) && !(isObj(meta.labels) && Object.keys(meta.labels).length))
    meta.labels = { ...templateLabels };
  orDefault(spec, 'completionMode', 'NonIndexed');
  orDefault(spec, 'suspend', false);
  orDefault(spec, 'podReplacementPolicy', unset(spec, 'podFailurePolicy') ? 'TerminatingOrFailed' : 'Failed');
  orDefault(spec, 'manualSelector', false);
  podTemplateDefaults(spec);
}

/** `spec.template` of a workload: a PodTemplateSpec, whose ObjectMeta is printed even when empty. */
function podTemplateDefaults(spec: Obj): void {
  const template = obj(spec, 'template');
  orDefault(template, 'metadata', {});
  podSpecDefaults(obj(template, 'spec'), false);
}

/** A Pod's own defaults (SetDefaults_Pod) before those of its spec. */
function podDefaults(spec: Obj): void {
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0)
    spec.terminationGracePeriodSeconds = 1;
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
    const resources = isObj(c.resources) ? c.resources : undefined;
    if (resources && isObj(resources.limits)) {
      const requests = obj(resources, 'requests');
      for (const [k, v] of Object.entries(resources.limits)) if (!(k in requests)) requests[k] = v;
    }
  }
  orDefault(spec, 'enableServiceLinks', true);
  podSpecDefaults(spec, true);
}

/** SetDefaults_PodSpec and the defaults of what a pod spec holds: containers, probes, volumes. */
function podSpecDefaults(spec: Obj, _pod: boolean): void {
  if (empty(spec, 'serviceAccountName') && !empty(spec, 'serviceAccount'))
    spec.serviceAccountName = spec.serviceAccount;
  if (!empty(spec, 'serviceAccountName')) spec.serviceAccount = spec.serviceAccountName;
  orDefault(spec, 'dnsPolicy', 'ClusterFirst', empty);
  orDefault(spec, 'restartPolicy', 'Always', empty);
  orDefault(spec, 'securityContext', {});
  orDefault(spec, 'terminationGracePeriodSeconds', 30);
  orDefault(spec, 'schedulerName', 'default-scheduler', empty);
  for (const v of list(spec.volumes)) volumeDefaults(v);
  for (const c of [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)])
    containerDefaults(c);
}

function containerDefaults(c: Obj): void {
  orDefault(c, 'imagePullPolicy', imageTag(String(c.image ?? '')) === 'latest' ? 'Always' : 'IfNotPresent', empty);
  orDefault(c, 'terminationMessagePath', '/dev/termination-log', empty);
  orDefault(c, 'terminationMessagePolicy', 'File', empty);
  // ResourceRequirements is a struct: printed as {} when empty.
  orDefault(c, 'resources', {});
  for (const p of list(c.ports)) orDefault(p, 'protocol', 'TCP', empty);
  for (const e of list(c.env)) {
    const from = isObj(e.valueFrom) ? e.valueFrom : undefined;
    if (from && isObj(from.fieldRef)) fieldRefDefaults(from.fieldRef);
    if (from && isObj(from.fileKeyRef)) orDefault(from.fileKeyRef, 'optional', false);
  }
  for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const probe = c[key];
    if (!isObj(probe)) continue;
    for (const [field, value] of [
      ['timeoutSeconds', 1],
      ['periodSeconds', 10],
      ['successThreshold', 1],
      ['failureThreshold', 3],
    ] as const)
      orDefault(probe, field, value, (o, k) => unset(o, k) || o[k] === 0);
    if (isObj(probe.httpGet)) httpGetDefaults(probe.httpGet);
    if (isObj(probe.grpc)) orDefault(probe.grpc, 'service', '');
  }
  if (isObj(c.lifecycle)) {
    for (const hook of ['postStart', 'preStop']) {
      const handler = c.lifecycle[hook];
      if (isObj(handler) && isObj(handler.httpGet)) httpGetDefaults(handler.httpGet);
    }
  }
}

function httpGetDefaults(h: Obj): void {
  orDefault(h, 'path', '/', empty);
  orDefault(h, 'scheme', 'HTTP', empty);
}

function fieldRefDefaults(f: Obj): void {
  orDefault(f, 'apiVersion', 'v1', empty);
}

/** The volume sources a pod spec usually has; one with no source at all is an emptyDir. */
function volumeDefaults(v: Obj): void {
  const sources = Object.keys(v).filter((k) => k !== 'name' && isObj(v[k]));
  if (!sources.length) v.emptyDir = {};
  if (isObj(v.hostPath)) orDefault(v.hostPath, 'type', '');
  if (isObj(v.secret)) orDefault(v.secret, 'defaultMode', 420);
  if (isObj(v.configMap)) orDefault(v.configMap, 'defaultMode', 420);
  if (isObj(v.downwardAPI)) {
    orDefault(v.downwardAPI, 'defaultMode', 420);
    for (const item of list(v.downwardAPI.items)) if (isObj(item.fieldRef)) fieldRefDefaults(item.fieldRef);
  }
  if (isObj(v.projected)) {
    orDefault(v.projected, 'defaultMode', 420);
    for (const source of list(v.projected.sources)) {
      if (isObj(source.downwardAPI))
        for (const item of list(source.downwardAPI.items)) if (isObj(item.fieldRef)) fieldRefDefaults(item.fieldRef);
      if (isObj(source.serviceAccountToken)) orDefault(source.serviceAccountToken, 'expirationSeconds', 3600);
    }
  }
  if (isObj(v.ephemeral) && isObj(v.ephemeral.volumeClaimTemplate))
    pvcSpecDefaults(obj(v.ephemeral.volumeClaimTemplate, 'spec'));
}

function pvcSpecDefaults(spec: Obj): void {
  orDefault(spec, 'volumeMode', 'Filesystem');
}

function serviceDefaults(spec: Obj): void {
  orDefault(spec, 'sessionAffinity', 'None', empty);
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = isObj(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : undefined;
    const clientIP = cfg && isObj(cfg.clientIP) ? cfg.clientIP : undefined;
    if (!clientIP || unset(clientIP, 'timeoutSeconds'))
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  orDefault(spec, 'type', 'ClusterIP', empty);
  for (const p of list(spec.ports)) {
    orDefault(p, 'protocol', 'TCP', empty);
    if (unset(p, 'targetPort') || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const external =
    spec.type === 'NodePort' ||
    spec.type === 'LoadBalancer' ||
    (Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (external) orDefault(spec, 'externalTrafficPolicy', 'Cluster', empty);
  if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(String(spec.type)))
    orDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') orDefault(spec, 'allocateLoadBalancerNodePorts', true);
}

/** The tag of an image reference as Kubernetes' ParseImageName gives it: "latest" when it has neither tag nor digest. */
export function imageTag(image: string): string {
  if (image.includes('@')) {
    const named = image.slice(0, image.indexOf('@'));
    const tag = tagOf(named);
    return tag ?? '';
  }
  return tagOf(image) ?? 'latest';
}

function tagOf(ref: string): string | undefined {
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : undefined;
}

/** What the fake's store lets a create's admission look up. */
export interface Admission {
  /** The object of `kind` (a core v1 Kind) named `name` in `namespace`, if stored. */
  find(kind: string, namespace: string, name: string): Obj | undefined;
  /** The next free cluster IP of the service range. */
  allocateClusterIP(): string;
}

/**
 * The admission plugins of a test control plane on a create (ServiceAccount, Priority,
 * DefaultTolerationSeconds, StorageObjectInUseProtection), before validation: may refuse (403).
 */
export function admitBuiltinCreate(r: Resource, o: Obj, admission: Admission): void {
  const meta = obj(o, 'metadata');
  const spec = isObj(o.spec) ? o.spec : undefined;
  switch (gk(r)) {
    case '/Pod': {
      if (!spec) return;
      const namespace = String(meta.namespace ?? '');
      if (empty(spec, 'serviceAccountName')) spec.serviceAccountName = 'default';
      const saName = String(spec.serviceAccountName);
      const sa = admission.find('ServiceAccount', namespace, saName);
      if (!sa)
        throw forbidden(
          r,
          String(meta.name ?? ''),
          `error looking up service account ${namespace}/${saName}: serviceaccount "${saName}" not found`,
        );
      spec.serviceAccount = saName;
      if (spec.automountServiceAccountToken !== false && sa.automountServiceAccountToken !== false)
        mountServiceAccountToken(spec);
      if (empty(spec, 'priorityClassName')) {
        orDefault(spec, 'priority', 0);
        orDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority', empty);
      }
      const tolerations = list(spec.tolerations);
      for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
        if (
          tolerations.some(
            (t) =>
              (t.key === key || (empty(t, 'key') && t.operator === 'Exists')) &&
              (empty(t, 'effect') || t.effect === 'NoExecute'),
          )
        )
          continue;
        tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
      }
      spec.tolerations = tolerations;
      return;
    }
    case '/PersistentVolumeClaim':
    case '/PersistentVolume': {
      const finalizer = r.kind === 'PersistentVolume' ? 'kubernetes.io/pv-protection' : 'kubernetes.io/pvc-protection';
      const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : [];
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
      return;
    }
  }
}

/** What a create's registry strategy adds once the object has its uid (Job selector, Service IP, ...). */
export function prepareBuiltinCreate(r: Resource, o: Obj, admission: Admission): void {
  const meta = obj(o, 'metadata');
  const spec = isObj(o.spec) ? o.spec : undefined;
  switch (gk(r)) {
    case 'batch/Job':
      if (spec && spec.manualSelector !== true) {
        const template = obj(spec, 'template');
        const labels = obj(obj(template, 'metadata'), 'labels');
        for (const key of ['job-name', 'batch.kubernetes.io/job-name'])
          orDefault(labels, key, meta.name, (x, k) => !(k in x));
        for (const key of ['controller-uid', 'batch.kubernetes.io/controller-uid'])
          orDefault(labels, key, meta.uid, (x, k) => !(k in x));
        const matchLabels = obj(obj(spec, 'selector'), 'matchLabels');
        orDefault(matchLabels, 'batch.kubernetes.io/controller-uid', meta.uid, (x, k) => !(k in x));
        // The defaults run again when the Job is read back: its labels are the template's now.
        if (!(isObj(meta.labels) && Object.keys(meta.labels).length)) meta.labels = { ...labels };
      }
      return;
    case 'apps/DaemonSet':
      meta.annotations = {
        ...(isObj(meta.annotations) ? meta.annotations : {}),
        'deprecated.daemonset.template.generation': '1',
      };
      return;
    case '/Service':
      if (spec) allocateServiceIPs(spec, admission);
      return;
    case '/Pod':
      if (spec) o.status = { phase: 'Pending', qosClass: qosClass(spec) };
      return;
  }
}

/** An update of a Service without its cluster IP keeps the allocated one. */
export function prepareBuiltinUpdate(r: Resource, o: Obj, old: Obj): void {
  if (gk(r) === '/Namespace') {
    // namespaceStrategy.PrepareForUpdate keeps spec.finalizers; the name label is always set.
    const spec = obj(o, 'spec');
    if (isObj(old.spec) && old.spec.finalizers !== undefined) spec.finalizers = structuredClone(old.spec.finalizers);
    else delete spec.finalizers;
    if (Object.keys(spec).length === 0) delete o.spec;
    const m = obj(o, 'metadata');
    m.labels = { ...(isObj(m.labels) ? m.labels : {}), 'kubernetes.io/metadata.name': m.name };
    return;
  }
  if (gk(r) !== '/Service' || !isObj(o.spec) || !isObj(old.spec)) return;
  for (const key of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'])
    if (empty(o.spec, key) && !unset(old.spec, key)) o.spec[key] = structuredClone(old.spec[key]);
}

function allocateServiceIPs(spec: Obj, admission: Admission): void {
  if (spec.type === 'ExternalName') return;
  if (empty(spec, 'clusterIP'))
    spec.clusterIP =
      Array.isArray(spec.clusterIPs) && spec.clusterIPs.length ? spec.clusterIPs[0] : admission.allocateClusterIP();
  orDefault(spec, 'clusterIPs', [spec.clusterIP], (o, k) => !Array.isArray(o[k]) || (o[k] as unknown[]).length === 0);
  orDefault(spec, 'ipFamilies', ['IPv4'], (o, k) => !Array.isArray(o[k]) || (o[k] as unknown[]).length === 0);
  orDefault(spec, 'ipFamilyPolicy', 'SingleStack', empty);
}

/** The ServiceAccount admission plugin's projected token volume, mounted in every container. */
function mountServiceAccountToken(spec: Obj): void {
  const path = '/var/run/secrets/kubernetes.io/serviceaccount';
  const containers = [...list(spec.initContainers), ...list(spec.containers)];
  const volumes = list(spec.volumes);
  if (volumes.some((v) => String(v.name ?? '').startsWith('kube-api-access-'))) return;
  const name = `kube-api-access-${randomSuffix(5)}`;
  let mounted = false;
  for (const c of containers) {
    const mounts = list(c.volumeMounts);
    if (mounts.some((m) => m.mountPath === path)) continue;
    c.volumeMounts = [...mounts, { name, readOnly: true, mountPath: path }];
    mounted = true;
  }
  if (!mounted) return;
  spec.volumes = [
    ...volumes,
    {
      name,
      projected: {
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          {
            downwardAPI: {
              items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
            },
          },
        ],
        defaultMode: 420,
      },
    },
  ];
}

/** The letters Kubernetes' utilrand.String draws from (no vowels, no look-alikes). */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(n: number): string {
  let s = '';
  for (const b of randomBytes(n)) s += ALPHANUMS[b % ALPHANUMS.length];
  return s;
}

/** The Pod's QoS class from the cpu and memory requests and limits of its containers (GetPodQOS). */
function qosClass(spec: Obj): string {
  const containers = [...list(spec.initContainers), ...list(spec.containers)];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = isObj(c.resources) ? c.resources : {};
    const requests = isObj(res.requests) ? res.requests : {};
    const limits = isObj(res.limits) ? res.limits : {};
    for (const k of ['cpu', 'memory']) {
      if (isNonZero(requests[k]) || isNonZero(limits[k])) any = true;
      if (!isNonZero(limits[k]) || (k in requests && String(requests[k]) !== String(limits[k]))) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function isNonZero(q: unknown): boolean {
  return q !== undefined && q !== null && !/^[+]?0*(\.0*)?([a-zA-Z]+)?$/.test(String(q));
}
