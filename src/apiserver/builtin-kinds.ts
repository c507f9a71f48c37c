/**
 * The Kinds Kubernetes itself serves: which group, version and Kind exist, their resource name and
 * scope, and the @kubernetes/client-node model that types them. The one table of them: the
 * scaffolds read it (`create api --resource=false`, `create webhook` on a built-in Kind), the fake
 * API server serves it, kubeforge/runtime's client resolves model classes and GVKs with it. The table (builtin-kinds-data.ts) is generated
 * from the discovery of a real kube-apiserver and checked against it on every test run
 * (test/scaffolds/builtin-kinds.test.ts; `UPDATE_GOLDEN=1` writes it again): a Kind is listed
 * when the server serves it with the verb create and client-node has a model for it.
 */
import { BUILTIN_KINDS, type BuiltinKind } from './builtin-kinds-data.js';

export { BUILTIN_KINDS, BUILTIN_KINDS_SERVER, type BuiltinKind } from './builtin-kinds-data.js';

/**
 * Kubernetes' own API groups, by the short name Kubebuilder accepts in --group, with their full
 * name. `--resource=false` on one of these (with no API of that name in PROJECT) scaffolds a
 * controller for the built-in Kind, as `kubebuilder create api --group apps --kind Deployment
 * --resource=false` does.
 */
export const CORE_GROUPS: Readonly<Record<string, string>> = {
  admissionregistration: 'admissionregistration.k8s.io',
  apiextensions: 'apiextensions.k8s.io',
  apps: 'apps',
  authentication: 'authentication.k8s.io',
  authorization: 'authorization.k8s.io',
  autoscaling: 'autoscaling',
  batch: 'batch',
  certificates: 'certificates.k8s.io',
  coordination: 'coordination.k8s.io',
  core: '',
  discovery: 'discovery.k8s.io',
  events: 'events.k8s.io',
  flowcontrol: 'flowcontrol.apiserver.k8s.io',
  networking: 'networking.k8s.io',
  node: 'node.k8s.io',
  policy: 'policy',
  rbac: 'rbac.authorization.k8s.io',
  scheduling: 'scheduling.k8s.io',
  storage: 'storage.k8s.io',
};

/** The built-in Kind `group/version kind`, when Kubernetes serves it. */
export function findBuiltinKind(group: string, version: string, kind: string): BuiltinKind | undefined {
  return BUILTIN_KINDS.find((k) => k.group === group && k.version === version && k.kind === kind);
}

/** Every group/version that serves a built-in Kind of this name (`apps/v1` for Deployment). */
export function builtinKindsNamed(kind: string): BuiltinKind[] {
  return BUILTIN_KINDS.filter((k) => k.kind === kind);
}
