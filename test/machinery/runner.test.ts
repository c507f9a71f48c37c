// The command runner every writing command goes through: plan → validate → preview (nothing
// written) or commit (some paths last) → after. On a memory host, with a host that records writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { type CommandSteps, MemoryHost, runCommand, Tree } from '../../src/machinery/index.js';

class RecordingHost extends MemoryHost {
  readonly log: string[] = [];
  override write(path: string, data: Buffer): void {
    this.log.push(path);
    super.write(path, data);
  }
}

function steps(calls: string[], files: Record<string, string>): CommandSteps<{ tree: Tree }, string> {
  return {
    name: 'test',
    lockRoot: undefined,
    last: ['PROJECT'],
    plan: async (ctx) => {
      calls.push(`plan dryRun=${ctx.dryRun} force=${ctx.force} guard=${ctx.guard !== undefined}`);
      const tree = new Tree(ctx.host);
      for (const [p, text] of Object.entries(files)) tree.write(p, text);
      return { tree };
    },
    preview: (_p, changes) => {
      calls.push(`preview ${changes.map((c) => c.path).join(',')}`);
      return 'previewed';
    },
    interrupted: { revert: 'nothing written' },
    committed: (_p, changes) => void calls.push(`committed ${changes.length}`),
    after: async (_p, changes) => {
      calls.push(`after ${changes.length}`);
      return 'done';
    },
  };
}

const io = { cwd: '/nowhere', out: () => {}, err: () => {} };

describe('runCommand', () => {
  it('a dry run plans and previews: no guard, nothing written', async () => {
    const host = new RecordingHost();
    const calls: string[] = [];
    assert.equal(await runCommand(steps(calls, { a: '1', PROJECT: 'p' }), io, { host, dryRun: true }), 'previewed');
    assert.deepEqual(calls, ['plan dryRun=true force=false guard=false', 'preview PROJECT,a']);
    assert.deepEqual(host.log, []);
  });

  it('a run that writes commits once, the `last` paths last, then runs after', async () => {
    const host = new RecordingHost();
    const calls: string[] = [];
    assert.equal(await runCommand(steps(calls, { PROJECT: 'p', z: '1', a: '2' }), io, { host, force: true }), 'done');
    assert.deepEqual(calls, ['plan dryRun=false force=true guard=true', 'committed 3', 'after 3']);
    assert.deepEqual(host.log, ['a', 'z', 'PROJECT']);
  });

  it('a change that cannot be written stops the run before any write (KF1101)', async () => {
    const host = new RecordingHost();
    host.readOnly.add('locked');
    const calls: string[] = [];
    await assert.rejects(runCommand(steps(calls, { a: '1', 'locked/b': '2' }), io, { host }), (e: unknown) => {
      assert.ok(e instanceof DiagnosticError);
      assert.deepEqual(
        e.diagnostics.map((d) => d.code),
        ['KF1101'],
      );
      return true;
    });
    assert.deepEqual(host.log, []);
    assert.deepEqual(calls, ['plan dryRun=false force=false guard=true']);
  });
});
