import type { V1Condition, V1ObjectMeta } from '@kubernetes/client-node';
import { ListMapKey, ListType, Root, SubresourceStatus } from 'kubeforge/markers';

// EDIT THIS FILE! It is scaffolding for you to own.
// The classes below are the schema of the Frigate CRD: after changing them, run
// `npm run manifests` (or `make manifests`) to regenerate config/crd/bases.

/** FrigateSpec defines the desired state of Frigate */
export class FrigateSpec {
  // Add the fields of the desired state here. Decorators from kubeforge/markers validate them
  // in the API server, e.g. `@MinLength(1)`, `@Maximum(10)`, `@Enum('A', 'B')`; see
  // https://book.kubebuilder.io/reference/markers/crd-validation.html for what each one does.

  /** foo is an example field of Frigate. Edit frigate_types.ts to remove/update */
  foo?: string;
}

/** FrigateStatus defines the observed state of Frigate. */
export class FrigateStatus {
  // Add the fields of the observed state here. For the Kubernetes API conventions, see
  // https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#typical-status-properties

  /**
   * conditions represent the current state of the Frigate resource.
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

/** Frigate is the Schema for the frigates API */
@Root()
@SubresourceStatus()
export class Frigate {
  /** The handle kubeforge/runtime addresses this Kind by: `client.get(Frigate, ...)`, `for(Frigate)`. */
  static readonly gvk = { group: 'ship.example.com', version: 'v1beta1', kind: 'Frigate' } as const;
  static readonly plural = 'frigates';
  static readonly namespaced = true;

  apiVersion?: string = 'ship.example.com/v1beta1';
  kind?: string = 'Frigate';

  /** metadata is a standard object metadata */
  metadata?: V1ObjectMeta;

  /** spec defines the desired state of Frigate */
  spec!: FrigateSpec;

  /** status defines the observed state of Frigate */
  status?: FrigateStatus;
}
