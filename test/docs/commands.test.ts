// The command reference (docs/commands.md) lists every flag of every command (read from the CLI itself).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/index.js';
import { packageRoot } from '../../src/util/package-root.js';

/** Every leaf command: its path (`create api`) and its long flags. */
function leaves(cmd: Command, prefix: string[] = []): { path: string; flags: string[] }[] {
  const here = [...prefix, cmd.name()];
  if (cmd.commands.length > 0)
    return cmd.commands.flatMap((c) => leaves(c, prefix.length === 0 && cmd.name() === 'kubeforge' ? [] : here));
  const flags = cmd.options.map((o) => o.long).filter((l): l is string => !!l && l !== '--help');
  return [{ path: here.join(' '), flags }];
}

/** The "Flags:" block of docs/commands.md, one entry per `kubeforge <command>` (continuation lines joined). */
function documentedFlags(): Map<string, string> {
  const doc = readFileSync(join(packageRoot(), 'docs/commands.md'), 'utf8');
  assert.ok(
    doc.startsWith('# Commands\n') && doc.includes('Flags:\n\n```\n'),
    'docs/commands.md has no "# Commands" page with a Flags block',
  );
  const section = doc;
  const block = section.slice(section.indexOf('Flags:\n\n```\n') + 'Flags:\n\n```\n'.length);
  const text = block.slice(0, block.indexOf('\n```'));
  const entries = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^kubeforge ([a-z][a-z-]*(?: [a-z][a-z-]*)*)/.exec(line);
    if (m) {
      current = m[1].trim();
      entries.set(current, line);
    } else if (current) entries.set(current, `${entries.get(current)} ${line.trim()}`);
  }
  return entries;
}

describe('docs/commands.md command reference', () => {
  const program = buildProgram({ cwd: '/', color: false, out: () => {}, err: () => {} });
  const commands = leaves(program).filter((c) => !['version', 'completion'].includes(c.path));
  const documented = documentedFlags();

  it('has an entry for every command that takes flags', () => {
    const missing = commands.filter((c) => c.flags.length > 0 && !documented.has(c.path)).map((c) => c.path);
    assert.deepEqual(missing, [], `docs/commands.md Flags block lacks: ${missing.join(', ')}`);
  });

  it('lists every flag of every command', () => {
    const missing: string[] = [];
    for (const c of commands) {
      const line = documented.get(c.path) ?? '';
      for (const f of c.flags) {
        const negated = f.startsWith('--no-') ? `--${f.slice(5)}` : undefined;
        if (!new RegExp(`${f}(?![\\w-])`).test(line) && !(negated && new RegExp(`${negated}(?![\\w-])`).test(line)))
          missing.push(`kubeforge ${c.path} ${f}`);
      }
    }
    assert.deepEqual(missing, [], 'flags missing from the command reference in docs/commands.md');
  });
});
