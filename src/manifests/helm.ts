/**
 * The helm plugin (Kubebuilder's `helm.kubebuilder.io/v2-alpha`): a Helm chart in
 * `<output>/chart` made from the project's kustomize output, the same resources `config/default`
 * deploys (`kubectl kustomize config/default`, what `make build-installer` writes to
 * dist/install.yaml), so the chart and config/ cannot say different things.
 *
 * Each resource becomes one template under `templates/<area>/`: the namespace becomes the release's,
 * the `<project>-` names become `<release fullname>-` names, `managed-by: kustomize` becomes the
 * release service, and each area is switched by a value (crd.enabled/keep, webhook.enabled,
 * certManager.enabled, metrics.enabled, prometheus.enabled, networkPolicy.enabled,
 * rbac.helpers.enabled). The manager Deployment takes its image, replicas, args, env, resources,
 * security contexts and scheduling from `manager.*` values, whose defaults are the Deployment's.
 * `values.schema.json` describes the values (Helm checks it on install, lint and template).
 *
 * Files as Kubebuilder's plugin treats them: the templates made from the kustomize output are
 * managed (rewritten on every run, stale ones removed); Chart.yaml, values.yaml,
 * values.schema.json, .helmignore, _helpers.tpl, NOTES.txt and .github/workflows/test-chart.yml
 * are scaffolded (the user's once written; --force rewrites them, except Chart.yaml, never rewritten).
 *
 * `kubeforge manifests` keeps the chart's CRDs and manager role in step with config/crd/bases and
 * config/rbac/role.yaml: {@link syncChart}.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { readYamlObjects, type YamlSyntaxError } from './yaml-documents.js';
import { DiagnosticError, error } from '../diagnostics/index.js';
import type { ProjectConfig } from '../project/index.js';
import type { FileSpec } from '../machinery/index.js';
import { CRD_DIR } from './managed-files.js';
import type { CRDManifest } from './crd.js';

export const HELM_PLUGIN = 'helm.kubebuilder.io/v2-alpha';
export const DEFAULT_HELM_OUTPUT = 'dist';

type Obj = Record<string, unknown>;

/** The plugin's config as PROJECT records it (Kubebuilder's keys: `manifests`, `output`). */
export interface HelmPluginConfig {
  manifests?: string;
  output?: string;
}

/** The recorded helm plugin config, or undefined when the project does not use the plugin. */
export function helmConfigOf(config: Pick<ProjectConfig, 'extra'>): HelmPluginConfig | undefined {
  const raw = config.extra?.plugins;
  const p = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  if (!(HELM_PLUGIN in p)) return undefined;
  const v = p[HELM_PLUGIN];
  return v && typeof v === 'object' ? (v as HelmPluginConfig) : {};
}

/** The chart's folder (`dist/chart` unless recorded otherwise). */
export function chartDir(cfg: HelmPluginConfig | undefined): string {
  return `${(cfg?.output || DEFAULT_HELM_OUTPUT).replace(/\/+$/, '')}/chart`;
}

/** Parses a multi-document YAML stream (kustomize output) into objects; KF1301 when it is not valid YAML. */
export function parseManifests(text: string, file: string): Obj[] {
  const onError = (e: YamlSyntaxError): never => {
    throw new DiagnosticError(
      error('KF1301', `${file} is not valid YAML: ${e.message}`, {
        file,
        line: e.line,
        hint: 'pass the output of `kubectl kustomize config/default` (make build-installer writes it to dist/install.yaml)',
      }),
    );
  };
  return readYamlObjects(text, { onError });
}

// ---------------------------------------------------------------------------------------------
// Template text: a resource is built as an object in which template expressions are tokens, then
// written as YAML, then the tokens are replaced by the expressions. Inline tokens stand for an
// expression inside a scalar; line tokens are keys whose whole line becomes template lines (a
// conditional block, a toYaml of a value) at the key's indentation.

class Tokens {
  private inline: string[] = [];
  private lines: ((indent: string) => string[])[] = [];
  expr(text: string): string {
    this.inline.push(text);
    return `__KFH${this.inline.length - 1}__`;
  }
  line(render: (indent: string) => string[]): string {
    this.lines.push(render);
    return `__KFL${this.lines.length - 1}__`;
  }
  apply(yaml: string): string {
    let out = yaml.replace(
      /^( *)(- )?__KFL(\d+)__: null$/gm,
      (_m, indent: string, dash: string | undefined, n: string) => {
        const lines = this.lines[Number(n)](indent + (dash ? '  ' : ''));
        return lines.join('\n');
      },
    );
    out = out.replace(/__KFH(\d+)__/g, (_m, n: string) => this.inline[Number(n)]);
    return out;
  }
}

const toYaml = (o: unknown) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false });

interface Context {
  project: string;
  prefix: string;
  namespace: string;
  /** Suffixes of the names the prefix made (`controller-manager`), longest first. */
  suffixes: string[];
}

const include = (ctx: Context, suffix: string) =>
  `{{ include "${ctx.project}.resourceName" (dict "suffix" "${suffix}" "context" $) }}`;

