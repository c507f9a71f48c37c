/**
 * Status condition helpers with k8s.io/apimachinery meta.SetStatusCondition semantics:
 * `lastTransitionTime` changes only when `status` changes. They take client-node's V1Condition[]
 * (what a scaffolded status declares). Errors: only setStatusCondition throws, for a given
 * lastTransitionTime that is not a time.
 */
import type { V1Condition } from '@kubernetes/client-node';

/**
 * A metav1.Condition: client-node's `V1Condition`, the type `kubeforge create api` declares for
 * `status.conditions`, so the helpers take what the scaffolded status holds. `lastTransitionTime`
 * is a Date, as client-node declares it and as kubeforge/runtime's client and cache return it;
 * `now()` (a metav1.Time, itself a Date written at second precision) fits it without a cast.
 */
export type Condition = V1Condition;

/** The values a condition's status takes. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * What setStatusCondition takes: a condition whose lastTransitionTime (default: now) and message
 * (default '') may be left out. A string lastTransitionTime (RFC 3339) is stored as a Date.
 */
export type ConditionInput = Omit<V1Condition, 'lastTransitionTime' | 'message' | 'status'> & {
  status: ConditionStatus;
  lastTransitionTime?: Date | string;
  message?: string;
};

/** metav1.Time has whole seconds: a time set here reads back equal after a round trip. */
function toTime(t: Date | string | undefined): Date {
  const d = t === undefined || t === '' ? new Date() : t instanceof Date ? new Date(t.getTime()) : new Date(t);
  if (Number.isNaN(d.getTime()))
    throw new Error(
      `kubeforge/runtime: setStatusCondition: lastTransitionTime ${JSON.stringify(t)} is not an RFC 3339 time`,
    );
  d.setUTCMilliseconds(0);
  return d;
}

/**
 * Sets `newCondition` in `conditions` (mutated in place; give `obj.status.conditions ??= []`).
 * A new type is appended with lastTransitionTime = given or now. For an existing type,
 * lastTransitionTime changes (to the given time or now) only if `status` changed; reason,
 * message and observedGeneration are updated. Returns true when anything changed, so the caller
 * knows whether to write the status.
 */
export function setStatusCondition(conditions: V1Condition[], newCondition: ConditionInput): boolean {
  const existing = conditions.find((c) => c.type === newCondition.type);
  if (!existing) {
    conditions.push({
      type: newCondition.type,
      status: newCondition.status,
      ...(newCondition.observedGeneration !== undefined ? { observedGeneration: newCondition.observedGeneration } : {}),
      lastTransitionTime: toTime(newCondition.lastTransitionTime),
      reason: newCondition.reason,
      message: newCondition.message ?? '',
    });
    return true;
  }
  let changed = false;
  if (existing.status !== newCondition.status) {
    existing.status = newCondition.status;
    existing.lastTransitionTime = toTime(newCondition.lastTransitionTime);
    changed = true;
  }
  if (existing.reason !== newCondition.reason) {
    existing.reason = newCondition.reason;
    changed = true;
  }
  const message = newCondition.message ?? '';
  if (existing.message !== message) {
    existing.message = message;
    changed = true;
  }
  if (existing.observedGeneration !== newCondition.observedGeneration) {
    if (newCondition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = newCondition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of that type. Returns true when one was removed. */
export function removeStatusCondition(conditions: Condition[] | undefined, conditionType: string): boolean {
  if (!conditions) return false;
  const i = conditions.findIndex((c) => c.type === conditionType);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/** The condition of that type, or undefined. */
export function findStatusCondition(
  conditions: readonly Condition[] | undefined,
  conditionType: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === conditionType);
}

/** True when the condition exists with status "True". */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, conditionType: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, conditionType, 'True');
}

/** True when the condition exists with status "False" (absent is not false). */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, conditionType: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, conditionType, 'False');
}

/** True when the condition exists with exactly that status. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  conditionType: string,
  status: ConditionStatus | string,
): boolean {
  return findStatusCondition(conditions, conditionType)?.status === status;
}
