/**
 * The RESTMapper: turns type handles into REST coordinates. Class statics and the built-in table
 * answer first, then what was registered on this mapper, then API discovery (one request per
 * group/version, cached here). One mapper per Manager (its client and cache share it); a client
 * or cache built without one gets its own, so two managers in one process never share types.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectType, ResourceInfo, TypeRef } from '../contracts.js';
import { NoKindMatchError, isNotFound } from './errors.js';
import type { RestClient } from './rest.js';
import { TypeTable, isResolved, resolveStatic, splitAPIVersion } from './types.js';

/** One served resource of a discovery document (`/apis/<group>/<version>`). */
export interface APIResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

interface APIResourceList {
  resources: APIResource[];
}

/**
 * controller-runtime's RESTMapper, reduced: `resolve` rejects with NoKindMatchError (a
 * NotFoundError: `isNotFound` and `isNoKindMatch` are true) for kinds the server does not serve,
 * with the transport's error for other failures. Discovery failures are not cached, so a CRD
 * installed later is found. Holds nothing that needs closing.
 */
export class RESTMapper {
  private readonly discovery = new Map<string, Promise<APIResourceList>>();
  private readonly table = new TypeTable();
  constructor(private readonly rest: RestClient) {}

  /**
   * Registers (or overrides) the REST information of a kind on this mapper only, e.g. for a class
   * that carries no statics (`type` may then stand for the kind in every call). Never throws.
   */
  register(
    type: ObjectType | undefined,
    resource: { apiVersion: string; kind: string; plural: string; namespaced: boolean },
  ): void {
    this.table.register(type, resource);
  }

  /** The registrations of this mapper (what `resolveStatic` consults besides the statics and built-ins). */
  types(): TypeTable {
    return this.table;
  }

  /** Resolves without network when the statics, the built-in table or registrations know the type. Throws on unusable handles. */
  resolveStatic(ref: TypeRef | KubernetesObject): ResourceInfo | { apiVersion: string; kind: string } {
    return resolveStatic(ref, this.table);
  }

  /** Resolves a type, descriptor or object; see the class doc for errors. */
  async resolve(ref: TypeRef | KubernetesObject): Promise<ResourceInfo> {
    const s = resolveStatic(ref, this.table);
    if (isResolved(s)) return s;
    let list: APIResourceList;
    try {
      list = await this.discover(s.apiVersion);
    } catch (e) {
      if (isNotFound(e))
        throw noMatch(s.apiVersion, s.kind, 'the group/version is not served', await this.servedAs(s.kind));
      throw e;
    }
    const r = list.resources.find((x) => x.kind === s.kind && !x.name.includes('/'));
    if (!r) {
      this.discovery.delete(s.apiVersion);
      throw noMatch(s.apiVersion, s.kind, `the group/version serves ${served(list)}`, await this.servedAs(s.kind));
    }
    const resource = { apiVersion: s.apiVersion, kind: s.kind, plural: r.name, namespaced: r.namespaced };
    return this.table.register(typeof ref === 'function' ? (ref as ObjectType) : undefined, resource);
  }

  /**
   * The resources a group/version serves (discovery, cached until it fails or misses a kind).
   * Rejects with NotFoundError when the group/version is not served.
   */
  async serverResources(apiVersion: string): Promise<APIResource[]> {
    return (await this.discover(apiVersion)).resources;
  }

  /**
   * The group/versions that serve `kind` (for an error's hint: an object literal with the wrong
   * apiVersion), from the server's aggregated discovery (1.30+; one request per root). Empty when
   * the server cannot say; never throws.
   */
  async servedAs(kind: string): Promise<string[]> {
    const found: string[] = [];
    for (const root of ['/api', '/apis']) {
      try {
        const doc = await this.rest.request<{
          items?: {
            metadata?: { name?: string };
            versions?: { version: string; resources?: { resource: string; responseKind?: { kind?: string } }[] }[];
          }[];
        }>('GET', root, {
          accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
          what: `discover where ${kind} is served`,
        });
        for (const g of doc.items ?? []) {
          for (const v of g.versions ?? []) {
            if (v.resources?.some((r) => r.responseKind?.kind === kind && !r.resource.includes('/')))
              found.push(g.metadata?.name ? `${g.metadata.name}/${v.version}` : v.version);
          }
        }
      } catch {
        return [];
      }
    }
    return found;
  }

  /** Forgets cached discovery (all, or one group/version). */
  reset(apiVersion?: string): void {
    if (apiVersion === undefined) this.discovery.clear();
    else this.discovery.delete(apiVersion);
  }

  private discover(apiVersion: string): Promise<APIResourceList> {
    let p = this.discovery.get(apiVersion);
    if (!p) {
      const { group, version } = splitAPIVersion(apiVersion);
      p = this.rest.request<APIResourceList>('GET', group ? `/apis/${group}/${version}` : `/api/${version}`, {
        what: `discover ${apiVersion}`,
      });
      this.discovery.set(apiVersion, p);
      // Forget failures so a CRD installed later can be found.
      p.catch(() => this.discovery.delete(apiVersion));
    }
    return p;
  }
}

function served(list: APIResourceList): string {
  const kinds = list.resources.filter((x) => !x.name.includes('/')).map((x) => `${x.kind} (${x.name})`);
  return kinds.length ? kinds.sort().join(', ') : 'no resources';
}

function noMatch(apiVersion: string, kind: string, why: string, servedAs: readonly string[] = []): NoKindMatchError {
  const elsewhere = servedAs.filter((gv) => gv !== apiVersion);
  const hint = elsewhere.length
    ? `${kind} is served as ${elsewhere.join(', ')}: set apiVersion to ${elsewhere.length === 1 ? elsewhere[0] : 'one of them'}`
    : 'is the CRD installed? `make install`';
  return new NoKindMatchError(`no matches for kind "${kind}" in version "${apiVersion}": ${why} (${hint})`);
}
