/**
 * AGENTS.md (issue #43 point 2) tells a coding assistant what Kubebuilder 4.16's does, in
 * kubeforge's terms; this test holds it to the project it is written into: every make target it
 * names is in the Makefile, every `npx kubeforge` line uses flags the command has, every decorator
 * is exported by kubeforge/markers and every function by kubeforge/runtime.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { MemoryHost } from '../../src/machinery/index.js';
import * as markers from '../../src/markers/index.js';
import * as runtime from '../../src/runtime/index.js';
import { runInit } from '../../src/scaffolds/init.js';
import { must } from '../helpers/must.js';

async function agents(multigroup: boolean): Promise<{ agents: string; makefile: string }> {
  const host = new MemoryHost();
  await runInit(
    { domain: 'example.com', skipInstall: true, multigroup },
    { cwd: '/projects/guestbook', host, out: () => {}, err: () => {} },
  );
  return {
    agents: must(host.files.get('AGENTS.md'), 'AGENTS.md').toString('utf8'),
    makefile: must(host.files.get('Makefile'), 'Makefile').toString('utf8'),
  };
}

async function help(command: string[]): Promise<string> {
  let out = '';
  const code = await run(['node', 'kubeforge', ...command, '--help'], {
    cwd: '/',
    color: false,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      out += t;
    },
  });
  assert.equal(code, 0, `${command.join(' ')} --help`);
  return out;
}

describe('AGENTS.md', () => {
  for (const multigroup of [false, true]) {
    it(`${multigroup ? 'multigroup' : 'single group'}: covers what Kubebuilder's does (layout, rules, commands, markers, testing, deploying)`, async () => {
      const { agents: text } = await agents(multigroup);
      for (const heading of [
        '## Layout',
        '## Rules',
        '## After a change',
        '## CLI cheat sheet',
        '## Writing APIs and controllers',
        '## Deploy and distribute',
        '## References',
      ])
        assert.ok(text.includes(`\n${heading}\n`), heading);
      assert.match(text, /Never edit generated files/);
      assert.match(text, /Keep the scaffold markers/);
      assert.match(text, /Kind cluster of their own/);
      assert.match(text, multigroup ? /src\/api\/<group>\/<version>\/<kind>_types\.ts/ : /kubeforge edit --multigroup/);
    });
  }

  it('names only make targets of the Makefile, flags of the CLI, and exports of kubeforge/markers and kubeforge/runtime', async () => {
    const { agents: text, makefile } = await agents(false);
    const targets = new Set([...makefile.matchAll(/^([\w-]+):/gm)].map((m) => m[1]));
    const made = [...text.matchAll(/`make ([\w-]+)/g), ...text.matchAll(/^make ([\w-]+(?: [\w-]+)*)/gm)].flatMap((m) =>
      m[1].split(' ').filter((w) => /^[a-z][\w-]*$/.test(w)),
    );
    assert.ok(made.length > 10);
    for (const t of made) assert.ok(targets.has(t), `make ${t}`);
    // Helm's targets come with edit --plugins helm/v2-alpha, which the text says.
    const lines = text.replace(/\\\n\s*/g, '').split('\n');
    const commands = lines.flatMap((l) => [...l.matchAll(/npx kubeforge ([a-z][a-z ]*?)(?= --|`|$| #)(.*)/g)]);
    assert.ok(commands.length >= 9);
    for (const m of commands) {
      const words = m[1].trim().split(' ');
      const usage = await help(words);
      for (const flag of (m[2] ?? '').match(/--[a-z][\w-]*/g) ?? [])
        assert.ok(usage.includes(flag), `kubeforge ${words.join(' ')} ${flag}`);
    }
    for (const d of new Set([...text.matchAll(/`@([A-Z]\w+)/g)].map((m) => m[1])))
      assert.equal(typeof (markers as Record<string, unknown>)[d], 'function', `@${d} from kubeforge/markers`);
    for (const f of [
      'setStatusCondition',
      'setControllerReference',
      'addFinalizer',
      'removeFinalizer',
      'controllerManagedBy',
    ]) {
      assert.ok(text.includes(`\`${f}`), f);
      assert.equal(typeof (runtime as Record<string, unknown>)[f], 'function', `${f} from kubeforge/runtime`);
    }
  });
});