/** A string with the namespace and the prefixed names replaced by template expressions. */
function templateString(s: string, ctx: Context, t: Tokens): string {
  if (s === ctx.namespace) return t.expr('{{ .Release.Namespace }}');
  let out = s;
  // Names first (project-webhook-service.project-system.svc), then the namespace.
  for (const suffix of ctx.suffixes) {
    const name = ctx.prefix + suffix;
    out = out.replace(
      new RegExp(`(^|[^A-Za-z0-9-])${escapeRe(name)}(?=$|[^A-Za-z0-9-])`, 'g'),
      (_m, before: string) => before + t.expr(include(ctx, suffix)),
    );
  }
  out = out.replace(
    new RegExp(`(^|[^A-Za-z0-9-])${escapeRe(ctx.namespace)}(?=$|[^A-Za-z0-9-])`, 'g'),
    (_m, before: string) => before + t.expr('{{ .Release.Namespace }}'),
  );
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every string in `v` (keys kept) through {@link templateString}. */
function templateAll(v: unknown, ctx: Context, t: Tokens): unknown {
  if (typeof v === 'string') return templateString(v, ctx, t);
  if (Array.isArray(v)) return v.map((x) => templateAll(x, ctx, t));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v as Obj).map(([k, x]) => [k, templateAll(x, ctx, t)]));
  return v;
}

/** The chart's standard labels over kustomize's: managed-by the release service, plus instance and chart. */
function helmLabels(labels: Obj | undefined, t: Tokens): Obj {
  const out: Obj = { ...(labels ?? {}) };
  if (out['app.kubernetes.io/managed-by'] === 'kustomize')
    out['app.kubernetes.io/managed-by'] = t.expr('{{ .Release.Service }}');
  out['app.kubernetes.io/instance'] = t.expr('{{ .Release.Name }}');
  out['helm.sh/chart'] = t.expr('{{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}');
  return out;
}

/**
 * Helm's template syntax in the resources' own text made literal: every `{{` of the YAML (a CRD
 * description quoting `{{ .Spec.Branch }}`, an unbalanced `{{` in a doc comment, an annotation)
 * becomes `{{ "{{" }}`, which Helm renders as `{{`. Applied to the YAML before the chart's own
 * expressions replace their tokens, so those are never escaped. Kubebuilder's plugin
 * (EscapeExistingTemplateSyntax) wraps each balanced `{{ ... }}` in a string literal the same way
 * but leaves an unbalanced `{{` to break the chart; a lone `}}` is plain text to Helm.
 */
