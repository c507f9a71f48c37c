/**
 * Predicates filter events before they reach a handler (controller-runtime's pkg/predicate).
 * A predicate method that is absent lets the event through. A predicate that throws drops the
 * event (the controller logs it).
 */
import {
  isSelector,
  labelSelectorAsSelector,
  type LabelSelectorLike,
  type Selector,
  selectorFromSet,
} from '../client/labels.js';
import type { KubernetesObject } from '@kubernetes/client-node';

/** An object created (or already present when the watch started: isInInitialList). */
export interface CreateEvent<T extends KubernetesObject = KubernetesObject> {
  object: T;
  isInInitialList?: boolean;
}
/** An object changed. */
export interface UpdateEvent<T extends KubernetesObject = KubernetesObject> {
  objectOld: T;
  objectNew: T;
}
/** An object deleted; `deleteStateUnknown` when the delete was inferred by a relist. */
export interface DeleteEvent<T extends KubernetesObject = KubernetesObject> {
  object: T;
  deleteStateUnknown: boolean;
}
/** An event from outside the API server (a channel source, a timer). */
export interface GenericEvent<T extends KubernetesObject = KubernetesObject> {
  object: T;
}

/** Filters events: return false to drop. */
export interface Predicate<T extends KubernetesObject = KubernetesObject> {
  /**
   * Optional: a promise to wait for before this predicate can judge the event (the controller
   * then delivers the event again once it settles, keeping the order of later events of the
   * object). `ignoreOwnWrites` uses it while its own write of the object is unanswered.
   */
  settle?(kind: 'create' | 'update' | 'delete' | 'generic', e: unknown): Promise<void> | undefined;
  create?(e: CreateEvent<T>): boolean;
  update?(e: UpdateEvent<T>): boolean;
  delete?(e: DeleteEvent<T>): boolean;
  generic?(e: GenericEvent<T>): boolean;
}

/** Evaluates a predicate for an event kind (absent method = true). */
export function allows(p: Predicate, kind: 'create' | 'update' | 'delete' | 'generic', e: unknown): boolean {
  const f = p[kind] as ((x: unknown) => boolean) | undefined;
  return f ? f.call(p, e) !== false : true;
}

/** A predicate from per-event functions (controller-runtime's predicate.Funcs). */
export function predicateFuncs<T extends KubernetesObject = KubernetesObject>(funcs: Predicate<T>): Predicate<T> {
  return funcs;
}

/** The same filter on the object of every event (update: the new object) (controller-runtime's NewPredicateFuncs). */
export function newPredicateFuncs<T extends KubernetesObject = KubernetesObject>(
  filter: (obj: T) => boolean,
): Predicate<T> {
  return {
    create: (e) => filter(e.object),
    update: (e) => filter(e.objectNew),
    delete: (e) => filter(e.object),
    generic: (e) => filter(e.object),
  };
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const am = a ?? {};
  const bm = b ?? {};
  const ak = Object.keys(am);
  if (ak.length !== Object.keys(bm).length) return false;
  return ak.every((k) => bm[k] === am[k]);
}

/** Lets updates through only when metadata.generation changed (spec changes; status writes are ignored). Other events pass. */
export const GenerationChangedPredicate: Predicate = {
  update: (e) => e.objectOld?.metadata?.generation !== e.objectNew?.metadata?.generation,
};

/**
 * Drops the create and update events of this controller's own writes: those whose object is at
 * the resourceVersion the client's last write of it made (the Manager's client with
 * `client.readYourOwnWrites`; with it off every event passes). A write by anyone else, or a later
 * one, passes. Delete and generic events pass.
 */
