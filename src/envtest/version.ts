/**
 * The Kubernetes minor tests run on by default: the one Kubebuilder 4.x scaffolds projects for
 * (k8s.io/api v0.36, controller-runtime v0.24). Generated projects' ENVTEST_K8S_VERSION defaults
 * to it. A module of its own so that the CLI's eager command registration loads nothing else.
 */
export const DEFAULT_K8S_MINOR = '1.36';