export function escapeTemplateSyntax(yaml: string): string {
  return yaml.replace(/\{\{/g, ESCAPED_OPEN);
}

/** What {@link escapeTemplateSyntax} writes for `{{`. */
const ESCAPED_OPEN = '{{ "{{" }}';

/** Where a resource goes in the chart and the value that switches it (undefined: always). */
function areaOf(r: Obj, ctx: Context): { area: string; condition?: string } {
  const kind = String(r.kind);
  const name = String((r.metadata as Obj | undefined)?.name ?? '');
  const suffix = name.startsWith(ctx.prefix) ? name.slice(ctx.prefix.length) : name;
  switch (kind) {
    case 'CustomResourceDefinition':
      return { area: 'crd', condition: '.Values.crd.enabled' };
    case 'Deployment':
      return { area: 'manager', condition: '.Values.manager.enabled' };
    case 'ServiceAccount':
      return { area: 'rbac' };
    case 'Role':
    case 'ClusterRole':
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      return /-(admin|editor|viewer)-role$/.test(suffix)
        ? { area: 'rbac', condition: '.Values.rbac.helpers.enabled' }
        : { area: 'rbac' };
    case 'MutatingWebhookConfiguration':
    case 'ValidatingWebhookConfiguration':
      return { area: 'webhook', condition: '.Values.webhook.enabled' };
    case 'Certificate':
    case 'Issuer':
      return { area: 'cert-manager', condition: '.Values.certManager.enabled' };
    case 'ServiceMonitor':
      return { area: 'prometheus', condition: '.Values.prometheus.enabled' };
    case 'NetworkPolicy':
      return { area: 'network-policy', condition: '.Values.networkPolicy.enabled' };
    case 'Service':
      if (suffix === 'webhook-service') return { area: 'webhook', condition: '.Values.webhook.enabled' };
      if (/metrics/.test(suffix)) return { area: 'metrics', condition: '.Values.metrics.enabled' };
      return { area: 'extra' };
    default:
      return { area: 'extra' };
  }
}

/** The manager Deployment's defaults, which become `manager.*` values. */
export interface ManagerDefaults {
  replicas: number;
  repository: string;
  tag: string;
  pullPolicy?: string;
  args: string[];
  env: unknown[];
  resources: Obj;
  securityContext: Obj;
  podSecurityContext: Obj;
  terminationGracePeriodSeconds?: number;
}

function managerContainer(d: Obj): Obj | undefined {
  const containers = ((((d.spec as Obj)?.template as Obj)?.spec as Obj)?.containers as Obj[] | undefined) ?? [];
  return containers.find((c) => c.name === 'manager') ?? containers[0];
}

/** Splits `repo[:tag]` / `repo@digest` as Helm values hold them. */
function splitImage(image: string): { repository: string; tag: string } {
  const at = image.indexOf('@');
  if (at >= 0) return { repository: image, tag: '' };
  const colon = image.lastIndexOf(':');
  if (colon > image.lastIndexOf('/')) return { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
  return { repository: image, tag: 'latest' };
}

function managerDefaults(d: Obj): ManagerDefaults {
  const c = managerContainer(d) ?? {};
  const pod = ((d.spec as Obj)?.template as Obj)?.spec as Obj;
  const img = splitImage(String(c.image ?? 'controller:latest'));
  return {
    replicas: typeof (d.spec as Obj)?.replicas === 'number' ? ((d.spec as Obj).replicas as number) : 1,
    repository: img.repository,
    tag: img.tag,
    pullPolicy: typeof c.imagePullPolicy === 'string' ? c.imagePullPolicy : undefined,
    args: Array.isArray(c.args) ? c.args.map(String) : [],
    env: Array.isArray(c.env) ? c.env.filter((e) => !isFixedEnv(e)) : [],
    resources: (c.resources as Obj) ?? {},
    securityContext: (c.securityContext as Obj) ?? {},
    podSecurityContext: (pod?.securityContext as Obj) ?? {},
    terminationGracePeriodSeconds:
      typeof pod?.terminationGracePeriodSeconds === 'number'
        ? (pod.terminationGracePeriodSeconds as number)
        : undefined,
  };
}

/**
 * An environment variable of the Downward API (`valueFrom.fieldRef`, such as a namespace-scoped
 * manager's WATCH_NAMESPACE): it says where the release runs, not a setting, so it stays in the
 * Deployment's template (before `manager.env`) instead of values.yaml, and follows config/ when
 * the scope changes (`edit --namespaced`, then `kubeforge manifests`).
 */
const isFixedEnv = (e: unknown): boolean =>
  !!e && typeof e === 'object' && !!((e as Obj).valueFrom as Obj | undefined)?.fieldRef;

const fixedEnv = (c: Obj): Obj[] => (Array.isArray(c.env) ? (c.env as Obj[]).filter(isFixedEnv) : []);

const block = (key: string, value: string) => (indent: string) => [
  `${indent}{{- with ${value} }}`,
  `${indent}${key}:`,
  `${indent}  {{- toYaml . | nindent ${indent.length + 2} }}`,
  `${indent}{{- end }}`,
];

/** Pod fields the manager's template takes from `manager.*` values when config/ does not set them. */
const POD_VALUE_KEYS = [
  'imagePullSecrets',
  'nodeSelector',
  'tolerations',
  'affinity',
  'topologySpreadConstraints',
] as const;

/** The manager Deployment with its values in place (tokens). */
function templateDeployment(d: Obj, t: Tokens): Obj {
  const spec = { ...(d.spec as Obj) };
  spec.replicas = t.expr('{{ .Values.manager.replicas }}');
  const template = { ...(spec.template as Obj) };
  const tmeta = { ...(template.metadata as Obj) };
  // Pod labels/annotations from values: added under the scaffold's.
  tmeta.labels = {
    ...((template.metadata as Obj).labels as Obj | undefined),
    [t.line((i) => [
      `${i}{{- with .Values.manager.pod }}{{- with .labels }}`,
      `${i}{{- toYaml . | nindent ${i.length} }}`,
      `${i}{{- end }}{{- end }}`,
    ])]: null,
  };
  tmeta.annotations = {
    ...((template.metadata as Obj).annotations as Obj | undefined),
    [t.line((i) => [
      `${i}{{- with .Values.manager.pod }}{{- with .annotations }}`,
      `${i}{{- toYaml . | nindent ${i.length} }}`,
      `${i}{{- end }}{{- end }}`,
    ])]: null,
  };
  template.metadata = tmeta;
  const pod = { ...(template.spec as Obj) };
  const containers = ((pod.containers as Obj[]) ?? []).map((c, _i, all) => {
    if (c !== managerContainer({ spec: { template: { spec: { containers: all } } } })) return c;
    // A list item starts with a plain key (a template line cannot carry the item's dash).
    const out: Obj = { name: c.name };
    for (const [k, v] of Object.entries(c)) {
      if (k === 'args') out[t.line(block('args', '.Values.manager.args'))] = null;
      else if (k === 'image')
        out.image = t.expr(
          '{{ .Values.manager.image.repository }}{{ if .Values.manager.image.tag }}:{{ .Values.manager.image.tag }}{{ end }}',
        );
      else if (k === 'imagePullPolicy' || k === 'env') continue;
      else if (k === 'resources') out[t.line(block('resources', '.Values.manager.resources'))] = null;
      else if (k === 'securityContext') out[t.line(block('securityContext', '.Values.manager.securityContext'))] = null;
      else out[k] = v;
      if (k === 'image') {
        out[
          t.line((i) => [
            `${i}{{- with .Values.manager.image.pullPolicy }}`,
            `${i}imagePullPolicy: {{ . }}`,
            `${i}{{- end }}`,
          ])
        ] = null;
        const fixed = fixedEnv(c);
        if (fixed.length) {
          const values = {
            [t.line((i) => {
              const list = i.slice(2);
              return [
                `${list}{{- with .Values.manager.env }}`,
                `${list}{{- toYaml . | nindent ${list.length} }}`,
                `${list}{{- end }}`,
              ];
            })]: null,
          };
          // In config/'s order: the Downward API variables after config/'s other variables (which
          // values.yaml holds) when config/ lists them last, as `edit --namespaced` does; else,
          // and when config/ has no other, first (values.yaml's own then come after them).
          const env = c.env as unknown[];
          const lastOther = env.findLastIndex((e) => !isFixedEnv(e));
          const last = lastOther >= 0 && env.findIndex(isFixedEnv) > lastOther;
          out.env = last ? [values, ...fixed] : [...fixed, values];
        } else out[t.line(block('env', '.Values.manager.env'))] = null;
      }
    }
    if (!('args' in c)) out[t.line(block('args', '.Values.manager.args'))] = null;
    if (!('resources' in c)) out[t.line(block('resources', '.Values.manager.resources'))] = null;
    if (!('securityContext' in c)) out[t.line(block('securityContext', '.Values.manager.securityContext'))] = null;
    return out;
  });
  const podOut: Obj = {};
  for (const [k, v] of Object.entries(pod)) {
    if (k === 'containers') podOut.containers = containers;
    else if (k === 'securityContext')
      podOut[t.line(block('securityContext', '.Values.manager.podSecurityContext'))] = null;
    else if (k === 'terminationGracePeriodSeconds')
      podOut[k] = t.expr('{{ .Values.manager.terminationGracePeriodSeconds }}');
    else podOut[k] = v;
  }
  if (!('securityContext' in pod))
    podOut[t.line(block('securityContext', '.Values.manager.podSecurityContext'))] = null;
  for (const key of POD_VALUE_KEYS) {
    if (!(key in pod)) podOut[t.line(block(key, `.Values.manager.${key}`))] = null;
  }
  template.spec = podOut;
  spec.template = template;
  return { ...d, spec };
}

/** One resource of the kustomize output as a chart template (its path and text). */
function templateResource(r: Obj, ctx: Context): { area: string; text: string } {
  const t = new Tokens();
  const kind = String(r.kind);
  const { area, condition } = areaOf(r, ctx);
  let doc: Obj;
  if (kind === 'CustomResourceDefinition') {
    // Only the metadata and the conversion webhook's service refer to the release; the schemas are kept as they are.
    const meta = templateAll(r.metadata, ctx, t) as Obj;
    const annotations: Obj = {
      [t.line((i) => [`${i}{{- if .Values.crd.keep }}`, `${i}helm.sh/resource-policy: keep`, `${i}{{- end }}`])]: null,
      ...((meta.annotations as Obj | undefined) ?? {}),
    };
    const spec = { ...(r.spec as Obj) };
    if (spec.conversion) spec.conversion = templateAll(spec.conversion, ctx, t);
    doc = { ...r, metadata: { ...meta, annotations, labels: helmLabels(meta.labels as Obj | undefined, t) }, spec };
  } else {
    const templated = (kind === 'Deployment' ? templateDeployment(r, t) : r) as Obj;
    doc = templateAll(templated, ctx, t) as Obj;
    const meta = { ...(doc.metadata as Obj) };
    meta.labels = helmLabels(meta.labels as Obj | undefined, t);
    doc.metadata = meta;
  }
  const body = t.apply(escapeTemplateSyntax(toYaml(doc)));
  const text = condition ? `{{- if ${condition} }}\n${body}{{- end }}\n` : body;
  return { area, text };
}

/** A file name for a resource in its area: its name without the prefix (kind added on a clash). */
function fileName(r: Obj, ctx: Context): string {
  const name = String((r.metadata as Obj | undefined)?.name ?? String(r.kind).toLowerCase());
  if (r.kind === 'Deployment') return 'manager';
  return name.startsWith(ctx.prefix) ? name.slice(ctx.prefix.length) : name;
}

export interface ChartInput {
  config: ProjectConfig;
  /** The kustomize output's resources (config/default). */
  resources: Obj[];
  /** Resources of config/ areas config/default leaves out (config/prometheus, config/network-policy), switched off by default. */
  optional?: Obj[];
  output?: string;
}

/** The chart's files for a project; deterministic. */
export function chartFiles(input: ChartInput): FileSpec[] {
  const project = input.config.projectName;
  const dir = chartDir({ output: input.output });
  const deployment = input.resources.find((r) => r.kind === 'Deployment' && managerContainer(r));
  if (!deployment) {
    throw new DiagnosticError(
      error('KF1302', 'the kustomize output has no manager Deployment, so there is no chart to make', {
        hint: 'check config/default/kustomization.yaml lists ../manager (kubectl kustomize config/default shows what it deploys)',
      }),
    );
  }
  const namespace = String((deployment.metadata as Obj).namespace ?? `${project}-system`);
  const prefix = namespace.endsWith('-system') ? namespace.slice(0, -'system'.length) : `${project}-`;
  const all = [
    ...input.resources.filter((r) => r.kind !== 'Namespace'),
    ...(input.optional ?? []).filter(
      (o) => !input.resources.some((r) => r.kind === o.kind && (r.metadata as Obj)?.name === (o.metadata as Obj)?.name),
    ),
  ];
  const suffixes = [
    ...new Set(
      all
        .filter((r) => r.kind !== 'CustomResourceDefinition')
        .map((r) => String((r.metadata as Obj | undefined)?.name ?? ''))
        .filter((n) => n.startsWith(prefix))
        .map((n) => n.slice(prefix.length)),
    ),
  ].sort((a, b) => b.length - a.length || a.localeCompare(b));
  const ctx: Context = { project, prefix, namespace, suffixes };
  const files = new Map<string, string>();
  for (const r of all) {
    const { area, text } = templateResource(r, ctx);
    let path = `${dir}/templates/${area}/${fileName(r, ctx)}.yaml`;
    if (files.has(path)) path = `${dir}/templates/${area}/${fileName(r, ctx)}-${String(r.kind).toLowerCase()}.yaml`;
    files.set(path, text);
  }
  const defaults = managerDefaults(deployment);
  const has = (kind: string) => all.some((r) => r.kind === kind);
  const switches: Switches = {
    webhook:
      has('MutatingWebhookConfiguration') ||
      has('ValidatingWebhookConfiguration') ||
      all.some((r) => String((r.metadata as Obj)?.name) === `${prefix}webhook-service`),
    certManager: input.resources.some((r) => r.kind === 'Certificate' || r.kind === 'Issuer'),
    prometheus: input.resources.some((r) => r.kind === 'ServiceMonitor'),
    networkPolicy: input.resources.some((r) => r.kind === 'NetworkPolicy'),
    metrics: all.some((r) => r.kind === 'Service' && /metrics/.test(String((r.metadata as Obj)?.name))),
  };
  const specs: FileSpec[] = [...files]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, content]) => ({ path, policy: 'managed' as const, content }));
  specs.push(
    // Files of fixed text are handlebars templates (templates/helm); Helm's own template text
    // (_helpers.tpl, NOTES.txt, the resources) is built here, where its {{ }} need no escaping.
    {
      path: `${dir}/Chart.yaml`,
      policy: 'scaffolded',
      template: 'helm/Chart.yaml.hbs',
      data: { projectName: project },
    },
    {
      path: `${dir}/values.yaml`,
      policy: 'scaffolded',
      template: 'helm/values.yaml.hbs',
      data: valuesData(defaults, switches),
    },
    { path: `${dir}/values.schema.json`, policy: 'scaffolded', content: valuesSchema() },
    { path: `${dir}/.helmignore`, policy: 'scaffolded', template: 'helm/helmignore.hbs', data: {} },
    { path: `${dir}/templates/_helpers.tpl`, policy: 'scaffolded', content: helpers(project) },
    { path: `${dir}/templates/NOTES.txt`, policy: 'scaffolded', content: notes(project) },
    {
      path: '.github/workflows/test-chart.yml',
      policy: 'scaffolded',
      template: 'helm/test-chart.yml.hbs',
      data: { projectName: project, chartDir: dir },
    },
  );
  return specs;
}

