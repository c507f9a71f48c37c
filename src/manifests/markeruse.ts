/**
 * The shape in which the analysis hands marker uses to the RBAC and webhook generators, and
 * small helpers to read their arguments. Kept free of ts-morph so generators and tests can
 * build MarkerUse values by hand.
 */
import { type Diagnostic, error } from '../diagnostics/index.js';

/**
 * One decorator found in the source, with its literal argument: the analysis' type (a type-only
 * import, so this module never loads the analysis or ts-morph).
 */
export type { MarkerUse } from './analyze.js';
import type { MarkerUse } from './analyze.js';

export type Args = Record<string, unknown>;

/**
 * Code for a marker argument of the wrong shape (missing, unknown, wrong type). The analysis checks
 * argument shapes against the marker table too; the manifests pipeline drops these when the
 * analysis already reported an error at the same place, so a problem is reported once.
 */
export const ARGUMENT_SHAPE_CODE = 'KF4100';

/** Reads marker arguments, recording a located diagnostic for each argument of the wrong type. */
export class ArgReader {
  constructor(
    readonly use: MarkerUse,
    readonly diagnostics: Diagnostic[],
    readonly code: string,
  ) {}

  get args(): Args {
    const a = this.use.args;
    return a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as Args) : {};
  }

  /** The object argument is present and is an object literal. */
  checkObject(): boolean {
    const a = this.use.args;
    if (a === null || typeof a !== 'object' || Array.isArray(a)) {
      this.shape(`@${this.use.marker} on ${this.use.target} takes one object literal argument`, `write @${this.use.marker}({ ... })`);
      return false;
    }
    return true;
  }

  /** Reports arguments that the marker does not know. */
  checkKnown(known: readonly string[]): void {
    for (const key of Object.keys(this.args).sort()) {
      if (!known.includes(key)) {
        this.shape(
          `@${this.use.marker} on ${this.use.target} has an unknown argument '${key}'`,
          `remove it; known arguments: ${known.join(', ')}`,
        );
      }
    }
  }

  /** A semantic problem with the marker (its own code). */
  fail(message: string, hint?: string): void {
    this.diagnostics.push(error(this.code, message, { file: this.use.file, line: this.use.line, column: this.use.column, hint }));
  }

  /** An argument of the wrong shape ({@link ARGUMENT_SHAPE_CODE}). */
  shape(message: string, hint?: string): void {
    this.diagnostics.push(error(ARGUMENT_SHAPE_CODE, message, { file: this.use.file, line: this.use.line, column: this.use.column, hint }));
  }

  string(name: string, required = false): string | undefined {
    const v = this.args[name];
    if (v === undefined) {
      if (required) this.shape(`@${this.use.marker} on ${this.use.target} is missing the required argument '${name}'`, `add ${name}: '...'`);
      return undefined;
    }
    if (typeof v !== 'string') {
      this.shape(`@${this.use.marker} on ${this.use.target}: '${name}' must be a string, found ${describe(v)}`, `write ${name}: '...'`);
      return undefined;
    }
    return v;
  }

  boolean(name: string, required = false): boolean | undefined {
    const v = this.args[name];
    if (v === undefined) {
      if (required) this.shape(`@${this.use.marker} on ${this.use.target} is missing the required argument '${name}'`, `add ${name}: true or ${name}: false`);
      return undefined;
    }
    if (typeof v !== 'boolean') {
      this.shape(`@${this.use.marker} on ${this.use.target}: '${name}' must be a boolean, found ${describe(v)}`, `write ${name}: true or ${name}: false`);
      return undefined;
    }
    return v;
  }

  integer(name: string): number | undefined {
    const v = this.args[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      this.shape(`@${this.use.marker} on ${this.use.target}: '${name}' must be an integer, found ${describe(v)}`, `write ${name}: 10`);
      return undefined;
    }
    return v;
  }

  /** A string array; a single string is accepted as a one-element list. */
  strings(name: string, required = false): string[] | undefined {
    const v = this.args[name];
    if (v === undefined) {
      if (required) this.shape(`@${this.use.marker} on ${this.use.target} is missing the required argument '${name}'`, `add ${name}: ['...']`);
      return undefined;
    }
    const list = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) {
      this.shape(`@${this.use.marker} on ${this.use.target}: '${name}' must be an array of strings, found ${describe(v)}`, `write ${name}: ['a', 'b']`);
      return undefined;
    }
    return list as string[];
  }
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

/** Marker names are compared without regard to case (`Rbac`, `rbac`, `RBAC`). */
export function isMarker(use: MarkerUse, name: string): boolean {
  return use.marker.toLowerCase() === name.toLowerCase();
}

/** Stable order for marker uses: file, line, column. */
export function bySource(a: MarkerUse, b: MarkerUse): number {
  return (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column;
}
