/**
 * Discovery as kube-apiserver serves it, from the resources the fake serves: `/api` and `/apis`
 * (the legacy APIVersions / APIGroupList, or the aggregated APIGroupDiscoveryList when the Accept
 * header asks for apidiscovery.k8s.io), and a group/version's APIResourceList with the status and
 * scale subresources. Versions in Kubernetes' priority order (GA, beta, alpha; higher first).
 */
import type { Resource } from './resources.js';

/** The verbs of a resource that is stored (a review or Binding is only created). */
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const verbsOf = (r: Resource) => (r.createOnly ? ['create'] : VERBS);

/** The versions of `group`, preferred first. */
function versionsOf(resources: readonly Resource[], group: string): string[] {
  const out: string[] = [];
  for (const r of resources) if (r.group === group && !out.includes(r.version)) out.push(r.version);
  return out.sort((a, b) => versionPriority(b) - versionPriority(a) || (a < b ? -1 : 1));
}

/** The named groups served, in the order they were first served. */
function groups(resources: readonly Resource[]): string[] {
  const out: string[] = [];
  for (const r of resources) if (r.group && !out.includes(r.group)) out.push(r.group);
  return out;
}

/** Whether `group/version` serves anything (its discovery document exists). */
export function servesGroupVersion(resources: Iterable<Resource>, group: string, version: string): boolean {
  return [...resources].some((r) => r.group === group && r.version === version);
}

/** `/api` or `/apis`: legacy, or aggregated when `accept` asks for apidiscovery.k8s.io. */
export function discoveryRoot(root: '/api' | '/apis', accept: string, served: Iterable<Resource>): unknown {
  const resources = [...served];
  const gs = root === '/api' ? [''] : groups(resources);
  if (accept.includes('apidiscovery.k8s.io')) return aggregated(resources, gs);
  if (root === '/api')
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
    };
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: gs.map((g) => {
      const versions = versionsOf(resources, g).map((v) => ({ groupVersion: `${g}/${v}`, version: v }));
      return { name: g, versions, preferredVersion: versions[0] };
    }),
  };
}

/** The aggregated discovery document (apidiscovery.k8s.io/v2) of `gs`. */
function aggregated(resources: readonly Resource[], gs: string[]): unknown {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: gs.map((g) => ({
      metadata: g ? { name: g } : {},
      versions: versionsOf(resources, g).map((v) => ({
        version: v,
        resources: resources
          .filter((r) => r.group === g && r.version === v)
          .map((r) => ({
            resource: r.plural,
            responseKind: { group: g, version: v, kind: r.kind },
            scope: r.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: r.singular,
            verbs: verbsOf(r),
          })),
        freshness: 'Current',
      })),
    })),
  };
}

/** A group/version's APIResourceList (`path`: `/api/v1` or `/apis/<group>/<version>`). */
export function resourceList(path: string, served: Iterable<Resource>): unknown {
  const parts = path.split('/').filter(Boolean);
  const group = parts[0] === 'api' ? '' : parts[1];
  const version = parts[0] === 'api' ? parts[1] : parts[2];
  const resources: unknown[] = [];
  for (const r of served) {
    if (r.group !== group || r.version !== version) continue;
    resources.push({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: verbsOf(r),
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
    });
    if (r.status)
      resources.push({
        name: `${r.plural}/status`,
        singularName: '',
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      });
    if (r.scale)
      resources.push({
        name: `${r.plural}/scale`,
        singularName: '',
        namespaced: r.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

/** Kubernetes' version priority: GA > beta > alpha, higher numbers first. */
function versionPriority(v: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return 0;
  const major = Number(m[1]);
  if (!m[2]) return 3_000_000 + major * 1000;
  return (m[2] === 'beta' ? 2_000_000 : 1_000_000) + major * 1000 + Number(m[3]);
}
