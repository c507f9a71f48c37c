// kubeforge/runtime webhook: the HTTPS webhook server, admission (defaulting, validation),
// field errors, CRD conversion and the webhook builder.
export { WebhookServer, newWebhookServer } from './server.js';
export type { WebhookServerOptions } from './server.js';
export type { WebhookHandler, WebhookHandlerContext } from './handler.js';
export { AdmissionWebhook, withCustomDefaulter, withCustomValidator, denied, errored } from './admission.js';
export type {
  AdmissionContext,
  AdmissionHandler,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionResult,
  AdmissionStatus,
  CustomDefaulter,
  CustomValidator,
  Warnings,
} from './admission.js';
export { FieldErrors, field, Path } from './fielderrors.js';
export type { ErrorList, FieldError, FieldErrorType, PathLike } from './fielderrors.js';
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
} from './validation.js';
export type { LabelSelectorValidationOptions } from './validation.js';
export type { AnyConversion, Conversion } from './conversion.js';
export { webhookManagedBy } from './builder.js';
export type { WebhookBuilder } from './builder.js';
