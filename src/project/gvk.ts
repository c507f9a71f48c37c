/** Group/Version/Kind helpers as Kubebuilder names things: qualified groups, plurals, file names. */
import { pluralize } from './plural.js';

export { pluralize } from './plural.js';

export interface GVK {
  group: string;
  version: string;
  kind: string;
  /** The project's domain; the full group is `group.domain` (just `group` when empty). */
  domain?: string;
}

/** `batch` + `example.com` -> `batch.example.com`; the core group stays empty. */
export function qualifiedGroup(group: string, domain?: string): string {
  if (!group) return domain ?? '';
  return domain ? `${group}.${domain}` : group;
}

/** `batch.example.com/v1` (or `v1` for the core group). */
export function apiVersionOf(gvk: GVK): string {
  const g = qualifiedGroup(gvk.group, gvk.domain);
  return g ? `${g}/${gvk.version}` : gvk.version;
}

/** The resource name of a Kind: lower case plural, as controller-gen derives it (`CronJob` -> `cronjobs`). */
export function resourceOf(kind: string): string {
  return pluralize(kind);
}

/** The CRD name: `<plural>.<group>.<domain>`. */
export function crdName(gvk: GVK, plural = resourceOf(gvk.kind)): string {
  return `${plural}.${qualifiedGroup(gvk.group, gvk.domain)}`;
}

/** A Kind in file names: `CronJob` -> `cronjob`. */
export function fileNameOf(kind: string): string {
  return kind.toLowerCase();
}
