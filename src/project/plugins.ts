/**
 * The plugin records of PROJECT (Kubebuilder's `plugins:` map, pkg/config's PluginConfigs), typed
 * per plugin: read and written here, so that no command casts the map.
 */
import type { ProjectConfig } from './config.js';

export const GRAFANA_PLUGIN = 'grafana.kubebuilder.io/v1-alpha';
/** Kubebuilder's autoupdate plugin: .github/workflows/auto_update.yml; its record is `{}`. */
export const AUTOUPDATE_PLUGIN = 'autoupdate.kubebuilder.io/v1-alpha';
export const DEPLOY_IMAGE_PLUGIN = 'deploy-image.go.kubebuilder.io/v1-alpha';
/**
 * kubeforge's own record of a sharded manager (`init --sharded`, `edit --sharded`): a plugin
 * record because Kubebuilder's PROJECT schema has no key for it, and tools reading that schema
 * keep any plugin's record as it is.
 */
export const SHARDING_PLUGIN = 'sharding.kubeforge.io/v1-alpha';
/**
 * kubeforge's record of the package manager a project uses (`init --package-manager`), when it is
 * not npm: `{ name: pnpm }`.
 */
export const PACKAGE_MANAGER_PLUGIN = 'packagemanager.kubeforge.io/v1-alpha';

/**
 * kubeforge's record of the options `kubeforge manifests` generates with (controller-gen's
 * `crd:maxDescLen` and `crd:generateEmbeddedObjectMeta`, and the Kubernetes minor of embedded
 * types): read and checked by src/manifests/settings.ts.
 */
export const MANIFESTS_PLUGIN = 'manifests.kubeforge.io/v1-alpha';

/** The manifests record, as PROJECT holds it (unchecked: src/manifests/settings.ts checks it). */
export interface ManifestsPluginConfig {
  maxDescLen?: unknown;
  k8sVersion?: unknown;
  generateEmbeddedObjectMeta?: unknown;
  [key: string]: unknown;
}

/** The package-manager record. */
export interface PackageManagerPluginConfig {
  name?: string;
  [key: string]: unknown;
}

/** The grafana plugin records nothing of its own (Kubebuilder writes `{}`). */
export type GrafanaPluginConfig = Record<string, unknown>;

/** One entry of the deploy-image plugin's `resources`: a Kind it scaffolded, and its flags' strings. */
export interface DeployImageResource {
  domain?: string;
  group: string;
  kind: string;
  version: string;
  options?: { image?: string; containerCommand?: string; containerPort?: string; runAsUser?: string };
}

/** The deploy-image plugin's record (other keys Kubebuilder may add are kept as they are). */
export interface DeployImagePluginConfig {
  resources?: DeployImageResource[];
  [key: string]: unknown;
}

/** The sharding record: how many replicas config/manager/manager.yaml runs. */
export interface ShardingPluginConfig {
  replicas?: number;
  [key: string]: unknown;
}

/** The plugins whose records kubeforge reads, by id. */
export interface KnownPluginConfigs {
  [GRAFANA_PLUGIN]: GrafanaPluginConfig;
  [DEPLOY_IMAGE_PLUGIN]: DeployImagePluginConfig;
  [SHARDING_PLUGIN]: ShardingPluginConfig;
  [PACKAGE_MANAGER_PLUGIN]: PackageManagerPluginConfig;
  [MANIFESTS_PLUGIN]: ManifestsPluginConfig;
}

/** The `plugins` map of PROJECT: the known plugins' records typed, any other plugin's kept as it is. */
export type PluginConfigs = Partial<KnownPluginConfigs> & Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The plugin configs PROJECT records (its `plugins` map; empty when there is none). */
export function pluginsOf(config: Pick<ProjectConfig, 'extra'>): PluginConfigs {
  const p = config.extra?.plugins;
  return isRecord(p) ? (p as PluginConfigs) : {};
}

/** The record of one known plugin; undefined when PROJECT has none (a record that is not a map reads as empty). */
export function pluginConfig<K extends keyof KnownPluginConfigs>(
  config: Pick<ProjectConfig, 'extra'>,
  id: K,
): KnownPluginConfigs[K] | undefined {
  const plugins = pluginsOf(config);
  if (!(id in plugins)) return undefined;
  const v = plugins[id];
  return isRecord(v) ? (v as KnownPluginConfigs[K]) : {};
}

/** PROJECT's extra keys with `id` recorded among the plugins (an empty config), the others kept. */
export function withPlugin(
  config: Pick<ProjectConfig, 'extra'>,
  id: string,
  value: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...(config.extra ?? {}), plugins: { ...pluginsOf(config), [id]: value } };
}

/** PROJECT's extra keys without `id` among the plugins (and without an emptied `plugins` map), the others kept. */
export function withoutPlugin(config: Pick<ProjectConfig, 'extra'>, id: string): Record<string, unknown> | undefined {
  if (!(id in pluginsOf(config))) return config.extra;
  const { [id]: _dropped, ...plugins } = pluginsOf(config);
  const { plugins: _old, ...rest } = config.extra ?? {};
  const extra = Object.keys(plugins).length ? { ...rest, plugins } : rest;
  return Object.keys(extra).length ? extra : undefined;
}