export function ignoreOwnWrites(client: {
  isOwnWrite?(obj: KubernetesObject): boolean;
  ownWritesSettled?(obj: KubernetesObject): Promise<void> | undefined;
}): Predicate {
  const own = (o: KubernetesObject | undefined) => o !== undefined && client.isOwnWrite?.(o) === true;
  return {
    // The watch event of a write can come before its answer: wait for the answer to judge it.
    settle: (kind, e) => {
      const o =
        kind === 'update' ? (e as UpdateEvent).objectNew : kind === 'create' ? (e as CreateEvent).object : undefined;
      return o ? client.ownWritesSettled?.(o) : undefined;
    },
    create: (e) => !own(e.object),
    update: (e) => !own(e.objectNew),
  };
}

/** Lets updates through only when metadata.resourceVersion changed. Other events pass. */
export const ResourceVersionChangedPredicate: Predicate = {
  update: (e) => e.objectOld?.metadata?.resourceVersion !== e.objectNew?.metadata?.resourceVersion,
};

/** Lets updates through only when labels changed. Other events pass. */
export const LabelChangedPredicate: Predicate = {
  update: (e) => !sameMap(e.objectOld?.metadata?.labels, e.objectNew?.metadata?.labels),
};

/** Lets updates through only when annotations changed. Other events pass. */
export const AnnotationChangedPredicate: Predicate = {
  update: (e) => !sameMap(e.objectOld?.metadata?.annotations, e.objectNew?.metadata?.annotations),
};

/** Passes when every predicate passes. */
export function andPredicates<T extends KubernetesObject = KubernetesObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => ps.every((p) => allows(p as Predicate, 'create', e)),
    update: (e) => ps.every((p) => allows(p as Predicate, 'update', e)),
    delete: (e) => ps.every((p) => allows(p as Predicate, 'delete', e)),
    generic: (e) => ps.every((p) => allows(p as Predicate, 'generic', e)),
  };
}

/** Passes when any predicate passes (no predicates: nothing passes). */
export function orPredicates<T extends KubernetesObject = KubernetesObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => ps.some((p) => allows(p as Predicate, 'create', e)),
    update: (e) => ps.some((p) => allows(p as Predicate, 'update', e)),
    delete: (e) => ps.some((p) => allows(p as Predicate, 'delete', e)),
    generic: (e) => ps.some((p) => allows(p as Predicate, 'generic', e)),
  };
}

/** Inverts a predicate. */
export function notPredicate<T extends KubernetesObject = KubernetesObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (e) => !allows(p as Predicate, 'create', e),
    update: (e) => !allows(p as Predicate, 'update', e),
    delete: (e) => !allows(p as Predicate, 'delete', e),
    generic: (e) => !allows(p as Predicate, 'generic', e),
  };
}

/**
 * Passes objects whose labels match the selector (controller-runtime's
 * `predicate.LabelSelectorPredicate`): a metav1.LabelSelector (`{ matchLabels, matchExpressions }`,
 * through `labelSelectorAsSelector`), a Selector, or a map of equalities. Throws the
 * InvalidSelectorError Go returns for an invalid metav1.LabelSelector, when called.
 */
export function labelSelectorPredicate<T extends KubernetesObject = KubernetesObject>(
  selector: LabelSelectorLike | Selector | Record<string, string>,
): Predicate<T> {
  const s = toSelector(selector);
  return newPredicateFuncs<T>((o) => s.matches(o.metadata?.labels));
}

/** A metav1.LabelSelector has matchLabels / matchExpressions holding objects; a label map holds strings. */
function toSelector(v: LabelSelectorLike | Selector | Record<string, string>): Selector {
  if (isSelector(v)) return v;
  const o = v as Record<string, unknown>;
  const isLabelSelector =
    Object.keys(o).length === 0 ||
    (typeof o.matchLabels === 'object' && o.matchLabels !== null) ||
    Array.isArray(o.matchExpressions) ||
    Object.values(o).every((x) => x === null || x === undefined);
  return isLabelSelector
    ? labelSelectorAsSelector(v as LabelSelectorLike)
    : selectorFromSet(v as Record<string, string>);
}
