/**
 * The autoupdate plugin (Kubebuilder's `autoupdate.kubebuilder.io/v1-alpha`): a GitHub Actions
 * workflow, .github/workflows/auto_update.yml, that runs `kubeforge alpha update` once a week with
 * the newest kubeforge release, pushes the merged scaffold to its branch and opens an issue linking
 * the pull request, listing the files with conflict markers.
 *
 * Kubebuilder's workflow passes `alpha update --force --push --restore-path .github/workflows
 * --open-gh-issue`. kubeforge's `alpha update` has --force and --restore-path; the push and the
 * issue are the workflow's own steps (git push, gh issue create), which any CI can read and change.
 *
 * The workflow is managed (rewritten by `init --plugins autoupdate` and `edit --plugins
 * autoupdate`, as Kubebuilder overwrites it); PROJECT records the plugin with an empty config.
 */
import type { FileSpec } from '../machinery/index.js';

export { AUTOUPDATE_PLUGIN } from '../project/index.js';
export const AUTOUPDATE_WORKFLOW = '.github/workflows/auto_update.yml';

/** The plugin's files. */
export function autoUpdateFiles(): FileSpec[] {
  return [{ path: AUTOUPDATE_WORKFLOW, policy: 'managed', template: 'autoupdate/auto_update.yml.hbs' }];
}
