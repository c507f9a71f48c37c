import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { must } from '../helpers/must.js';

async function script(shell: string): Promise<string> {
  let out = '';
  const code = await run(['node', 'kubeforge', 'completion', shell], {
    cwd: '/',
    color: false,
    out: (t) => {
      out += t;
    },
    err: () => {},
  });
  assert.equal(code, 0);
  return out;
}

describe('kubeforge completion', () => {
  it('bash: completes commands, flags after skipping flag values, and --license choices', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-compl-'));
    try {
      writeFileSync(join(dir, 'c.bash'), await script('bash'));
      const probe = (words: string[]) =>
        execFileSync(
          'bash',
          [
            '-c',
            `source ${join(dir, 'c.bash')}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _kubeforge; echo "\${COMPREPLY[*]}"`,
          ],
          { encoding: 'utf8' },
        ).trim();
      assert.equal(probe(['kubeforge', 'in']), 'init');
      assert.equal(probe(['kubeforge', 'init', '--domain', 'example.com', '--pro']), '--project-name');
      assert.equal(probe(['kubeforge', 'init', '--license', '']), 'apache2 none');
      assert.equal(probe(['kubeforge', 'completion', '']), 'bash zsh fish powershell --help');
      assert.equal(probe(['kubeforge', 'init', '--domain', '']), '', 'no completion for a value');
      assert.equal(probe(['kubeforge', 'create', 'web']), 'webhook');
      assert.equal(
        probe(['kubeforge', 'create', 'webhook', '--kind', 'Captain', '--prog']),
        '--programmatic-validation',
      );
      // A Go-style boolean takes no separate value: completion goes on after it.
      assert.equal(probe(['kubeforge', 'create', 'webhook', '--defaulting', '--conv']), '--conversion');
      assert.equal(probe(['kubeforge', 'create', 'webhook', '--conversion', '--sp']), '--spoke');
      assert.equal(probe(['kubeforge', 'create', 'webhook', '--validation-path', '']), '', 'no completion for a path');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('zsh wraps the bash logic; fish lists commands and flags', async () => {
    const zsh = await script('zsh');
    assert.match(zsh, /^#compdef kubeforge\n/);
    assert.match(zsh, /bashcompinit/);
    const fish = await script('fish');
    assert.match(
      fish,
      /complete -c kubeforge -n '__fish_use_subcommand' -a 'init' -d 'scaffold a new TypeScript operator project/,
    );
    assert.match(fish, /complete -c kubeforge -n '__fish_seen_subcommand_from init' -l license -r -a 'apache2 none'/);
    assert.match(fish, /-n '__fish_seen_subcommand_from completion' -a 'bash zsh fish powershell'/);
    assert.match(
      fish,
      /complete -c kubeforge -n '__fish_seen_subcommand_from create' -a 'webhook' -d 'scaffold webhooks for a Kind/,
    );
    assert.match(
      fish,
      /-n '__fish_seen_subcommand_from create; and __fish_seen_subcommand_from webhook' -l spoke -r -d/,
    );
    assert.match(
      fish,
      /-n '__fish_seen_subcommand_from create; and __fish_seen_subcommand_from webhook' -l programmatic-validation -d/,
    );
  });

  // No PowerShell on this machine: the script is checked against the bash one, whose logic it
  // repeats (the bash script is run above), and for PowerShell's syntax where it is easy to get wrong.
  it('powershell: a native argument completer with the same words, choices and value flags as bash', async () => {
    const ps = await script('powershell');
    const bash = await script('bash');
    assert.match(ps, /^# PowerShell completion for kubeforge/);
    assert.match(ps, /Register-ArgumentCompleter -Native -CommandName kubeforge -ScriptBlock \{/);
    const psList = (body: string) => [...body.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1].replace(/''/g, "'"));
    const psWords = new Map(
      [...ps.matchAll(/^ {4}'([^']*)' = @\((.*)\)$/gm)].map((m) => [m[1], psList(m[2]).join(' ')] as const),
    );
    const bashWords = new Map(
      [...bash.matchAll(/^ {4}'([^']*)'\) words='([^']*)' ;;$/gm)].map((m) => [m[1], m[2]] as const),
    );
    assert.ok(bashWords.size > 10);
    // Each command path completes to the same words (choices share the table: '--license' is a flag, not a path).
    for (const [path, w] of bashWords) assert.equal(psWords.get(path), w, `words of "${path}"`);
    assert.equal(psWords.get('completion'), 'bash zsh fish powershell --help');
    assert.equal(psWords.get('--license'), 'apache2 none');
    const valueFlags = (re: RegExp, text: string) => new Set(psList(must(re.exec(text), 're.exec(text)')[1]));
    assert.deepEqual(
      valueFlags(/\$valueFlags = @\((.*)\)/, ps),
      new Set(
        must(
          /^ {6}([^\n]*)\) i=\$\(\(i \+ 1\)\) ;;$/m.exec(bash),
          '/^ {6}([^\\n]*)\\) i=\\$\\(\\(i \\+ 1\\)\\) ;;$/m .exec(bash)',
        )[1]
          .split('|')
          .map((f) => f.replace(/^'|'$/g, '')),
      ),
    );
    // Balanced braces and parentheses outside strings, as PowerShell's parser needs them.
    const code = ps
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('#'))
      .join('\n')
      .replace(/'(?:[^']|'')*'/g, "''")
      .replace(/"[^"]*"/g, '""');
    for (const [open, close] of [
      ['{', '}'],
      ['(', ')'],
    ])
      assert.equal(code.split(open).length, code.split(close).length, `${open}${close} balanced`);
  });
});
