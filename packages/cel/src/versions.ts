/**
 * The cel-go each Kubernetes minor's API server runs: the `github.com/google/cel-go` requirement
 * of `k8s.io/apiserver` v0.<minor>.0's go.mod. This package follows cel-go's behaviour as of the
 * minor it is asked to check for (`k8sMinor`, ./library.ts CEL_VERSIONS for the libraries); its
 * tests' oracles (packages/cel/test/oracle/celcorpus, the API server's CEL test tables and cel-spec's
 * conformance data) are pinned to the newest row, which a test reads back from their go.mod.
 */
export const CEL_GO_VERSIONS: Readonly<Record<number, string>> = {
  29: 'v0.17.7',
  30: 'v0.17.8',
  31: 'v0.20.1',
  32: 'v0.22.0',
  33: 'v0.23.2',
  34: 'v0.26.0',
  35: 'v0.26.0',
  36: 'v0.26.0',
  37: 'v0.29.2',
};