interface Switches {
  webhook: boolean;
  certManager: boolean;
  prometheus: boolean;
  networkPolicy: boolean;
  metrics: boolean;
}

const indentYaml = (o: unknown, n: number) =>
  toYaml(o)
    .trimEnd()
    .split('\n')
    .map((l) => ' '.repeat(n) + l)
    .join('\n');

const yamlValue = (key: string, v: unknown, n: number): string => {
  const empty =
    (Array.isArray(v) && v.length === 0) ||
    (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
  if (empty || v === null || typeof v !== 'object')
    return `${' '.repeat(n)}${key}: ${empty ? (Array.isArray(v) ? '[]' : '{}') : toYaml(v).trimEnd()}`;
  return `${' '.repeat(n)}${key}:\n${indentYaml(v, n + 2)}`;
};

function valuesData(m: ManagerDefaults, s: Switches): Record<string, unknown> {
  return {
    replicas: m.replicas,
    repository: m.repository,
    tag: JSON.stringify(m.tag),
    pullPolicy: m.pullPolicy ?? '""',
    argsYaml: yamlValue('args', m.args, 2),
    envYaml: yamlValue('env', m.env, 2),
    resourcesYaml: yamlValue('resources', m.resources, 2),
    securityContextYaml: yamlValue('securityContext', m.securityContext, 2),
    podSecurityContextYaml: yamlValue('podSecurityContext', m.podSecurityContext, 2),
    terminationGracePeriodSeconds: m.terminationGracePeriodSeconds ?? 10,
    ...s,
  };
}

const obj = (properties: Obj, extra: Obj = {}) => ({ type: 'object', properties, ...extra });
const bool = (description: string) => ({ type: 'boolean', description });
const anyObj = (description: string) => ({ type: 'object', description });
const anyList = (description: string) => ({ type: 'array', description });

/** The JSON schema of values.yaml (draft 7, which Helm 3 and 4 read). */
export function valuesSchemaObject(): Obj {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Values of a kubeforge operator chart',
    ...obj(
      {
        manager: obj(
          {
            enabled: bool('Install the manager Deployment.'),
            replicas: {
              type: 'integer',
              minimum: 0,
              description: 'Replicas of the manager (leader election picks one to reconcile).',
            },
            image: obj(
              {
                repository: { type: 'string', minLength: 1, description: 'The manager image, without its tag.' },
                tag: { type: 'string', description: 'The image tag; empty when the repository is a full reference.' },
                pullPolicy: {
                  type: 'string',
                  enum: ['', 'Always', 'IfNotPresent', 'Never'],
                  description: 'The image pull policy (empty: the cluster default).',
                },
              },
              { required: ['repository'], additionalProperties: false },
            ),
            args: { type: 'array', items: { type: 'string' }, description: "The manager's command-line arguments." },
            env: {
              type: 'array',
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
              description: 'Environment variables of the manager container.',
            },
            resources: anyObj('Resource requests and limits of the manager container.'),
            securityContext: anyObj("The manager container's security context."),
            podSecurityContext: anyObj("The pod's security context."),
            terminationGracePeriodSeconds: { type: 'integer', minimum: 0 },
            pod: obj(
              {
                labels: { type: 'object', additionalProperties: { type: 'string' } },
                annotations: { type: 'object', additionalProperties: { type: 'string' } },
              },
              { additionalProperties: false },
            ),
            imagePullSecrets: anyList('Secrets to pull the image with.'),
            nodeSelector: { type: 'object', additionalProperties: { type: 'string' } },
            tolerations: anyList('Pod tolerations.'),
            affinity: anyObj('Pod affinity.'),
            topologySpreadConstraints: anyList('Pod topology spread constraints.'),
          },
          { required: ['enabled', 'replicas', 'image'], additionalProperties: false },
        ),
        rbac: obj(
          {
            helpers: obj(
              { enabled: bool('Install the admin/editor/viewer roles of each Kind.') },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false },
        ),
        crd: obj(
          { enabled: bool('Install the CRDs.'), keep: bool('Keep the CRDs when the release is uninstalled.') },
          { required: ['enabled', 'keep'], additionalProperties: false },
        ),
        metrics: obj(
          { enabled: bool('Install the metrics Service.') },
          { required: ['enabled'], additionalProperties: false },
        ),
        webhook: obj(
          { enabled: bool('Install the webhook configurations and Service.') },
          { required: ['enabled'], additionalProperties: false },
        ),
        certManager: obj(
          { enabled: bool("Install cert-manager's Issuer and Certificates.") },
          { required: ['enabled'], additionalProperties: false },
        ),
        prometheus: obj(
          { enabled: bool('Install the ServiceMonitor.') },
          { required: ['enabled'], additionalProperties: false },
        ),
        networkPolicy: obj(
          { enabled: bool('Install the NetworkPolicies.') },
          { required: ['enabled'], additionalProperties: false },
        ),
        nameOverride: { type: 'string', description: "Replaces the chart's name in resource names." },
        fullnameOverride: { type: 'string', description: 'Replaces the release-and-chart prefix of resource names.' },
      },
      { required: ['manager', 'crd'], additionalProperties: false },
    ),
  };
}

const valuesSchema = () => `${JSON.stringify(valuesSchemaObject(), null, 2)}\n`;

function helpers(project: string): string {
  return `{{/*
The chart's name (nameOverride replaces it).
*/}}
{{- define "${project}.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every resource name: the release name when it holds the chart's name, else
<release>-<chart> (fullnameOverride replaces it). Installed as release "${project}", the names are
config/default's (namePrefix ${project}-).
*/}}
{{- define "${project}.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
A resource name: <fullname>-<suffix>, at most 63 characters (the fullname is cut, never the suffix).
Takes a dict with "suffix" and "context" (the root context).
*/}}
{{- define "${project}.resourceName" -}}
{{- $fullname := include "${project}.fullname" .context }}
{{- $max := sub 62 (len .suffix) | int }}
{{- printf "%s-%s" (trunc $max $fullname | trimSuffix "-") .suffix | trunc 63 | trimSuffix "-" }}
{{- end }}
`;
}

function notes(project: string): string {
  return `${project} is installed in namespace {{ .Release.Namespace }} as release {{ .Release.Name }}.

  kubectl get deployment -n {{ .Release.Namespace }} -l control-plane=controller-manager
  kubectl logs -n {{ .Release.Namespace }} deployment/{{ include "${project}.resourceName" (dict "suffix" "controller-manager" "context" $) }} -c manager
{{- if .Values.crd.keep }}

The CRDs are kept when the release is uninstalled (crd.keep): delete them by hand to remove every custom resource.
{{- end }}
`;
}

/** The \`make helm-*\` targets (Kubebuilder's names), appended to the Makefile once. */
export function helmMakefileData(project: string, namespace: string, dir: string): Record<string, unknown> {
  return { projectName: project, namespace, chartDir: dir };
}

/** Runs `kubectl kustomize <dir>` in `cwd`; KF1300 when kubectl is missing or kustomize fails. */
function kustomize(cwd: string, dir: string): string {
  const kubectl = process.env.KUBECTL || 'kubectl';
  const r = spawnSync(kubectl, ['kustomize', dir], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  });
  if (r.error || r.status !== 0) {
    const why = r.error
      ? (r.error as NodeJS.ErrnoException).code === 'ENOENT'
        ? `${kubectl} was not found`
        : r.error.message
      : (r.stderr || '').trim().split('\n').slice(-3).join('; ');
    throw new DiagnosticError(
      error('KF1300', `\`${kubectl} kustomize ${dir}\` failed, so the chart cannot be made from config/: ${why}`, {
        file: join(cwd, dir, 'kustomization.yaml'),
        hint: 'install kubectl (the Makefile deploys with it too; KUBECTL=<path> picks one), or run `make build-installer` and pass --manifests dist/install.yaml',
      }),
    );
  }
  return r.stdout;
}

