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
import { ListMapKey, ListType, Root, SubresourceStatus } from 'kubeforge/markers';

// EDIT THIS FILE! It is scaffolding for you to own.
// The classes below are the schema of the Captain CRD: after changing them, run
// `npm run manifests` (or `make manifests`) to regenerate config/crd/bases.

/** CaptainSpec defines the desired state of Captain */
export class CaptainSpec {
  // Add the fields of the desired state here. Decorators from kubeforge/markers validate them
  // in the API server, e.g. `@MinLength(1)`, `@Maximum(10)`, `@Enum('A', 'B')`; see
  // https://book.kubebuilder.io/reference/markers/crd-validation.html for what each one does.

  /** foo is an example field of Captain. Edit captain_types.ts to remove/update */
  foo?: string;
}

/** CaptainStatus defines the observed state of Captain. */
export class CaptainStatus {
  // Add the fields of the observed state here. For the Kubernetes API conventions, see
  // https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#typical-status-properties

  /**
   * conditions represent the current state of the Captain resource.
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

/** Captain is the Schema for the captains API */
@Root()
@SubresourceStatus()
export class Captain {
  /** The handle kubeforge/runtime addresses this Kind by: `client.get(Captain, ...)`, `for(Captain)`. */
  static readonly gvk = { group: 'crew.example.com', version: 'v1', kind: 'Captain' } as const;
  static readonly plural = 'captains';
  static readonly namespaced = true;

  apiVersion?: string = 'crew.example.com/v1';
  kind?: string = 'Captain';

  /** metadata is a standard object metadata */
  metadata?: V1ObjectMeta;

  /** spec defines the desired state of Captain */
  spec!: CaptainSpec;

  /** status defines the observed state of Captain */
  status?: CaptainStatus;
}
