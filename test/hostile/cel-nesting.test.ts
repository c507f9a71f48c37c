// Hostile input, second round, family 8 (the CEL half): a rule of 1,500 `+` terms used to overflow
// the type checker's stack with a raw RangeError. Through the real CLI it is now a located error
// with the API server's message (packages/cel/test/nesting.test.ts asks the server for its thresholds).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanup, cli, fingerprint, freshFolder } from './helpers.js';

after(cleanup);

describe('hostile: a CEL rule nested past the limit (CLI)', () => {
  it('1,500 + terms: a located KF code, exit 1, no stack trace, nothing written', async () => {
    const dir = freshFolder();
    const rule = `self.a${' + 1'.repeat(1_500)} > 0`;
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
        include: ['src/**/*.ts'],
      }),
      'package.json': '{"name":"cel","private":true,"type":"module"}\n',
      'src/api/v1/groupversion.ts':
        "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'cel.example.com', version: 'v1' });\n",
      'src/api/v1/widget_types.ts': `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Root, XValidation, type int32 } from 'kubeforge/markers';

@XValidation({ rule: '${rule}' })
export class WidgetSpec {
  a?: int32;
}

@Root()
export class Widget {
  metadata?: V1ObjectMeta;
  spec?: WidgetSpec;
}
`,
    };
    for (const [p, t] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), t);
    }
    const before = fingerprint(dir);
    const r = await cli(dir, ['manifests']);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /src\/api\/v1\/widget_types\.ts:4:\d+ {2}KF46\d\d /);
    assert.match(r.err, /nest|depth|recursion/i);
    assert.doesNotMatch(r.err, /RangeError|Maximum call stack|^\s+at /m);
    assert.deepEqual(fingerprint(dir), before);
  });
});