/** `namePrefix` and `namespace` of config/default, applied to an area config/default leaves out. */
function withPrefix(r: Obj, prefix: string, namespace: string): Obj {
  const meta = { ...((r.metadata as Obj | undefined) ?? {}) };
  meta.name = prefix + String(meta.name ?? '');
  meta.namespace = namespace;
  return { ...r, metadata: meta };
}

/**
 * The chart's inputs: the kustomize output of config/default (or the file `manifests` names,
 * relative to `cwd`), plus config/prometheus and config/network-policy when config/default does
 * not deploy them (switched off in values.yaml, as Kubebuilder adds them).
 */
export function chartSources(cwd: string, manifests: string | undefined): { resources: Obj[]; optional: Obj[] } {
  let resources: Obj[];
  if (manifests !== undefined) {
    const path = resolve(cwd, manifests);
    if (!existsSync(path)) {
      throw new DiagnosticError(
        error('KF1303', `--manifests ${manifests} does not exist`, {
          file: path,
          hint: 'run `make build-installer` to write dist/install.yaml, or leave --manifests out to read config/default',
        }),
      );
    }
    resources = parseManifests(readFileSync(path, 'utf8'), manifests);
  } else {
    resources = parseManifests(kustomize(cwd, 'config/default'), 'kubectl kustomize config/default');
  }
  const deployment = resources.find((r) => r.kind === 'Deployment');
  const namespace = String((deployment?.metadata as Obj | undefined)?.namespace ?? '');
  const optional: Obj[] = [];
  if (namespace.endsWith('-system')) {
    const prefix = namespace.slice(0, -'system'.length);
    for (const [dir, kind] of [
      ['config/prometheus', 'ServiceMonitor'],
      ['config/network-policy', 'NetworkPolicy'],
    ] as const) {
      if (resources.some((r) => r.kind === kind) || !existsSync(join(cwd, dir, 'kustomization.yaml'))) continue;
      optional.push(
        ...parseManifests(kustomize(cwd, dir), `kubectl kustomize ${dir}`).map((r) => withPrefix(r, prefix, namespace)),
      );
    }
  }
  return { resources, optional };
}

