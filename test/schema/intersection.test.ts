// An intersection `A & B` whose members both declare a field: Go's equivalent, two embedded
// structs with the same field, gets both schemas of the field folded by controller-gen (v0.22.0,
// checked on the Go twin in the comment below): a bound that both set is kept twice, in `allOf`
// (both hold, so the tighter one decides), a bound only one sets is kept, the field is required
// when either member requires it. kubeforge kept only the last member's field (`@maxLength 3` and
// `@maxLength 5` gave 5).
//
//   type Short struct { /* +kubebuilder:validation:MaxLength=3 */ Name string `json:"name,omitempty"` ... }
//   type Long  struct { /* +kubebuilder:validation:MaxLength=5, MinLength=2 */ Name string ... }
//   type ThingSpec struct { Short `json:",inline"`; Long `json:",inline"` }
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeProject } from '../manifests/analyze-helper.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function project(types: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-intersection-'));
  made.push(dir);
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
      include: ['src/**/*.ts'],
    }),
    'src/api/v1/groupversion.ts':
      "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'inter.example.com', version: 'v1' });\n",
    'src/api/v1/thing_types.ts': types,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const TYPES = `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Maximum, MaxItems, MaxLength, Minimum, MinLength, Required, Root } from 'kubeforge/markers';

export class Short {
  @MaxLength(3)
  name?: string;
  @Maximum(10)
  @Minimum(1)
  count?: number;
  @MaxItems(4)
  tags?: string[];
  @Required()
  req!: string;
}

export interface Long {
  /**
   * @maxLength 5
   * @minLength 2
   */
  name?: string;
  /**
   * @maximum 20
   * @minimum 0
   */
  count?: number;
  /** @maxItems 2 */
  tags?: string[];
  req?: string;
}

export type ThingSpec = Short & Long;

@Root()
export class Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: ThingSpec;
}
`;

describe('a field declared by two intersection members (Go: two embedded structs)', () => {
  it("keeps both members' bounds, as controller-gen does: both values in allOf, the one-sided ones as they are", async () => {
    const r = await analyzeProject({ projectDir: project(TYPES), generatorVersion: 'v0' });
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const spec = r.crds[0].spec.versions[0].schema.openAPIV3Schema.properties?.spec;
    const properties = spec?.properties ?? {};
    assert.deepEqual(properties.name, {
      type: 'string',
      allOf: [{ maxLength: 3 }, { maxLength: 5 }],
      minLength: 2,
    });
    assert.deepEqual(properties.count, {
      type: 'number',
      allOf: [
        { maximum: 10, minimum: 1 },
        { maximum: 20, minimum: 0 },
      ],
    });
    assert.deepEqual(properties.tags, {
      type: 'array',
      items: { type: 'string' },
      allOf: [{ maxItems: 4 }, { maxItems: 2 }],
    });
    assert.deepEqual(spec?.required, ['req'], 'required when either member requires it');
  });
});
