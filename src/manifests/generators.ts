/**
 * The generators behind `kubeforge manifests`, one interface for all: each reads the analysis and
 * returns the managed files it owns, reporting problems to the reporter passed in. New outputs
 * (conversion, CEL checks) are new generators; the pipeline (generate.ts) runs them in order and
 * never looks inside.
 */
import { error, Reporter } from '../diagnostics/index.js';
import type { Analysis } from '../analysis/analyze.js';
import { generateCRDs } from './crd.js';
import { checkGeneratedCRDs } from './crdcheck/index.js';
import { generateRbac } from './rbac.js';
import { generateWebhooks } from './webhook.js';
import { CRD_DIR, type OutputFile, RBAC_FILE, WEBHOOK_FILE, output } from './writer.js';
import { YamlWriter, toYamlDocuments } from './yaml.js';

/** What every generator receives: the analysis' findings (a type-only view; no ts-morph). */
export type GeneratorInput = Pick<Analysis, 'kinds' | 'rbac' | 'webhooks' | 'webhookConfigurations' | 'generatorVersion' | 'rel'>;

export interface Generator {
  /** Short name (`crd`, `rbac`, `webhook`). */
  readonly name: string;
  /** The files this generator owns, computed in memory; problems go to the reporter. Never writes. */
  generate(input: GeneratorInput, reporter: Reporter): OutputFile[];
}

/**
 * One file per CRD, `config/crd/bases/<group>_<plural>.yaml`. One YAML writer for every CRD, so
 * subtrees they share (embedded Kubernetes types) are written once. Two CRDs for one path: KF4502.
 */
export function crdFiles(crds: readonly Record<string, unknown>[], reporter: Reporter): OutputFile[] {
  const outputs: OutputFile[] = [];
  const byPath = new Map<string, string>();
  const yaml = new YamlWriter();
  for (const crd of crds) yaml.add(crd);
  for (const crd of crds) {
    const spec = (crd.spec ?? {}) as { group?: string; names?: { plural?: string; kind?: string } };
    const path = `${CRD_DIR}/${spec.group}_${spec.names?.plural}.yaml`;
    const name = `${spec.names?.kind ?? '?'} (${spec.group})`;
    const previous = byPath.get(path);
    if (previous !== undefined) {
      reporter.report(error('KF4502', `two CustomResourceDefinitions would be written to ${path}: ${previous} and ${name}`, { hint: 'give the Kinds different plural names with @Resource({ path })' }));
      continue;
    }
    byPath.set(path, name);
    outputs.push(output(path, yaml.document(crd)));
  }
  return outputs;
}

/**
 * The CRDs, each checked against the API server's own rules before anything is written
 * (crdcheck/): a CRD it would refuse is an error at the marker or field that caused it. A line
 * where the analysis or generation already reported an error gets no second report.
 */
export const crdGenerator: Generator = {
  name: 'crd',
  generate: (input, reporter) => {
    // What the analysis already reported (same reporter) and what generation reports now.
    const analysed = reporter.diagnostics();
    const scratch = new Reporter();
    const crds = generateCRDs(input.kinds, input.generatorVersion, scratch, input.rel);
    const generated = scratch.diagnostics();
    for (const d of generated) reporter.report(d);
    for (const d of checkGeneratedCRDs(crds, [...analysed, ...generated])) reporter.report(d);
    return crdFiles(crds, reporter);
  },
};

export const rbacGenerator: Generator = {
  name: 'rbac',
  generate: (input, reporter) => [output(RBAC_FILE, toYamlDocuments(generateRbac(input.rbac, reporter).objects))],
};

export const webhookGenerator: Generator = {
  name: 'webhook',
  generate: (input, reporter) => {
    const objects = generateWebhooks(input.webhooks, input.webhookConfigurations, reporter);
    return objects.length > 0 ? [output(WEBHOOK_FILE, toYamlDocuments(objects))] : [];
  },
};

/** The generators `kubeforge manifests` runs, in this order. */
export const DEFAULT_GENERATORS: readonly Generator[] = [crdGenerator, rbacGenerator, webhookGenerator];

/** Runs the generators; their files sorted by path. */
export function runGenerators(input: GeneratorInput, reporter: Reporter, generators: readonly Generator[] = DEFAULT_GENERATORS): OutputFile[] {
  return generators.flatMap((g) => g.generate(input, reporter)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
