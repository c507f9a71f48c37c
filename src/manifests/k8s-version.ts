/**
 * `kubeforge manifests --k8s-version <minor>`: the Kubernetes minor whose types the CRDs embed
 * (a V1PodTemplateSpec field gets the PodTemplateSpec of that minor's k8s.io/api, as controller-gen
 * writes it for a project whose go.mod requires that k8s.io/api). Only the minors kubeforge ships
 * data for are accepted (src/schema/k8s: K8S_VERSIONS); the default is the newest.
 */
import { type Diagnostic, DiagnosticError, error } from '../diagnostics/index.js';
import { isK8sVersion, K8S_NEWEST_VERSION, K8S_VERSIONS, type K8sVersion } from '../schema/k8s/index.js';

export { K8S_NEWEST_VERSION, K8S_VERSIONS, type K8sVersion };

/** Where a `--k8s-version` value was given: on the command line, or recorded in package.json's manifests script. */
export type K8sVersionOrigin = { flag: true } | { file: string; line: number };

/**
 * The supported minor a `--k8s-version` value names: `1.36`, also written `v1.36` or with a patch
 * release (`1.36.2`, which names its minor). KF1097, located where the value was given, for
 * anything else.
 */
export function parseK8sVersion(value: string, origin: K8sVersionOrigin): K8sVersion {
  const minor = /^v?(1\.\d+)(?:\.\d+)?$/.exec(value.trim())?.[1];
  if (minor !== undefined && isK8sVersion(minor)) return minor;
  const supported = K8S_VERSIONS.join(', ');
  const what =
    minor === undefined ? 'is not a Kubernetes minor version' : 'is not one kubeforge has the Kubernetes types of';
  const extra: Partial<Diagnostic> =
    'flag' in origin
      ? {
          hint: `pass one of ${supported}, e.g. --k8s-version ${K8S_NEWEST_VERSION} (without the flag kubeforge uses ${K8S_NEWEST_VERSION})`,
        }
      : {
          file: origin.file,
          line: origin.line,
          hint: `change --k8s-version in package.json's "manifests" script to one of ${supported} (or remove it: kubeforge then uses ${K8S_NEWEST_VERSION})`,
        };
  throw new DiagnosticError(error('KF1097', `--k8s-version "${value}" ${what} (supported: ${supported})`, extra));
}