// ---------------------------------------------------------------------------------------------
// `kubeforge manifests` and the chart: the CRD templates follow config/crd/bases and the manager
// role template follows config/rbac/role.yaml. A chart template made by {@link chartFiles} is read
// back into the resource it was made from (release "<project>" in "<project>-system", which is
// config/default's naming), its generated part replaced, and written again by the same code.

/** The resource a chart template was made from (the inverse of {@link templateResource} at config/default's naming). */
function untemplate(text: string, ctx: Context): { doc: Obj; suffixes: string[] } | undefined {
  const suffixes = new Set<string>();
  // The resources' own `{{` (escaped by escapeTemplateSyntax) are set aside while the chart's expressions are undone.
  const open = '__KFOPEN__';
  const body = text
    .split(ESCAPED_OPEN)
    .join(open)
    .split('\n')
    .filter((l) => !/^\s*\{\{-.*\}\}\s*$/.test(l) && !/^# Code generated by /.test(l))
    .join('\n')
    .replace(
      /\{\{ include "[^"]+\.resourceName" \(dict "suffix" "([^"]+)" "context" \$\) \}\}/g,
      (_m, suffix: string) => {
        suffixes.add(suffix);
        return ctx.prefix + suffix;
      },
    )
    .replace(/\{\{ \.Release\.Namespace \}\}/g, ctx.namespace)
    .replace(/\{\{ \.Release\.Service \}\}/g, 'kustomize')
    .replace(/\{\{[^}]*\}\}(-\{\{[^}]*\}\})?/g, 'templated')
    .split(open)
    .join('{{');
  const [doc] = parseManifests(body, 'chart template');
  if (!doc) return undefined;
  const meta = { ...((doc.metadata as Obj | undefined) ?? {}) };
  const labels = { ...((meta.labels as Obj | undefined) ?? {}) };
  delete labels['app.kubernetes.io/instance'];
  delete labels['helm.sh/chart'];
  meta.labels = labels;
  if (meta.annotations) {
    const annotations = { ...(meta.annotations as Obj) };
    delete annotations['helm.sh/resource-policy'];
    meta.annotations = annotations;
  }
  return {
    doc: { ...doc, metadata: meta },
    suffixes: [...suffixes].sort((a, b) => b.length - a.length || a.localeCompare(b)),
  };
}

