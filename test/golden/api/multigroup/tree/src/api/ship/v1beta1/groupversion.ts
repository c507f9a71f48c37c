/**
 * The ship.example.com/v1beta1 API: every Kind with `@Root()` in this folder belongs to this
 * group-version. `kubeforge manifests` reads it the way controller-gen reads `+groupName`.
 */
import { defineGroupVersion } from 'kubeforge/markers';

export const groupVersion = defineGroupVersion({ group: 'ship.example.com', version: 'v1beta1' });
