/**
 * The validation helpers a validating webhook imports from apimachinery, with the API server's
 * messages byte for byte (k8s.io/apimachinery/pkg/util/validation, .../apis/meta/v1/validation,
 * .../api/validation): `isDNS1123Label(name)` returns the messages of what is wrong (empty when
 * valid); `validateLabels(labels, field.newPath('metadata', 'labels'))` returns field errors to
 * throw as `new FieldErrors(errs)` (422 Invalid, one cause each). One implementation, in
 * src/util/apimachinery, shared with kubeforge's CEL library and its fake API server.
 */
export {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  TOTAL_ANNOTATION_SIZE_LIMIT_B,
  validateAnnotations,
  validateLabelName,
  validateLabels,
  validateLabelSelector,
  validateLabelSelectorRequirement,
} from '../../util/apimachinery/validation.js';
export type { LabelSelectorValidationOptions } from '../../util/apimachinery/validation.js';
