/**
 * The plugin registry of `init` and `edit` (`--plugins`): what users type, and the plugin id it
 * names. `create api`'s deploy-image plugin is resolved in deployimage.ts.
 */
import { DiagnosticError, error, type Diagnostic } from '../diagnostics/index.js';
import { AUTOUPDATE_PLUGIN, GRAFANA_PLUGIN } from '../project/index.js';

const HELM_PLUGIN_ID = 'helm.kubebuilder.io/v2-alpha';

/** The plugin ids `--plugins` accepts, by what users type. */
const PLUGIN_ALIASES: Record<string, string> = {
  autoupdate: AUTOUPDATE_PLUGIN,
  'autoupdate/v1-alpha': AUTOUPDATE_PLUGIN,
  [AUTOUPDATE_PLUGIN]: AUTOUPDATE_PLUGIN,
  grafana: GRAFANA_PLUGIN,
  'grafana/v1-alpha': GRAFANA_PLUGIN,
  [GRAFANA_PLUGIN]: GRAFANA_PLUGIN,
  helm: HELM_PLUGIN_ID,
  'helm/v2-alpha': HELM_PLUGIN_ID,
  [HELM_PLUGIN_ID]: HELM_PLUGIN_ID,
};

/** Resolves `--plugins a,b` to plugin ids; an unknown one is KF1070. The layout plugin (kubeforge's own) is accepted and ignored. */
export function resolvePlugins(values: readonly string[] | undefined, layout: string): string[] {
  const out = new Set<string>();
  const problems: Diagnostic[] = [];
  for (const v of (values ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (v === layout || v === 'typescript' || v === 'typescript/v1') continue;
    const id = PLUGIN_ALIASES[v];
    if (id) out.add(id);
    else if (/^deploy-image(\/v1-alpha|\.go\.kubebuilder\.io\/v1-alpha)?$/.test(v)) {
      problems.push(
        error('KF1070', `plugin "${v}" is a plugin of create api: it scaffolds one Kind and its controller`, {
          hint: `run kubeforge create api --group <group> --version <version> --kind <Kind> --plugins ${v} --image <image>`,
        }),
      );
    } else
      problems.push(
        error('KF1070', `unknown plugin "${v}"`, {
          hint: `kubeforge offers: grafana (${GRAFANA_PLUGIN}), autoupdate/v1-alpha (${AUTOUPDATE_PLUGIN}), helm/v2-alpha (edit only); the layout plugin ${layout} is always on; create api takes deploy-image/v1-alpha`,
        }),
      );
  }
  if (problems.length) throw new DiagnosticError(problems);
  return [...out].sort();
}
