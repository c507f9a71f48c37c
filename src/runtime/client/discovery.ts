/**
 * The discovery client (client-go's discovery.DiscoveryClient, reduced to what operators ask):
 * the server's version, the API groups with their versions, and the resources of a
 * group/version. Every call asks the API server (nothing cached here; the RESTMapper keeps its
 * own cache for type resolution). Errors are the transport's StatusErrors.
 */
import type { APIResource } from './restmapper.js';
import type { RestClient } from './rest.js';

/** `/version`: the server's build (`gitVersion` is `v1.37.2`). */
export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit?: string;
  platform?: string;
  goVersion?: string;
}

/** One API group: its name, the versions served and the preferred one (the core group is ''). */
export interface APIGroup {
  name: string;
  versions: string[];
  preferredVersion: string;
}

interface GroupList {
  groups: {
    name: string;
    versions: { groupVersion: string; version: string }[];
    preferredVersion?: { version: string };
  }[];
}

export class DiscoveryClient {
  constructor(private readonly rest: RestClient) {}

  /** The API server's version (`mgr.getDiscoveryClient().serverVersion()`). */
  serverVersion(): Promise<ServerVersion> {
    return this.rest.request<ServerVersion>('GET', '/version', { what: 'discover the server version' });
  }

  /** Every API group the server serves, the core group ('', v1) first. */
  async serverGroups(): Promise<APIGroup[]> {
    const core = await this.rest.request<{ versions: string[] }>('GET', '/api', { what: 'discover the core group' });
    const named = await this.rest.request<GroupList>('GET', '/apis', { what: 'discover the API groups' });
    return [
      { name: '', versions: core.versions, preferredVersion: core.versions[0] ?? 'v1' },
      ...named.groups.map((g) => ({
        name: g.name,
        versions: g.versions.map((v) => v.version),
        preferredVersion: g.preferredVersion?.version ?? g.versions[0]?.version ?? '',
      })),
    ];
  }

  /** The resources of a group/version (`v1`, `apps/v1`); rejects with NotFoundError when it is not served. */
  async serverResourcesForGroupVersion(apiVersion: string): Promise<APIResource[]> {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return (await this.rest.request<{ resources: APIResource[] }>('GET', path, { what: `discover ${apiVersion}` }))
      .resources;
  }

  /** Whether the server serves a group/version, and when `kind` is given, that Kind in it. */
  async serves(apiVersion: string, kind?: string): Promise<boolean> {
    try {
      const resources = await this.serverResourcesForGroupVersion(apiVersion);
      return kind === undefined || resources.some((r) => r.kind === kind && !r.name.includes('/'));
    } catch (e) {
      if ((e as { code?: number }).code === 404) return false;
      throw e;
    }
  }
}