/** A file of the manifests run (path relative to the project, YAML text). */
export interface GeneratedFile {
  path: string;
  content: string;
}

/** The tool named in the header of the chart's generated templates (as `edit` writes them). */
export const CHART_TOOL = 'kubeforge';

/** What {@link chartFilesFor} needs: the chart of a project that records the helm plugin. */
export interface ChartSync {
  dir: string;
  ctx: Context;
  read(path: string): string | undefined;
  /** The names in a folder of the project (config/rbac), when the caller can list it. */
  list?(dir: string): string[];
}

/** The chart to keep in step, or undefined when PROJECT does not record the plugin or the chart has no Chart.yaml. */
export function chartSyncOf(
  config: ProjectConfig,
  read: (path: string) => string | undefined,
  list?: (dir: string) => string[],
): ChartSync | undefined {
  const cfg = helmConfigOf(config);
  if (cfg === undefined) return undefined;
  const dir = chartDir(cfg);
  if (read(`${dir}/Chart.yaml`) === undefined) return undefined;
  return {
    dir,
    read,
    list,
    ctx: {
      project: config.projectName,
      prefix: `${config.projectName}-`,
      namespace: `${config.projectName}-system`,
      suffixes: [],
    },
  };
}

/** The chart template path of a CRD file of config/crd/bases (`<group>_<plural>.yaml` holds `<plural>.<group>`). */
export function chartCrdPathOf(sync: ChartSync, crdFile: string): string | undefined {
  const m = /^config\/crd\/bases\/([^_/]+)_([^/]+)\.yaml$/.exec(crdFile);
  return m ? `${sync.dir}/templates/crd/${m[2]}.${m[1]}.yaml` : undefined;
}

/** The chart's CRD templates (candidates for removal when their CRD is gone). */
export function chartCrdCandidates(sync: ChartSync, list: (dir: string) => string[]): string[] {
  const dir = `${sync.dir}/templates/crd`;
  return list(dir)
    .filter((n) => /\.ya?ml$/.test(n))
    .map((n) => `${dir}/${n}`);
}

/**
 * The CRDs of a config/crd/bases file the CRD generator made (crd.ts' CRDManifest, read back from
 * its YAML: the chart's text follows the file's bytes, not the objects' key order). The one place
 * the chart takes a CRD's type on trust: the file is the generator's own output, never a user's.
 */
function generatedCRDsOf(file: GeneratedFile): CRDManifest[] {
  return parseManifests(file.content, file.path).filter((r) => r.kind === 'CustomResourceDefinition') as CRDManifest[];
}

/**
 * The chart templates that follow one generated file (its YAML without header): each CRD of a
 * config/crd/bases file as templates/crd/<name>.yaml (the conversion webhook, cert-manager
 * annotation and labels kept from the chart: they come from config/default's patches), and
 * config/rbac/role.yaml's manager-role rules into templates/rbac/manager-role.yaml (when the chart
 * has it). Texts are without header. Other changes to config/ (a new webhook, a patch) reach the
 * chart with `edit --plugins helm/v2-alpha`.
 */
