/**
 * Status condition helpers with k8s.io/apimachinery meta.SetStatusCondition semantics:
 * `lastTransitionTime` changes only when `status` changes.
 */

/** A metav1.Condition. */
export interface Condition {
  /** CamelCase type, e.g. `Ready`, `Available`. */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  /** The .metadata.generation the condition was set for. */
  observedGeneration?: number;
  /** RFC 3339 time of the last status change. */
  lastTransitionTime: string;
  /** CamelCase machine-readable reason. */
  reason: string;
  /** Human-readable detail. */
  message: string;
}

/** What setStatusCondition takes: a Condition whose lastTransitionTime may be left out. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'message'> & { lastTransitionTime?: string; message?: string };

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Sets `newCondition` in `conditions` (mutated in place; give `obj.status.conditions ??= []`).
 * A new type is appended with lastTransitionTime = given or now. For an existing type,
 * lastTransitionTime changes (to the given time or now) only if `status` changed; reason,
 * message and observedGeneration are updated. Returns true when anything changed, so the caller
 * knows whether to write the status.
 */
export function setStatusCondition(conditions: Condition[], newCondition: ConditionInput): boolean {
  const existing = conditions.find((c) => c.type === newCondition.type);
  if (!existing) {
    conditions.push({
      type: newCondition.type,
      status: newCondition.status,
      ...(newCondition.observedGeneration !== undefined ? { observedGeneration: newCondition.observedGeneration } : {}),
      lastTransitionTime: newCondition.lastTransitionTime || now(),
      reason: newCondition.reason,
      message: newCondition.message ?? '',
    });
    return true;
  }
  let changed = false;
  if (existing.status !== newCondition.status) {
    existing.status = newCondition.status;
    existing.lastTransitionTime = newCondition.lastTransitionTime || now();
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
export function findStatusCondition(conditions: readonly Condition[] | undefined, conditionType: string): Condition | undefined {
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
export function isStatusConditionPresentAndEqual(conditions: readonly Condition[] | undefined, conditionType: string, status: Condition['status']): boolean {
  return findStatusCondition(conditions, conditionType)?.status === status;
}
