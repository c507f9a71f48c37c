/*
Copyright The Guestbook Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import type { V1Condition, V1ObjectMeta } from '@kubernetes/client-node';
import { Default, ListMapKey, ListType, Minimum, Root, SubresourceStatus, type int32 } from 'kubeforge/markers';

// EDIT THIS FILE! It is scaffolding for you to own.
// The classes below are the schema of the Busybox CRD: after changing them, run
// `npm run manifests` (or `make manifests`) to regenerate config/crd/bases.

/** BusyboxSpec defines the desired state of Busybox */
export class BusyboxSpec {
  // Add the fields of the desired state here. Decorators from kubeforge/markers validate them
  // in the API server; see https://book.kubebuilder.io/reference/markers/crd-validation.html.

  /** size defines the number of Busybox instances (the replicas of its Deployment). */
  @Default(1)
  @Minimum(0)
  size?: int32;
}

/** BusyboxStatus defines the observed state of Busybox. */
export class BusyboxStatus {
  // Add the fields of the observed state here. For the Kubernetes API conventions, see
  // https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#typical-status-properties

  /**
   * conditions represent the current state of the Busybox resource.
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

/** Busybox is the Schema for the busyboxes API */
@Root()
@SubresourceStatus()
export class Busybox {
  /** The handle kubeforge/runtime addresses this Kind by: `client.get(Busybox, ...)`, `for(Busybox)`. */
  static readonly gvk = { group: 'example.com.example.com', version: 'v1alpha1', kind: 'Busybox' } as const;
  static readonly plural = 'busyboxes';
  static readonly namespaced = true;

  apiVersion?: string = 'example.com.example.com/v1alpha1';
  kind?: string = 'Busybox';

  /** metadata is a standard object metadata */
  metadata?: V1ObjectMeta;

  /** spec defines the desired state of Busybox */
  spec!: BusyboxSpec;

  /** status defines the observed state of Busybox */
  status?: BusyboxStatus;
}
