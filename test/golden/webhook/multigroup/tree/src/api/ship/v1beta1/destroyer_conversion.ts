/**
 * How Destroyer v1beta1 (a spoke) converts to and from v1, the hub: the version
 * stored in etcd (@StorageVersion). The API server asks the manager's webhook server to convert
 * every Destroyer it reads or writes in another version than the stored one; each conversion goes
 * through the hub (spoke -> hub -> other spoke).
 */
import type { Conversion } from 'kubeforge/runtime';
import type { Destroyer as DestroyerV1 } from '../v1/destroyer_types.js';
import type { Destroyer } from './destroyer_types.js';

/** Registered by src/webhook/ship/v1/destroyer_webhook.ts with `.withConversion(...)`. */
export const destroyerConversion: Conversion<Destroyer, DestroyerV1> = {
  /** Converts a Destroyer v1beta1 to the hub version (v1). */
  convertTo(src: Destroyer): DestroyerV1 {
    // TODO(user): implement the conversion from v1beta1 to v1 field by field once
    // the versions differ, e.g.
    //   spec: { size: src.spec.replicas },
    // apiVersion and kind are set by the webhook server; metadata stays the source object's.
    return {
      apiVersion: 'ship.testproject.org/v1',
      kind: 'Destroyer',
      metadata: src.metadata,
      spec: { ...src.spec },
      status: src.status && { ...src.status },
    };
  },

  /** Converts the hub version (v1) to a Destroyer v1beta1. */
  convertFrom(src: DestroyerV1): Destroyer {
    // TODO(user): implement the conversion from v1 to v1beta1 field by field once
    // the versions differ, e.g.
    //   spec: { replicas: src.spec.size },
    return {
      apiVersion: 'ship.testproject.org/v1beta1',
      kind: 'Destroyer',
      metadata: src.metadata,
      spec: { ...src.spec },
      status: src.status && { ...src.status },
    };
  },
};
