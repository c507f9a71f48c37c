// The typed flag tables: what commander parses comes back as the table's options type.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addFlags, type FlagTable, type FlagValues, flagValues } from '../../src/cli/flags.js';

const TABLE = {
  group: { type: 'string', value: '<group>', description: 'a group' },
  source: { type: 'string', value: '<source>', choices: ['auto', 'go'], default: 'auto', description: 'a source' },
  outputDir: { type: 'string', value: '<dir>', required: true, description: 'out' },
  plugins: { type: 'list', value: '<plugins...>', description: 'plugins' },
  dryRun: { type: 'switch', default: false, description: 'dry run' },
  keep: { type: 'switch', description: 'keep' },
  make: { type: 'bool', description: 'make' },
} as const satisfies FlagTable;

function parse(argv: string[]): FlagValues<typeof TABLE> {
  const cmd = addFlags(new Command('t').exitOverride().configureOutput({ writeErr: () => undefined }), TABLE);
  cmd.parse(argv, { from: 'user' });
  return flagValues(TABLE, cmd.opts());
}

describe('flag tables', () => {
  it('yields each flag by its type, defaults included', () => {
    const v = parse(['--output-dir', 'out']);
    assert.deepEqual(v, {
      group: undefined,
      source: 'auto',
      outputDir: 'out',
      plugins: undefined,
      dryRun: false,
      keep: undefined,
      make: undefined,
    });
    // The options type: a default or a required flag is never undefined, choices are their union.
    const source: 'auto' | 'go' = v.source;
    const dir: string = v.outputDir;
    const dry: boolean = v.dryRun;
    assert.deepEqual([source, dir, dry], ['auto', 'out', false]);
  });

  it('reads Go-style booleans, lists, switches and strings as given', () => {
    assert.deepEqual(
      parse([
        '--output-dir=o',
        '--group',
        'batch',
        '--plugins',
        'a',
        'b',
        '--dry-run',
        '--keep',
        '--make=false',
        '--source',
        'go',
      ]),
      {
        group: 'batch',
        source: 'go',
        outputDir: 'o',
        plugins: ['a', 'b'],
        dryRun: true,
        keep: true,
        make: false,
      },
    );
    assert.equal(parse(['--output-dir=o', '--make']).make, true);
    assert.equal(parse(['--output-dir=o', '--no-make']).make, false);
    assert.equal(parse(['--output-dir=o', '--make', 'no']).make, false);
  });

  it('refuses what commander refuses: a missing required flag, a value out of its choices', () => {
    assert.throws(() => parse([]), /required option '--output-dir <dir>' not specified/);
    assert.throws(() => parse(['--output-dir=o', '--source', 'zip']), /Allowed choices are auto, go/);
  });

  it('registers the flags in the table order, the help listing them as declared', () => {
    const help = addFlags(new Command('t'), TABLE).helpInformation();
    const flags = [...help.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);
    assert.deepEqual(flags, ['--group', '--source', '--output-dir', '--plugins', '--dry-run', '--keep', '--make']);
    assert.match(help, /--dry-run\s+dry run \(default: false\)/);
    assert.match(help, /--source <source>\s+a source \(choices: "auto", "go", default: "auto"\)/);
    assert.doesNotMatch(help, /--no-make/);
  });

  it('a negated flag is true unless --no-<name> is given; a repeated list collects every use', () => {
    const table = {
      cache: { type: 'negated', description: 'no cache' },
      allow: { type: 'list', value: '<rule>', repeat: true, description: 'allow' },
    } as const satisfies FlagTable;
    const read = (argv: string[]) => {
      const cmd = addFlags(new Command('t').exitOverride().configureOutput({ writeErr: () => undefined }), table);
      cmd.parse(argv, { from: 'user' });
      return flagValues(table, cmd.opts());
    };
    assert.deepEqual(read([]), { cache: true, allow: undefined });
    const v = read(['--no-cache', '--allow', 'a', '--allow', 'b']);
    assert.deepEqual(v, { cache: false, allow: ['a', 'b'] });
    const cache: boolean = v.cache;
    assert.equal(cache, false);
  });
});
