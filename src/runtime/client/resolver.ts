/**
 * Resolves type handles to REST coordinates: built-in table and class statics first, API
 * discovery (one request per group/version, cached) for the rest.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ResourceInfo, TypeRef } from '../contracts.js';
import { NotFoundError, isNotFound } from './errors.js';
import type { RestClient } from './rest.js';
import { isResolved, registerType, resolveStatic, splitAPIVersion } from './types.js';

interface APIResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

/** Caches discovery per group/version. Rejects with NotFoundError ("no matches for kind") for unknown kinds. */
export class Resolver {
  private readonly discovery = new Map<string, Promise<APIResourceList>>();
  constructor(private readonly rest: RestClient) {}

  /** Resolves a type, descriptor or object; see class doc for errors. */
  async resolve(ref: TypeRef | KubernetesObject): Promise<ResourceInfo> {
    const s = resolveStatic(ref);
    if (isResolved(s)) return s;
    const { group, version } = splitAPIVersion(s.apiVersion);
    let p = this.discovery.get(s.apiVersion);
    if (!p) {
      p = this.rest.request<APIResourceList>('GET', group ? `/apis/${group}/${version}` : `/api/${version}`, { what: `discover ${s.apiVersion}` });
      this.discovery.set(s.apiVersion, p);
      // Forget failures so a CRD installed later can be found.
      p.catch(() => this.discovery.delete(s.apiVersion));
    }
    let list: APIResourceList;
    try {
      list = await p;
    } catch (e) {
      if (isNotFound(e)) throw noMatch(s.apiVersion, s.kind);
      throw e;
    }
    const r = list.resources.find((x) => x.kind === s.kind && !x.name.includes('/'));
    if (!r) {
      this.discovery.delete(s.apiVersion);
      throw noMatch(s.apiVersion, s.kind);
    }
    const resource = { apiVersion: s.apiVersion, kind: s.kind, plural: r.name, namespaced: r.namespaced };
    registerType(typeof ref === 'function' ? ref : undefined, resource);
    return resolveStatic(typeof ref === 'function' ? ref : resource) as ResourceInfo;
  }
}

function noMatch(apiVersion: string, kind: string): NotFoundError {
  return new NotFoundError(404, { reason: 'NotFound', message: `no matches for kind "${kind}" in version "${apiVersion}" (is the CRD installed?)` });
}
