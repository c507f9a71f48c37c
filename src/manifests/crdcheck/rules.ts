/**
 * Whether a CRD schema carries CEL rules (`x-kubernetes-validations`), without loading CEL: the
 * rule check (./cel.ts, over @bufbuild/cel: some 130 modules and a tenth of a second to load) is
 * loaded only for a run whose schemas have rules.
 */
import type { JSONSchemaProps } from '../../schema/jsonschema.js';

/** Whether a schema node or any node below it carries rules (cached: Kinds share the frozen Kubernetes subtrees). */
const ruleBearing = new WeakMap<JSONSchemaProps, boolean>();
export function hasRules(s: JSONSchemaProps): boolean {
  const known = ruleBearing.get(s);
  if (known !== undefined) return known;
  ruleBearing.set(s, false); // a cycle (none in a structural schema) counts as no rules
  const found =
    (s['x-kubernetes-validations']?.length ?? 0) > 0 ||
    (s.allOf ?? []).some((a) => (a['x-kubernetes-validations']?.length ?? 0) > 0) ||
    Object.values(s.properties ?? {}).some(hasRules) ||
    (s.items !== undefined && hasRules(s.items)) ||
    (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties));
  ruleBearing.set(s, found);
  return found;
}
