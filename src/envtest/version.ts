/**
 * The Kubernetes minor tests run on by default: the one Kubebuilder scaffolds projects for today
 * (Kubebuilder v4.16.0, the newest the Go module proxy serves, writes k8s.io/api v0.37.0,
 * controller-runtime v0.25 and controller-tools v0.22 into a new project). Generated projects'
 * ENVTEST_K8S_VERSION defaults to it. A module of its own so that the CLI's eager command
 * registration loads nothing else.
 */
export const DEFAULT_K8S_MINOR = '1.37';
