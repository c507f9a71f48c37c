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

/**
 * The crew.example.com/v1 API: every Kind with `@Root()` in this folder belongs to this
 * group-version. `kubeforge manifests` reads it the way controller-gen reads `+groupName`.
 */
import { defineGroupVersion } from 'kubeforge/markers';

export const groupVersion = defineGroupVersion({ group: 'crew.example.com', version: 'v1' });
