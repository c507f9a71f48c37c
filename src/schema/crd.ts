/**
 * The CustomResourceDefinition manifest kubeforge generates (apiextensions.k8s.io/v1), as one type
 * from the CRD generator (src/manifests/crd.ts) through the API server's checks
 * (src/manifests/crdcheck), compatibility, Helm and YAML. Here, below both the generator and the
 * checks, so that neither imports the other for it.
 */
import type { JSONSchemaProps } from './jsonschema.js';

/** A printer column of a CRD version (`kubectl get`). */
export type CRDPrinterColumn = {
  jsonPath: string;
  name: string;
  type: string;
  description?: string;
  format?: string;
  priority?: number;
};

/** One version of a CRD, as the API server reads it (the fields kubeforge writes). */
export type CRDVersion = {
  name: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: CRDPrinterColumn[];
  selectableFields?: { jsonPath: string }[];
};

/** `spec.conversion` of a CRD converting through a webhook. */
export type CRDConversion = {
  strategy: 'Webhook';
  webhook: {
    clientConfig: { service: { name: string; namespace: string; path: string; port?: number } };
    conversionReviewVersions: string[];
  };
};

/** The CustomResourceDefinition manifest kubeforge generates (apiextensions.k8s.io/v1). */
export type CRDManifest = {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations: Record<string, string>; labels?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: CRDVersion[];
    conversion?: CRDConversion;
  };
};
