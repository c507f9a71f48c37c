/** The path the CEL enforcement webhook serves (src/testing/cel.ts, cel-review.ts). */
export const CEL_WEBHOOK_PATH = '/validate-kubeforge-cel';