export function chartFilesFor(sync: ChartSync, file: GeneratedFile): { path: string; text: string }[] {
  const { ctx, read } = sync;
  const out: { path: string; text: string }[] = [];
  if (file.path.startsWith(`${CRD_DIR}/`)) {
    for (const crd of generatedCRDsOf(file)) {
      const path = `${sync.dir}/templates/crd/${crd.metadata.name}.yaml`;
      const old = read(path);
      const back = old === undefined ? undefined : untemplate(old, ctx);
      const before = back?.doc;
      let resource: Obj = crd;
      if (before) {
        const oldSpec = (before.spec as Obj | undefined) ?? {};
        const newSpec: Obj = crd.spec;
        const spec: Obj = {};
        // The chart's key order, the generated values; conversion stays the chart's (config/crd/patches).
        for (const k of Object.keys(oldSpec))
          if (k === 'conversion' || k in newSpec) spec[k] = k === 'conversion' ? oldSpec[k] : newSpec[k];
        for (const [k, v] of Object.entries(newSpec)) if (!(k in spec)) spec[k] = v;
        const meta = { ...(before.metadata as Obj) };
        meta.annotations = { ...((meta.annotations as Obj | undefined) ?? {}), ...crd.metadata.annotations };
        resource = { ...before, metadata: meta, spec };
      }
      out.push({ path, text: templateResource(resource, { ...ctx, suffixes: back?.suffixes ?? [] }).text });
    }
  } else if (file.path === 'config/rbac/role.yaml') {
    const rolePath = `${sync.dir}/templates/rbac/manager-role.yaml`;
    const old = read(rolePath);
    const generated = parseManifests(file.content, file.path).find((r) => (r.metadata as Obj)?.name === 'manager-role');
    const back = old === undefined ? undefined : untemplate(old, ctx);
    if (generated && back) {
      // The kind and namespace follow the manager's scope (a Role in the release's namespace, or a ClusterRole).
      const doc: Obj = { ...back.doc, kind: generated.kind, rules: generated.rules ?? [] };
      doc.metadata = scopedMetadata(doc.metadata as Obj, generated.kind === 'Role' ? ctx.namespace : undefined);
      out.push({ path: rolePath, text: templateResource(doc, { ...ctx, suffixes: back.suffixes }).text });
      out.push(...scopeFollowers(sync));
    }
  }
  return out;
}

/** Metadata with `namespace` after `name` (kustomize's order), or without it (`namespace` undefined). */
function scopedMetadata(meta: Obj, namespace: string | undefined): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(meta)) {
    if (k === 'namespace') continue;
    out[k] = v;
    if (k === 'name' && namespace !== undefined) out.namespace = namespace;
  }
  return out;
}

/** The first object of a config/ file read through the sync (undefined when missing or not YAML). */
function configObject(sync: ChartSync, path: string, kind?: string): Obj | undefined {
  const text = sync.read(path);
  if (text === undefined) return undefined;
  try {
    return parseManifests(text, path).find((r) => kind === undefined || r.kind === kind);
  } catch {
    return undefined;
  }
}

/**
 * The chart templates besides the manager role that depend on the manager's scope, made to
 * follow config/ (`edit --namespaced[=false]` switches config/, and its manifests step or the
 * next `kubeforge manifests` brings the chart along; `--check` fails while they differ): the kind,
 * namespace and roleRef kind of each role and binding of config/rbac (the manager's binding, each
 * Kind's admin / editor / viewer roles), and the manager Deployment's Downward API environment
 * (WATCH_NAMESPACE, config/manager/manager.yaml). A template already as config/ says is not rewritten.
 */
function scopeFollowers(sync: ChartSync): { path: string; text: string }[] {
  const { ctx, read } = sync;
  const out: { path: string; text: string }[] = [];
  const rbacKinds = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
  const files = (sync.list?.('config/rbac') ?? []).filter((n) => /\.ya?ml$/.test(n) && n !== 'role.yaml').sort();
  for (const file of files) {
    let objects: Obj[] = [];
    try {
      objects = parseManifests(read(`config/rbac/${file}`) ?? '', `config/rbac/${file}`);
    } catch {
      continue; // not this sync's to report: kustomize says so when the chart is made
    }
    for (const r of objects) {
      const name = String((r.metadata as Obj | undefined)?.name ?? '');
      if (!rbacKinds.has(String(r.kind)) || name === 'manager-role') continue;
      const path = `${sync.dir}/templates/rbac/${name}.yaml`;
      const text = read(path);
      const back = text === undefined ? undefined : untemplate(text, ctx);
      if (!back) continue;
      const roleKind = (r.roleRef as Obj | undefined)?.kind;
      const chartRoleKind = (back.doc.roleRef as Obj | undefined)?.kind;
      if (back.doc.kind === r.kind && (roleKind === undefined || chartRoleKind === roleKind)) continue;
      const doc: Obj = { ...back.doc, kind: r.kind };
      if (roleKind !== undefined) doc.roleRef = { ...((doc.roleRef as Obj | undefined) ?? {}), kind: roleKind };
      const namespaced = r.kind === 'Role' || r.kind === 'RoleBinding';
      doc.metadata = scopedMetadata(doc.metadata as Obj, namespaced ? ctx.namespace : undefined);
      out.push({ path, text: templateResource(doc, { ...ctx, suffixes: back.suffixes }).text });
    }
  }
  const deployment = configObject(sync, 'config/manager/manager.yaml', 'Deployment');
  const managerPath = `${sync.dir}/templates/manager/manager.yaml`;
  const managerText = read(managerPath);
  const want = deployment ? fixedEnv(managerContainer(deployment) ?? {}) : undefined;
  const managerBack = managerText === undefined ? undefined : untemplate(managerText, ctx);
  const chartContainer = managerBack ? managerContainer(managerBack.doc) : undefined;
  if (want && managerBack && chartContainer) {
    const have = fixedEnv(chartContainer);
    if (JSON.stringify(have) !== JSON.stringify(want)) {
      const doc = structuredClone(managerBack.doc);
      const c = managerContainer(doc);
      if (!c) throw new Error(`helm: the copy of ${managerPath} lost its manager container`);
      c.env = want.length ? want : null;
      // The values-driven blocks the template adds read back as empty keys: gone again, so they are added again.
      const pod = ((doc.spec as Obj).template as Obj).spec as Obj;
      for (const k of POD_VALUE_KEYS) if (pod[k] === null) delete pod[k];
      out.push({ path: managerPath, text: templateResource(doc, { ...ctx, suffixes: managerBack.suffixes }).text });
    }
  }
  return out;
}
