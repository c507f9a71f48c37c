// kubeforge/runtime webhook: the HTTPS webhook server, admission (defaulting, validation),
// field errors, CRD conversion, the webhook builder and metrics.
export { WebhookServer, newWebhookServer, defaultCertDir } from './server.js';
export type { WebhookServerOptions } from './server.js';
export { WebhookHttpError, describeThrown, isCrash } from './handler.js';
export type { WebhookHandler, WebhookHandlerContext } from './handler.js';
export { AdmissionWebhook, withCustomDefaulter, withCustomValidator, createJSONPatch, denied, errored } from './admission.js';
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
export { FieldErrors, field, fieldErrorBody, fieldErrorString } from './fielderrors.js';
export type { FieldError, FieldErrorType } from './fielderrors.js';
export { ConversionRegistry, ConversionWebhook } from './conversion.js';
export type { AnyConversion, Conversion } from './conversion.js';
export { WebhookBuilder, webhookManagedBy, defaultingPath, validatingPath } from './builder.js';
export { webhookMetrics } from './metrics.js';
export type { WebhookMetrics } from './metrics.js';
