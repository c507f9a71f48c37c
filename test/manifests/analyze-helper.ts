// Loader, analysis and the CRD generator in one call, for tests that check CRDs and the
// diagnostics found on the way (RBAC and webhook generators have their own tests).
import { type Analysis, type AnalyzeOptions, analyzeProject as analyze } from '../../src/analysis/analyze.js';
import { type Diagnostic, Reporter } from '../../src/diagnostics/index.js';
import { type CRDManifest, generateCRDs } from '../../src/manifests/crd.js';

export async function analyzeProject(
  options: AnalyzeOptions,
): Promise<Analysis & { crds: CRDManifest[]; diagnostics: Diagnostic[] }> {
  const reporter = new Reporter();
  const analysis = await analyze(options, reporter);
  const crds = generateCRDs(analysis.kinds, analysis.generatorVersion, reporter, analysis.rel);
  return { ...analysis, crds, diagnostics: reporter.diagnostics() };
}
