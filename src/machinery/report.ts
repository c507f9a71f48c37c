/**
 * The machine-readable account of one command (`--json`): what it planned or wrote, the
 * diagnostics it reported and the findings of its checks, gathered while it runs and printed
 * once, as one JSON document, when it ends. Its shape is `schemas/output.schema.json` (shipped in
 * the package); docs/commands.md documents it. Commands fill it through {@link CommandIo.report}
 * (the runner records every plan and commit itself); nothing here prints.
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { Change } from './tree.js';

/** Bump when a field changes meaning or goes away (new optional fields do not bump it). */
export const OUTPUT_SCHEMA_VERSION = 1;

/** A file written (or that would be). */
export interface WrittenFile {
  path: string;
  /** create: it did not exist; update: it did. Absent when the command cannot tell (alpha update). */
  action?: 'create' | 'update';
}

/** The files of a plan (nothing written: --dry-run, --check) or of a result (written). */
export interface FileSet {
  /** The folder the paths are relative to (absolute). */
  root: string;
  written: WrittenFile[];
  /** Files that exist and that the command leaves as they are although it has a version of them (kept files). */
  kept: { path: string }[];
  removed: { path: string }[];
}

/** One finding of a check: `manifests --check` / `docs --check` (a stale file) or `manifests --check-compat`. */
export interface Finding {
  check: 'check' | 'check-compat';
  /** `out-of-date` for --check; the compatibility rule (`field-removed`, ...) for --check-compat. */
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  /** --check: the stale file; --check-compat: where the change is in the project's sources. */
  file?: string;
  line?: number;
  column?: number;
  /** --check-compat: the CRD's group and Kind (`CronJob.batch.example.com`). */
  groupKind?: string;
  /** --check-compat: the API version, when the finding is about one. */
  version?: string;
  /** --check-compat: the field (`.spec.size`), when the finding is about one. */
  field?: string;
  /** --check-compat: the rule was named by --allow (an error turned into a warning). */
  allowed?: boolean;
}

/** Facts a command reports beyond files and diagnostics; each optional, each in the schema. */
export interface ReportDetails {
  /** `version`. */
  version?: { kubeforge: string; node: string };
  /** `completion`: the script. */
  script?: string;
  /** `setup-envtest`: the folder for KUBEBUILDER_ASSETS. */
  assets?: string;
  /** `--help` (any command): the help text. */
  help?: string;
  /** `alpha update`. */
  update?: { from: string; to: string; branch?: string; committed: boolean; conflicts: string[] };
}

/** The document printed by `--json`. */
export interface OutputDocument extends ReportDetails {
  schemaVersion: number;
  kubeforgeVersion: string;
  /** The command as typed without flags: `create api`, `manifests`, `` for the bare program. */
  command: string;
  ok: boolean;
  exitCode: number;
  plan?: FileSet;
  result?: FileSet;
  diagnostics: Diagnostic[];
  findings?: Finding[];
  /** Warnings printed as text without a KF code (`warning: ...`), in the order printed. */
  warnings?: string[];
}

/** By path as the plans sort them (code points, not the locale). */
const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

const diagnosticKey = (d: Diagnostic) => `${d.severity}|${d.code}|${d.file}|${d.line}|${d.column}|${d.message}`;

export class CommandReport {
  command = '';
  private readonly files: { plan?: FileSet; result?: FileSet } = {};
  private readonly diagnosticList: Diagnostic[] = [];
  private readonly seen = new Set<string>();
  private readonly findingList: Finding[] = [];
  private readonly warningList: string[] = [];
  private findingsReported = false;
  readonly details: ReportDetails = {};

  /**
   * Records changes planned (`plan`: nothing written) or committed (`result`) under `root`; later
   * records of the same file win (a command that plans in steps).
   */
  recordChanges(
    phase: 'plan' | 'result',
    root: string,
    changes: readonly Pick<Change, 'kind' | 'path'>[],
    kept: readonly string[] = [],
  ): void {
    this.files[phase] ??= { root, written: [], kept: [], removed: [] };
    const set = this.files[phase];
    for (const c of changes) {
      set.written = set.written.filter((w) => w.path !== c.path);
      set.removed = set.removed.filter((r) => r.path !== c.path);
      if (c.kind === 'delete') set.removed.push({ path: c.path });
      else set.written.push({ path: c.path, action: c.kind });
    }
    for (const path of kept) if (!set.kept.some((k) => k.path === path)) set.kept.push({ path });
  }

  /** Records files written without a plan of changes (alpha update: the merge's result). */
  recordWritten(root: string, written: readonly string[], removed: readonly string[]): void {
    this.files.result ??= { root, written: [], kept: [], removed: [] };
    const set = this.files.result;
    set.written.push(...written.map((path) => ({ path })));
    set.removed.push(...removed.map((path) => ({ path })));
  }

  /** Diagnostics the command reported (warnings, or the errors that stopped it); a repeat is dropped. */
  addDiagnostics(list: readonly Diagnostic[]): void {
    for (const d of list) {
      const key = diagnosticKey(d);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.diagnosticList.push(d);
    }
  }

  /** A warning the command printed as text, without a KF code (`warning: ...`). */
  addWarning(text: string): void {
    if (!this.warningList.includes(text)) this.warningList.push(text);
  }

  /** A check ran (`findings` is then in the document, empty when it found nothing). */
  addFindings(list: readonly Finding[]): void {
    this.findingsReported = true;
    this.findingList.push(...list);
  }

  /** The document for a command that ended with `exitCode`. */
  document(kubeforgeVersion: string, exitCode: number): OutputDocument {
    const sortFiles = (s: FileSet | undefined): FileSet | undefined =>
      s && {
        root: s.root,
        written: [...s.written].sort(byPath),
        kept: [...s.kept].sort(byPath),
        removed: [...s.removed].sort(byPath),
      };
    const plan = sortFiles(this.files.plan);
    const result = sortFiles(this.files.result);
    return {
      schemaVersion: OUTPUT_SCHEMA_VERSION,
      kubeforgeVersion,
      command: this.command,
      ok: exitCode === 0,
      exitCode,
      ...(plan && { plan }),
      ...(result && { result }),
      diagnostics: this.diagnosticList.map((d) => ({
        code: d.code,
        severity: d.severity,
        message: d.message,
        ...(d.file !== undefined && { file: d.file }),
        ...(d.line !== undefined && { line: d.line }),
        ...(d.column !== undefined && { column: d.column }),
        ...(d.hint !== undefined && { hint: d.hint }),
      })),
      ...(this.findingsReported && { findings: this.findingList }),
      ...(this.warningList.length > 0 && { warnings: this.warningList }),
      ...this.details,
    };
  }
}
