/**
 * The crew.example.com/v1 API: every Kind with `@Root()` in this folder belongs to this
 * group-version. `kubeforge manifests` reads it the way controller-gen reads `+groupName`.
 */
import { defineGroupVersion } from 'kubeforge/markers';

export const groupVersion = defineGroupVersion({ group: 'crew.example.com', version: 'v1' });
