/*
Copyright The Kubernetes authors.

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

/**
 * How FirstMate v2 (a spoke) converts to and from v1, the hub: the version
 * stored in etcd (@StorageVersion). The API server asks the manager's webhook server to convert
 * every FirstMate it reads or writes in another version than the stored one; each conversion goes
 * through the hub (spoke -> hub -> other spoke).
 */
import type { Conversion } from 'kubeforge/runtime';
import type { FirstMate as FirstMateV1 } from '../v1/firstmate_types.js';
import type { FirstMate } from './firstmate_types.js';

/** Registered by src/webhook/v1/firstmate_webhook.ts with `.withConversion(...)`. */
export const firstMateConversion: Conversion<FirstMate, FirstMateV1> = {
  /** Converts a FirstMate v2 to the hub version (v1). */
  convertTo(src: FirstMate): FirstMateV1 {
    // TODO(user): implement the conversion from v2 to v1 field by field once
    // the versions differ, e.g.
    //   spec: { size: src.spec.replicas },
    // apiVersion and kind are set by the webhook server; metadata stays the source object's.
    return {
      apiVersion: 'crew.testproject.org/v1',
      kind: 'FirstMate',
      metadata: src.metadata,
      spec: { ...src.spec },
      status: src.status && { ...src.status },
    };
  },

  /** Converts the hub version (v1) to a FirstMate v2. */
  convertFrom(src: FirstMateV1): FirstMate {
    // TODO(user): implement the conversion from v1 to v2 field by field once
    // the versions differ, e.g.
    //   spec: { replicas: src.spec.size },
    return {
      apiVersion: 'crew.testproject.org/v2',
      kind: 'FirstMate',
      metadata: src.metadata,
      spec: { ...src.spec },
      status: src.status && { ...src.status },
    };
  },
};
