/**
 * Label selectors as apimachinery has them (k8s.io/apimachinery/pkg/labels and
 * metav1.LabelSelectorAsSelector): parse, print, match, with Go's error messages. A Selector is
 * accepted by `list({ labelSelector })`, `deleteAllOf`, the cache's `labelSelector` options and
 * `labelSelectorPredicate`. One implementation, in src/util/apimachinery, shared with the fake
 * API server's tests.
 */
export {
  everything,
  InvalidSelectorError,
  isSelector,
  labelSelectorAsSelector,
  matchesNothing,
  newRequirement,
  nothing,
  parseSelector,
  selectorFromSet,
} from '../../util/apimachinery/labels.js';
export type { Labels, Requirement, Selector, SelectorOperator } from '../../util/apimachinery/labels.js';
export type { LabelSelectorLike, LabelSelectorRequirementLike } from '../../util/apimachinery/validation.js';
