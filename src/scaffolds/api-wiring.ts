/**
 * How a Kind is wired into the files `kubeforge init` wrote: its controller in src/main.ts, its
 * roles in config/rbac, its CRD in config/default. `create api` adds them; `init --force` and
 * `edit` apply them again for every Kind PROJECT lists.
 */
import type { ProjectConfig, ProjectResource } from '../project/index.js';
import type { Insertion, TemplateRenderer } from '../machinery/index.js';
import { type ApiNames, apiNames, importSpecifier, pascal } from './resource-names.js';

/** Flips `#- ../crd` to `- ../crd` in config/default/kustomization.yaml; returns undefined when there is no such line. */
export function uncommentCrd(text: string): string | undefined {
  const lines = text.split('\n');
  if (lines.some((l) => l.trim() === '- ../crd')) return text;
  const at = lines.findIndex((l) => /^\s*#\s*- \.\.\/crd\s*$/.test(l));
  if (at < 0) return undefined;
  lines[at] = lines[at].replace(/#\s*(- \.\.\/crd)/, '$1');
  return lines.join('\n');
}

/**
 * The insertions that wire the controller of a Kind into src/main.ts (its import and its setup),
 * anchored on init's marker comments. Idempotent; `init --force` applies them again for every
 * controller PROJECT lists, so that a fresh main.ts keeps them.
 */
export async function mainControllerInsertions(names: ApiNames, renderer: TemplateRenderer): Promise<Insertion[]> {
  const grouped = names.multigroup && names.group !== '';
  const mainImport = importSpecifier('src', names.controllerFile);
  const reconcilerAlias = grouped ? `${pascal(names.group)}${names.reconciler}` : undefined;
  const ref = reconcilerAlias ?? names.reconciler;
  return [
    {
      marker: '+kubebuilder:scaffold:imports',
      fragment: await renderer.render('api/fragments/main_imports.ts.hbs', {
        reconciler: names.reconciler,
        alias: reconcilerAlias ?? '',
        mainControllerImport: mainImport,
      }),
    },
    {
      marker: '+kubebuilder:scaffold:builder',
      fragment: await renderer.render('api/fragments/main_setup.ts.hbs', {
        reconciler: ref,
        controllerName: names.controllerName,
      }),
    },
  ];
}

export const RBAC_KUSTOMIZATION = 'config/rbac/kustomization.yaml';

/** The admin, editor and viewer role files of a Kind. */
export function roleFiles(names: ApiNames): string[] {
  return ['admin', 'editor', 'viewer'].map((r) => `${names.rbacFilePrefix}_${r}_role.yaml`);
}

/** The role templates of a Kind: admin, editor, viewer (the order of {@link roleFiles}). */
const ROLE_TEMPLATES = ['admin', 'editor', 'viewer'].map((r) => `api/config/rbac/${r}_role.yaml.hbs`);

/**
 * A Kind's admin / editor / viewer role files (path under config/rbac/ -> text) as `create api`
 * writes them for a manager of the given scope: ClusterRoles, or Roles when namespace-scoped.
 */
export async function renderRoleFiles(
  config: ProjectConfig,
  r: ProjectResource,
  namespacedManager: boolean,
  renderer: TemplateRenderer,
): Promise<Map<string, string>> {
  const names = apiNames(config, {
    group: r.group,
    version: r.version,
    kind: r.kind,
    plural: r.plural,
    namespaced: r.api?.namespaced ?? true,
  });
  const data = { ...names, projectName: config.projectName, namespacedManager };
  const out = new Map<string, string>();
  const files = roleFiles(names);
  for (let i = 0; i < files.length; i++)
    out.set(`config/rbac/${files[i]}`, await renderer.render(ROLE_TEMPLATES[i], data));
  return out;
}

/** The entries of a Kind's roles in config/rbac/kustomization.yaml. */
export function roleInsertions(names: ApiNames, files = roleFiles(names)): Insertion[] {
  return files.map((f) => ({ marker: '+kubebuilder:scaffold:rbac-roles', fragment: `- ${f}` }));
}
