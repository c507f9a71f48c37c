import { defineGroupVersion } from 'kubeforge/markers';

/** Package v1 contains API Schema definitions for the batch v1 API group. */
export const groupVersion = defineGroupVersion({ group: 'batch.tutorial.kubebuilder.io', version: 'v1' });
