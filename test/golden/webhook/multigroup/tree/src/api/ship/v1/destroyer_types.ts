import type { V1Condition, V1ObjectMeta } from '@kubernetes/client-node';
import { ConversionWebhook, ListMapKey, ListType, Resource, Root, StorageVersion, SubresourceStatus } from 'kubeforge/markers';

// EDIT THIS FILE! It is scaffolding for you to own.
// The classes below are the schema of the Destroyer CRD: after changing them, run
// `npm run manifests` (or `make manifests`) to regenerate config/crd/bases.

/** DestroyerSpec defines the desired state of Destroyer */
export class DestroyerSpec {
  // Add the fields of the desired state here. Decorators from kubeforge/markers validate them
  // in the API server, e.g. `@MinLength(1)`, `@Maximum(10)`, `@Enum('A', 'B')`; see
  // https://book.kubebuilder.io/reference/markers/crd-validation.html for what each one does.

  /** foo is an example field of Destroyer. Edit destroyer_types.ts to remove/update */
  foo?: string;
}

/** DestroyerStatus defines the observed state of Destroyer. */
export class DestroyerStatus {
  // Add the fields of the observed state here. For the Kubernetes API conventions, see
  // https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#typical-status-properties

  /**
   * conditions represent the current state of the Destroyer resource.
   * Each condition has a unique type and reflects the status of a specific aspect of the resource.
   *
   * Standard condition types include:
   * - "Available": the resource is fully functional
   * - "Progressing": the resource is being created or updated
   * - "Degraded": the resource failed to reach or maintain its desired state
   *
   * The status of each condition is one of True, False, or Unknown.
   */
  @ListType('map')
  @ListMapKey('type')
  conditions?: V1Condition[];
}

/** Destroyer is the Schema for the destroyers API */
@Root()
@SubresourceStatus()
@Resource({ scope: 'Cluster' })
@StorageVersion()
@ConversionWebhook()
export class Destroyer {
  /** The handle kubeforge/runtime addresses this Kind by: `client.get(Destroyer, ...)`, `for(Destroyer)`. */
  static readonly gvk = { group: 'ship.testproject.org', version: 'v1', kind: 'Destroyer' } as const;
  static readonly plural = 'destroyers';
  static readonly namespaced = false;

  apiVersion?: string = 'ship.testproject.org/v1';
  kind?: string = 'Destroyer';

  /** metadata is a standard object metadata */
  metadata?: V1ObjectMeta;

  /** spec defines the desired state of Destroyer */
  spec!: DestroyerSpec;

  /** status defines the observed state of Destroyer */
  status?: DestroyerStatus;
}
