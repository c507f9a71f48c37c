/**
 * The seam to the @kubernetes/client-node model schemas (src/schema/k8s, part K of issue 3).
 * Until that module lands, no model is known and fields of those types are a located KF3009.
 */
import type { JSONSchemaProps } from './jsonschema.js';

export function k8sModelSchema(_name: string): JSONSchemaProps | undefined {
  return undefined;
}

export const K8S_HINT = 'schemas of @kubernetes/client-node model types are not available in this build yet; declare the fields you need as your own class';
