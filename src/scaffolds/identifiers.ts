/**
 * Identifiers of generated TypeScript that cannot collide. A scaffolded file declares or imports
 * names derived from the Kind (`CronJob`, `cronJob`, `newCronJob`) next to names of its own
 * (`Client`, `request`, `ctx`, `Promise`, `assert`). Rather than refusing the Kinds that would
 * clash, each file's own names are collected from its template (see TsEditor.scopeNames) and every
 * Kind-derived name is claimed in a {@link Scope}: the preferred spelling when it is free, else an
 * alternative (`import { Promise as PromiseKind }`, `packageObject` for a variable of Kind Package).
 */

/**
 * Words that cannot name a variable, parameter or import in a TypeScript module (strict mode), and
 * names TypeScript reserves or refuses to redeclare; contextual keywords are included so that no
 * generated line depends on how a parser reads them.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  // ECMAScript reserved words, strict mode and module code included
  'await',
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'implements',
  'import',
  'in',
  'instanceof',
  'interface',
  'let',
  'new',
  'null',
  'package',
  'private',
  'protected',
  'public',
  'return',
  'static',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
  // not bindable in strict mode, or redeclaration refused by TypeScript
  'arguments',
  'eval',
  'undefined',
  'NaN',
  'Infinity',
  'globalThis',
  'require',
  'exports',
  'module',
  // TypeScript's contextual keywords and type keywords
  'abstract',
  'accessor',
  'any',
  'as',
  'assert',
  'asserts',
  'async',
  'bigint',
  'boolean',
  'constructor',
  'declare',
  'from',
  'get',
  'global',
  'infer',
  'intrinsic',
  'is',
  'keyof',
  'namespace',
  'never',
  'number',
  'object',
  'of',
  'out',
  'override',
  'readonly',
  'satisfies',
  'set',
  'string',
  'symbol',
  'type',
  'unique',
  'unknown',
  'using',
]);

/** `CronJob` -> `cronJob` (the first letter only, as Kubebuilder's Go variables). */
export function lowerFirst(kind: string): string {
  return kind[0].toLowerCase() + kind.slice(1);
}

/** The identifiers of one generated file: reserved words, the file's own names, and what was claimed. */
export class Scope {
  private readonly taken: Set<string>;

  /** `own`: every name the file's template declares, imports or refers to (globals included). */
  constructor(own: Iterable<string>) {
    this.taken = new Set([...RESERVED_WORDS, ...own]);
  }

  /** Whether `name` is free in this file. */
  free(name: string): boolean {
    return !this.taken.has(name);
  }

  /**
   * Claims `preferred` when it is free, else the first free alternative, else the last
   * alternative (or `preferred`) numbered from 2; the name returned is taken from then on.
   */
  claim(preferred: string, ...alternatives: string[]): string {
    const candidates = [preferred, ...alternatives];
    let name = candidates.find((c) => this.free(c));
    const base = candidates[candidates.length - 1];
    for (let i = 2; name === undefined; i++) if (this.free(`${base}${i}`)) name = `${base}${i}`;
    this.taken.add(name);
    return name;
  }

  /**
   * Claims a name other files refer to by that exact spelling (an exported class or function);
   * throws when it is taken, which would be a bug of the templates, not of the user's input.
   */
  claimExact(name: string): string {
    if (!this.free(name)) throw new Error(`internal error: the scaffolded file already uses the name ${name}`);
    this.taken.add(name);
    return name;
  }
}

/**
 * The import specifier and the local name of a Kind imported into a file of `scope`: `Kind` itself
 * when free, else `Kind as KindKind` (then `KindResource`).
 */
export function importKind(scope: Scope, kind: string): { ref: string; specifier: string } {
  const ref = scope.claim(kind, `${kind}Kind`, `${kind}Resource`);
  return { ref, specifier: ref === kind ? kind : `${kind} as ${ref}` };
}

/** The Kind the templates are rendered with to find their own names: nothing else contains it. */
export const PLACEHOLDER_KIND = 'Kf0Placeholder';

/**
 * Every name the given templates use that does not come from the Kind: each is rendered with
 * `data` (where the Kind and every name derived from it hold {@link PLACEHOLDER_KIND}) and parsed.
 */
export async function templateNames(
  scopeNames: (text: string) => Set<string>,
  render: (template: string, data: object) => Promise<string>,
  templates: readonly string[],
  data: object,
): Promise<Set<string>> {
  const out = new Set<string>();
  for (const t of templates) {
    for (const name of scopeNames(await render(t, data)))
      if (!name.toLowerCase().includes(PLACEHOLDER_KIND.toLowerCase())) out.add(name);
  }
  return out;
}
