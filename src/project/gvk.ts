/** Group/Version/Kind helpers as Kubebuilder names things: qualified groups, plurals, file names. */

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

const IRREGULAR: Record<string, string> = {
  person: 'people',
  man: 'men',
  woman: 'women',
  child: 'children',
  mouse: 'mice',
  goose: 'geese',
  foot: 'feet',
  tooth: 'teeth',
  ox: 'oxen',
  index: 'indices',
  matrix: 'matrices',
  vertex: 'vertices',
  criterion: 'criteria',
  datum: 'data',
  quiz: 'quizzes',
};
const UNCOUNTABLE = new Set(['data', 'metadata', 'information', 'equipment', 'news', 'series', 'species', 'sheep', 'fish', 'deer', 'endpoints']);

/** English plural of a lower-cased word, following the common rules (as flect does for Kubebuilder). */
export function pluralize(word: string): string {
  const w = word.toLowerCase();
  if (UNCOUNTABLE.has(w)) return w;
  if (Object.hasOwn(IRREGULAR, w)) return IRREGULAR[w];
  if (/(s|x|z|ch|sh)$/.test(w)) return `${w}es`;
  if (/[^aeiou]y$/.test(w)) return `${w.slice(0, -1)}ies`;
  if (/[^f]fe$/.test(w)) return `${w.slice(0, -2)}ves`;
  if (/(?:[^aeiou]l|ar|ea)f$/.test(w)) return `${w.slice(0, -1)}ves`;
  return `${w}s`;
}

/** The resource name of a Kind: lower case plural (`CronJob` -> `cronjobs`). */
export function resourceOf(kind: string): string {
  return pluralize(kind.toLowerCase());
}

/** The CRD name: `<plural>.<group>.<domain>`. */
export function crdName(gvk: GVK, plural = resourceOf(gvk.kind)): string {
  return `${plural}.${qualifiedGroup(gvk.group, gvk.domain)}`;
}

/** A Kind in file names: `CronJob` -> `cronjob`. */
export function fileNameOf(kind: string): string {
  return kind.toLowerCase();
}
