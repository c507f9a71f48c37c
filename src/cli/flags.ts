/**
 * A command's flags, declared once in a typed table: {@link addFlags} registers them with
 * commander (in the table's order, which is the help's), {@link flagValues} reads commander's
 * parse back as {@link FlagValues}, the options type the table yields. No command casts its
 * options. The key of an entry is the option's name in camelCase (`dryRun`); the flag is its
 * kebab-case spelling (`--dry-run`), as commander derives the one from the other.
 */
import { type Command, Option } from 'commander';
import { UsageError } from './context.js';

interface FlagBase {
  description: string;
}

/** `--name <value>`: a string; undefined when not given, unless it has a default or is required. */
export interface StringFlag extends FlagBase {
  type: 'string';
  /** The value's placeholder in the help: `<group>`, `<version|path>`. */
  value: string;
  default?: string;
  /** The values accepted (commander refuses others). */
  choices?: readonly string[];
  /** Commander refuses the command without it (requiredOption). */
  required?: true;
}

/** `--name <values...>`: every value given (space or repeated); undefined when not given. */
export interface ListFlag extends FlagBase {
  type: 'list';
  /** `<plugins...>`, or `<rule>` for a flag given once per value (`repeat`). */
  value: string;
  /** One value per use of the flag, collected (`--allow a --allow b`). */
  repeat?: true;
}

/** `--no-name`: true unless given (commander's negatable option, `cache` for `--no-cache`). */
export interface NegatedFlag extends FlagBase {
  type: 'negated';
}

/** `--name`: true when given; false otherwise when its default is false, else undefined. */
export interface SwitchFlag extends FlagBase {
  type: 'switch';
  default?: false;
}

/**
 * A Go-style boolean: `--name`, `--name=false`, `--name false` and `--no-name` all work, as
 * Kubebuilder users type them; undefined when not given.
 */
export interface BoolFlag extends FlagBase {
  type: 'bool';
}

/**
 * `--name[=<value>]`: true when given bare, the value's text when given one (`--name=5`,
 * `--name 5`), false with `--no-name`; undefined when not given. The command checks the value.
 */
export interface OptionalValueFlag extends FlagBase {
  type: 'optional';
  /** The value's placeholder in the help: `<replicas>`. */
  value: string;
}

export type Flag = StringFlag | ListFlag | SwitchFlag | BoolFlag | NegatedFlag | OptionalValueFlag;
export type FlagTable = Readonly<Record<string, Flag>>;

type StringValue<F extends StringFlag> = F extends { choices: readonly (infer C)[] } ? C : string;

/** The value of one flag after parsing. */
export type FlagValue<F extends Flag> = F extends StringFlag
  ? F extends { default: string } | { required: true }
    ? StringValue<F>
    : StringValue<F> | undefined
  : F extends ListFlag
    ? string[] | undefined
    : F extends SwitchFlag
      ? F extends { default: false }
        ? boolean
        : boolean | undefined
      : F extends NegatedFlag
        ? boolean
        : F extends OptionalValueFlag
          ? string | boolean | undefined
          : boolean | undefined;

/** The options a flag table yields. */
export type FlagValues<T extends FlagTable> = { [K in keyof T]: FlagValue<T[K]> };

/** `dryRun` -> `dry-run`. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The parser of a Go-style boolean's value. */
function parseBool(flag: string) {
  return (value: string): boolean => {
    const v = value.toLowerCase();
    if (['true', '1', 't', 'yes', 'y'].includes(v)) return true;
    if (['false', '0', 'f', 'no', 'n'].includes(v)) return false;
    throw new UsageError(
      `invalid value "${value}" for --${flag}: expected true or false`,
      `e.g. --${flag}=false, or --no-${flag}`,
    );
  };
}

/** Registers the flags of `table` on `cmd`, in the table's order. */
export function addFlags(cmd: Command, table: FlagTable): Command {
  for (const [name, f] of Object.entries(table)) {
    const flag = kebab(name);
    switch (f.type) {
      case 'bool':
        cmd.addOption(new Option(`--${flag} [bool]`, f.description).argParser(parseBool(flag)));
        cmd.addOption(new Option(`--no-${flag}`).hideHelp());
        break;
      case 'switch': {
        const option = new Option(`--${flag}`, f.description);
        cmd.addOption(f.default === false ? option.default(false) : option);
        break;
      }
      case 'list': {
        const option = new Option(`--${flag} ${f.value}`, f.description);
        cmd.addOption(f.repeat ? option.argParser((v: string, prev: string[] = []) => [...prev, v]) : option);
        break;
      }
      case 'negated':
        cmd.addOption(new Option(`--no-${flag}`, f.description));
        break;
      case 'optional':
        cmd.addOption(new Option(`--${flag} [${f.value.replace(/^<|>$/g, '')}]`, f.description));
        cmd.addOption(new Option(`--no-${flag}`).hideHelp());
        break;
      case 'string': {
        const option = new Option(`--${flag} ${f.value}`, f.description);
        if (f.choices) option.choices(f.choices);
        if (f.default !== undefined) option.default(f.default);
        if (f.required) option.makeOptionMandatory();
        cmd.addOption(option);
        break;
      }
    }
  }
  return cmd;
}

/** Commander's parse of `table`'s flags (its `opts()`), as the options the table yields. */
export function flagValues<T extends FlagTable>(table: T, opts: Readonly<Record<string, unknown>>): FlagValues<T> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(table)) {
    const v = opts[name];
    switch (f.type) {
      case 'bool':
        // --no-x sets x to false; --x without a value sets it to true.
        out[name] = v === undefined ? undefined : v !== false;
        break;
      case 'switch':
        out[name] = v === undefined && f.default !== false ? undefined : Boolean(v);
        break;
      case 'list':
        out[name] = Array.isArray(v) ? v.map(String) : undefined;
        break;
      case 'negated':
        out[name] = v !== false;
        break;
      case 'optional':
        out[name] = typeof v === 'string' || typeof v === 'boolean' ? v : undefined;
        break;
      case 'string':
        out[name] = typeof v === 'string' ? v : undefined;
        break;
    }
  }
  // Each entry was read by its declared type just above: this is the one place that says so.
  return out as FlagValues<T>;
}
