/**
 * Options objects under unknown names are refused, never ignored: a JavaScript caller, a typo or
 * an option renamed since (the durations that became `...Ms`) gets no type error, and an ignored
 * option silently keeps its default (`gracefulShutdownTimeout: 1000` left the manager at 30 s).
 * Every public entry point of kubeforge/runtime and kubeforge/testing that takes an options
 * object checks its keys here, against a table of the valid names that the compiler keeps equal
 * to the options type ({@link OptionNames}).
 */

/**
 * The valid keys of the options type `T`, each `true`: a key missing from the table, or one the
 * type does not have, is a compile error, so the table cannot drift from the type.
 */
export type OptionNames<T> = { readonly [K in keyof Required<T>]: true };

/** Old or foreign names of options and what to use instead (e.g. `gracefulShutdownTimeout` -> `gracefulShutdownTimeoutMs`). */
export type OptionRenames = Readonly<Record<string, string>>;

/**
 * Thrown by an entry point given an options object with a key it does not know; `keys` are the
 * unknown keys, `validKeys` the names it takes. A TypeError, as a wrong argument type is.
 */
export class UnknownOptionError extends TypeError {
  readonly code = 'ERR_KUBEFORGE_UNKNOWN_OPTION';
  constructor(
    message: string,
    readonly where: string,
    readonly keys: string[],
    readonly validKeys: string[],
  ) {
    super(message);
    this.name = 'UnknownOptionError';
  }
}

/** Levenshtein distance, case-insensitive (a miscased name is one edit away at most per letter). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[y.length];
}

/**
 * The valid name closest to `key` (ties: the first in sorted order), if close enough to be a
 * misspelling (a few edits) or a shortening (`onlyController` for `onlyControllerOwner`).
 */
export function closestName(key: string, valid: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of [...valid].sort()) {
    const d = distance(key, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 3))) return best;
  const k = key.toLowerCase();
  const prefixed = [...valid]
    .sort()
    .filter((n) => k.length >= 4 && (n.toLowerCase().startsWith(k) || k.startsWith(n.toLowerCase())));
  return prefixed.sort((a, b) => distance(key, a) - distance(key, b))[0];
}

/**
 * One message per key of `options` that `names` does not list (none when `options` is not an
 * object): `<where>: unknown option "<key>"`, with the new name of a renamed one or the closest
 * valid name, and the valid names.
 */
export function unknownOptions<T>(
  where: string,
  options: T | undefined,
  names: OptionNames<T>,
  renamed: OptionRenames = {},
): string[] {
  if (options === null || typeof options !== 'object') return [];
  const valid = Object.keys(names).sort();
  const unknown = Object.keys(options).filter((k) => !Object.hasOwn(names, k));
  return unknown.sort().map((key) => {
    const instead = Object.hasOwn(renamed, key) ? renamed[key] : undefined;
    const closest = instead === undefined ? closestName(key, valid) : undefined;
    const hint =
      instead !== undefined
        ? ` (renamed: use "${instead}")`
        : closest !== undefined
          ? ` (did you mean "${closest}"?)`
          : '';
    return `${where}: unknown option "${key}"${hint}; valid options: ${valid.join(', ')}`;
  });
}

/**
 * Throws an {@link UnknownOptionError} naming every key of `options` that `names` does not list
 * (see {@link unknownOptions}); returns `options` otherwise.
 */
export function checkOptions<T>(
  where: string,
  options: T | undefined,
  names: OptionNames<T>,
  renamed: OptionRenames = {},
): T | undefined {
  const problems = unknownOptions(where, options, names, renamed);
  if (problems.length > 0) {
    const keys = Object.keys(options as object).filter((k) => !Object.hasOwn(names, k));
    throw new UnknownOptionError(problems.join('\n'), where, keys.sort(), Object.keys(names).sort());
  }
  return options;
}
