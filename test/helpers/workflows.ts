/** GitHub Actions workflows as the scaffold writes them. */

/** A `uses:` reference pinned as Kubebuilder pins it: a 40-hex commit and the version as a comment. */
export const PINNED = /^\s*-?\s*uses:\s*[\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+\s*$/;

/** Every `uses:` line of a workflow's text that is not pinned. */
export function unpinned(yaml: string): string[] {
  return yaml.split('\n').filter((l) => /^\s*-?\s*uses:/.test(l) && !PINNED.test(l));
}
