/**
 * Located diagnostics: every user-facing problem kubeforge reports (bad flags, invalid
 * markers, unsupported types, scaffold conflicts) is a Diagnostic. Analysis collects all of
 * them before failing; the CLI prints them with {@link formatDiagnostics} and exits 1.
 *
 * Code ranges:
 *   KF1xxx  project, naming, scaffolding (init, create)
 *   KF2xxx  markers (unknown, misplaced, non-literal arguments)
 *   KF3xxx  TypeScript type -> schema (unsupported types, recursion)
 *   KF4xxx  manifests (versions, RBAC, webhooks, output); KF46xx: the CRD check (src/manifests/crdcheck)
 *   KF9xxx  internal / environment
 * Every code is listed, with its meaning, in ./codes.ts (rendered into docs/diagnostics.md).
 */
export type Severity = 'error' | 'warning';

export interface Diagnostic {
  /** Stable code such as `KF2001`; listed in src/diagnostics/codes.ts and docs/diagnostics.md. */
  code: string;
  severity: Severity;
  /** What is wrong, naming the symbol concerned. */
  message: string;
  /** How to fix it. */
  hint?: string;
  /** Path of the file concerned (absolute or relative to the project root). */
  file?: string;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  column?: number;
}

const DIAGNOSTIC_ERROR = Symbol.for('kubeforge.DiagnosticError');

/** Thrown by library code when one or more error diagnostics stop an operation. */
export class DiagnosticError extends Error {
  /**
   * `instanceof DiagnosticError` holds for one made by another copy of this module too: the CLI's
   * start-up code runs bundled (scripts/bundle-cli.mjs) and meets the errors of the commands it
   * imports lazily as ES modules. Subclasses keep the ordinary prototype check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asks about, a subclass included
    if (this !== DiagnosticError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && DIAGNOSTIC_ERROR in value;
  }
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: Diagnostic | readonly Diagnostic[]) {
    const list = Array.isArray(diagnostics) ? (diagnostics as readonly Diagnostic[]) : [diagnostics as Diagnostic];
    super(list.map((d) => `${d.code} ${d.message}`).join('\n'));
    this.name = 'DiagnosticError';
    this.diagnostics = list;
  }
}
Object.defineProperty(DiagnosticError.prototype, DIAGNOSTIC_ERROR, { value: true });

export function error(
  code: string,
  message: string,
  extra: Partial<Omit<Diagnostic, 'code' | 'message'>> = {},
): Diagnostic {
  return { code, severity: 'error', message, ...extra };
}

export function warning(
  code: string,
  message: string,
  extra: Partial<Omit<Diagnostic, 'code' | 'message'>> = {},
): Diagnostic {
  return { code, severity: 'warning', message, ...extra };
}

/**
 * Collects the diagnostics of one run. Passed explicitly to every stage that can find a problem
 * (loader, analysis, schema, generators), so that no stage mutates another's list.
 */
export class Reporter {
  private readonly list: Diagnostic[] = [];

  report(d: Diagnostic): void {
    this.list.push(d);
  }

  /** How many diagnostics were reported so far (a stage compares it before and after a check). */
  get count(): number {
    return this.list.length;
  }

  /** Everything reported, sorted by place and without repeats (the same problem found twice). */
  diagnostics(): Diagnostic[] {
    const seen = new Set<string>();
    return sortDiagnostics(this.list).filter((d) => {
      const k = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
}

/**
 * A reporter that reports to `target` (and answers `count` and `diagnostics()` from it), and also
 * hands each diagnostic to `also`: a stage that files what it reports somewhere too (the analysis
 * per root file, the manifests pipeline per generator) without a second list to merge.
 */
export class TeeReporter extends Reporter {
  constructor(
    private readonly target: Reporter,
    private readonly also: (d: Diagnostic) => void,
  ) {
    super();
  }
  override report(d: Diagnostic): void {
    this.target.report(d);
    this.also(d);
  }
  override get count(): number {
    return this.target.count;
  }
  override diagnostics(): Diagnostic[] {
    return this.target.diagnostics();
  }
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Sort by file, line, column, code: output order must not depend on discovery order. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      a.code.localeCompare(b.code) ||
      a.message.localeCompare(b.message),
  );
}

export interface FormatOptions {
  /** ANSI colours (the CLI turns them on only on a TTY without --no-color). */
  color?: boolean;
  /** Reads a file's text for the code frame; omitted means no frame. */
  readSource?: (file: string) => string | undefined;
  /** Paths are shown relative to this folder when they are inside it. */
  cwd?: string;
}

const ansi = (on: boolean, code: string) => (s: string) => (on ? `\u001b[${code}m${s}\u001b[0m` : s);

function relativeTo(cwd: string | undefined, file: string): string {
  if (!cwd) return file;
  const prefix = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return file.startsWith(prefix) ? file.slice(prefix.length) : file;
}

/** `file:line:col  KF1234  message`, then a code frame and `hint: ...` when known. */
function formatDiagnostic(d: Diagnostic, options: FormatOptions = {}): string {
  const color = options.color ?? false;
  const red = ansi(color, '31');
  const yellow = ansi(color, '33');
  const dim = ansi(color, '2');
  const cyan = ansi(color, '36');
  let location = '';
  if (d.file) {
    location = relativeTo(options.cwd, d.file);
    if (d.line !== undefined) location += `:${d.line}`;
    if (d.line !== undefined && d.column !== undefined) location += `:${d.column}`;
  }
  const code = d.severity === 'error' ? red(d.code) : yellow(d.code);
  const lines = [`${location ? `${cyan(location)}  ` : ''}${code}  ${d.message}`];
  if (d.file && d.line !== undefined && options.readSource) {
    const text = options.readSource(d.file);
    if (text !== undefined) lines.push(...codeFrame(text, d.line, d.column).map(dim));
  }
  if (d.hint) lines.push(`  hint: ${d.hint}`);
  return lines.join('\n');
}

export function formatDiagnostics(diagnostics: readonly Diagnostic[], options: FormatOptions = {}): string {
  const sorted = sortDiagnostics(diagnostics);
  const errors = sorted.filter((d) => d.severity === 'error').length;
  const warnings = sorted.length - errors;
  const summary = [
    errors ? `${errors} error${errors === 1 ? '' : 's'}` : '',
    warnings ? `${warnings} warning${warnings === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${sorted.map((d) => formatDiagnostic(d, options)).join('\n\n')}\n\n${summary}\n`;
}

/** Two lines of context either side and a caret under the column. */
export function codeFrame(text: string, line: number, column?: number): string[] {
  const all = text.split(/\r?\n/);
  const first = Math.max(1, line - 2);
  const last = Math.min(all.length, line + 2);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const marker = n === line ? '>' : ' ';
    out.push(`  ${marker} ${String(n).padStart(width)} | ${all[n - 1] ?? ''}`);
    if (n === line && column !== undefined && column > 0) {
      out.push(`    ${' '.repeat(width)} | ${' '.repeat(column - 1)}^`);
    }
  }
  return out;
}
