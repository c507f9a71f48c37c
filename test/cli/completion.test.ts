import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';

async function script(shell: string): Promise<string> {
  let out = '';
  const code = await run(['node', 'kubeforge', 'completion', shell], {
    cwd: '/',
    color: false,
    out: (t) => void (out += t),
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
      assert.equal(probe(['kubeforge', 'completion', '']), 'bash zsh fish --help');
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
    assert.match(fish, /-n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'/);
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
});
