// Reads the Go type declarations of Kubernetes API packages (k8s.io/api/<group>/<version>,
// k8s.io/apimachinery/pkg/apis/meta/v1, ...) the way controller-gen sees them: for each type its
// doc comment, its `+marker` comments and, for a struct, its fields with their JSON tag, Go type
// expression, doc comment and markers. Only what gen-k8s-schemas.mjs needs: gofmt'd top-level
// `type X struct { ... }` and `type X <type>` declarations (the API packages have no other kinds).
//
// Descriptions follow controller-gen's rules (controller-tools pkg/markers extractDoc): marker lines
// (`// +...`) dropped, comment text as go/ast's CommentGroup.Text() gives it (one space after `//`
// removed, directives dropped, trailing spaces trimmed, blank-line runs squeezed, leading and
// trailing blank lines removed), then outside fenced code blocks a line starting with `TODO` is
// dropped and a line starting with `---` ends the text; lines are joined with "\n".
// @ts-check
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** @typedef {{ name: string; value: string | undefined }} GoMarker */
/**
 * A field of a Go struct as read; `unreadable` holds a line this reader does not understand.
 * @typedef {{ name?: string; type: string; tags: Record<string, string>; doc: string[]; line: number; unreadable?: undefined }
 *   | { unreadable: string; line: number; name?: undefined; type?: undefined; tags?: undefined; doc?: undefined }} GoField
 */
/**
 * A top-level Go type declaration.
 * A top-level Go type declaration; a named type of the package's typed string constants has their
 * values in `constants` (readGoPackages fills it in: what `+k8s:enum` makes the enum of).
 * @typedef {{ name: string; file: string; line: number; doc: string[]; imports: Map<string, string>; pkg?: string }
 *   & ({ kind: 'named'; alias: boolean; underlying: string; constants?: string[] } | { kind: 'struct'; fields: GoField[] })} GoType
 */
/** A typed string constant: `const Linux OSName = "linux"`. */
/** @typedef {{ name: string; type: string; value: string }} GoConstant */

/** `//go:build`, `//nolint:x`, `//line ...`: comments go/ast leaves out of CommentGroup.Text(). */
const DIRECTIVE = /^\/\/(?:line |extern |export |[a-z0-9]+:[a-z0-9])/;

/**
 * Whether a `//` comment line is a marker (controller-tools: text after `//`, trimmed, starts with `+`).
 * @param {string} line
 */
export function isMarkerComment(line) {
  return line.startsWith('//') && line.slice(2).trim().startsWith('+');
}

/**
 * The description controller-gen derives from a doc comment group (raw `// ...` lines).
 * @param {readonly string[]} commentLines
 */
export function docText(commentLines) {
  // go/ast CommentGroup.Text()
  let lines = [];
  for (const c of commentLines) {
    if (isMarkerComment(c) || DIRECTIVE.test(c)) continue;
    let t = c.slice(2);
    if (t.startsWith(' ')) t = t.slice(1);
    lines.push(t.replace(/\s+$/, ''));
  }
  const squeezed = [];
  for (const l of lines) {
    if (l === '' && (squeezed.length === 0 || squeezed[squeezed.length - 1] === '')) continue;
    squeezed.push(l);
  }
  while (squeezed.length && squeezed[squeezed.length - 1] === '') squeezed.pop();
  lines = squeezed;
  // controller-gen's extractDoc
  const out = [];
  let inCode = false;
  for (const line of lines) {
    if (line.startsWith('```') || line.startsWith('~~~')) inCode = !inCode;
    if (!inCode) {
      if (line.startsWith('TODO')) continue;
      if (line.startsWith('---')) break;
    }
    out.push(line);
  }
  return out.join('\n');
}

/**
 * Markers of a comment group: `{ name, value }` for each `// +name=value` / `// +name` line
 * (`+kubebuilder:validation:MaxLength=32768`, `+listType=map`, `+optional`).
 * @param {readonly string[]} commentLines
 * @returns {GoMarker[]}
 */
export function markersOf(commentLines) {
  const out = [];
  for (const c of commentLines) {
    if (!isMarkerComment(c)) continue;
    const text = c.slice(2).trim().slice(1);
    const eq = text.indexOf('=');
    out.push(
      eq < 0 ? { name: text.trim(), value: undefined } : { name: text.slice(0, eq).trim(), value: text.slice(eq + 1) },
    );
  }
  return out;
}

/**
 * Splits a struct tag (`json:"name,omitempty" protobuf:"..."`) into its keys.
 * @param {string} tag
 */
function parseTag(tag) {
  /** @type {Record<string, string>} */
  const out = {};
  const re = /(\w+):"((?:[^"\\]|\\.)*)"/g;
  for (const m of tag.matchAll(re)) out[m[1]] = m[2];
  return out;
}

/**
 * The `import` names of a Go file: local name -> package path.
 * @param {string} text
 */
function importsOf(text) {
  /** @type {Map<string, string>} */
  const out = new Map();
  /** @type {(alias: string | undefined, path: string) => void} */
  const add = (alias, path) => out.set(alias ?? /** @type {string} */ (path.split('/').pop()), path);
  for (const m of text.matchAll(/^import\s+(?:(\w+)\s+)?"([^"]+)"/gm)) add(m[1], m[2]);
  for (const block of text.matchAll(/^import\s*\(([\s\S]*?)^\)/gm)) {
    for (const m of block[1].matchAll(/^\s*(?:(\w+|\.|_)\s+)?"([^"]+)"/gm)) if (m[1] !== '_') add(m[1], m[2]);
  }
  return out;
}

/**
 * Reads one Go source file: its imports and its top-level type declarations, each with its doc
 * comment lines, and for structs their fields.
 * @param {string} text
 * @param {string} file
 * @returns {GoType[]}
 */
export function readGoFile(text, file) {
  const imports = importsOf(text);
  const lines = text.split('\n');
  /** @type {GoType[]} */
  const types = [];
  /** @type {(i: number, indent: string) => string[]} The comment group ending right above line i (no blank line between). */
  const commentAbove = (i, indent) => {
    const group = [];
    for (let j = i - 1; j >= 0; j--) {
      const l = lines[j];
      if (!l.startsWith(`${indent}//`)) break;
      group.unshift(l.slice(indent.length));
    }
    return group;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const struct = /^type (\w+) struct \{\s*$/.exec(line);
    const empty = /^type (\w+) struct\s*\{\s*\}\s*$/.exec(line);
    const named = !struct && !empty ? /^type (\w+) (=\s*)?(.+?)\s*(?:\/\/.*)?$/.exec(line) : undefined;
    if (!struct && !empty && !named) continue;
    const name = /** @type {RegExpExecArray} */ (struct ?? empty ?? named)[1];
    const doc = commentAbove(i, '');
    const decl = { name, file, line: i + 1, doc, imports };
    if (named) {
      if (named[3] === '(' || named[3].endsWith('{')) continue; // grouped or interface declarations
      types.push({ ...decl, kind: 'named', alias: !!named[2], underlying: named[3] });
      continue;
    }
    /** @type {GoField[]} */
    const fields = [];
    if (struct) {
      for (i++; i < lines.length && lines[i] !== '}'; i++) {
        const f = /^\t(?:(\w+)\s+)?([*[\]\w.]+)(?:\s+`([^`]*)`)?\s*(?:\/\/.*)?$/.exec(lines[i]);
        if (!f) {
          // Not a field this reader understands (several names, func or anonymous struct types):
          // kept, so that using the type fails loudly instead of silently losing the field.
          if (/^\t\w/.test(lines[i])) fields.push({ unreadable: lines[i].trim(), line: i + 1 });
          continue;
        }
        const fieldDoc = commentAbove(i, '\t');
        fields.push({ name: f[1], type: f[2], tags: parseTag(f[3] ?? ''), doc: fieldDoc, line: i + 1 });
      }
    }
    types.push({ ...decl, kind: 'struct', fields });
  }
  return types;
}

/**
 * The typed string constants of a Go file, in order: `Name Type = "value"` (or a raw string) in a
 * top-level `const ( ... )` block or a `const` line. Untyped constants and other values are left out
 * (they are not of a named type, so no enum counts them).
 * @param {string} text
 * @returns {GoConstant[]}
 */
export function readGoConstants(text) {
  /** @type {GoConstant[]} */
  const out = [];
  const spec = /^(\w+)\s+(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|`[^`]*`)\s*(?:\/\/.*)?$/;
  /** @type {(line: string) => void} */
  const take = (line) => {
    const m = spec.exec(line);
    if (!m) return;
    const value = m[3].startsWith('`') ? m[3].slice(1, -1) : JSON.parse(m[3]);
    out.push({ name: m[1], type: m[2], value });
  };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^const\s*\(\s*$/.test(lines[i])) {
      for (i++; i < lines.length && lines[i] !== ')'; i++)
        if (lines[i].startsWith('\t') && !lines[i].startsWith('\t\t')) take(lines[i].slice(1));
    } else if (lines[i].startsWith('const ')) take(lines[i].slice(6).trim());
  }
  return out;
}

/**
 * Files of a Go package that declare API types (tests and generated code left out).
 * @param {string} dir
 */
function packageFiles(dir) {
  return readdirSync(dir)
    .filter(
      (f) =>
        f.endsWith('.go') &&
        !f.endsWith('_test.go') &&
        !f.startsWith('zz_generated') &&
        !f.startsWith('generated.') &&
        !f.includes('swagger_doc_generated') &&
        !f.endsWith('_fuzz.go'),
    )
    .sort();
}

/**
 * Where Go sources are read from: a GOPATH-style `src` folder (`<root>/k8s.io/api/core/v1`), or
 * module path -> module folder (`{ 'k8s.io/api': '<module cache>/k8s.io/api@v0.37.2' }`, as
 * scripts/k8s-go-source.mjs gives them).
 * @typedef {string | Readonly<Record<string, string>>} GoSourceRoots
 */

/**
 * The folder of a Go package under the roots: for a module map, the module whose path is the
 * longest prefix of the package path.
 * @param {GoSourceRoots} roots
 * @param {string} pkg
 */
export function packageDir(roots, pkg) {
  if (typeof roots === 'string') return join(roots, pkg);
  const mod = Object.keys(roots)
    .filter((m) => pkg === m || pkg.startsWith(`${m}/`))
    .sort((a, b) => b.length - a.length)[0];
  if (mod === undefined)
    throw new Error(`k8s-go-types: no module holds package ${pkg} (modules: ${Object.keys(roots).join(', ')})`);
  return join(roots[mod], pkg.slice(mod.length));
}

/**
 * Reads Go packages: package path -> Map of type name -> declaration.
 * @param {GoSourceRoots} roots
 * @param {readonly string[]} packagePaths
 * @returns {Map<string, Map<string, GoType>>}
 */
export function readGoPackages(roots, packagePaths) {
  const out = new Map();
  for (const pkg of packagePaths) {
    const dir = packageDir(roots, pkg);
    const types = new Map();
    /** @type {GoConstant[]} */
    const constants = [];
    for (const f of packageFiles(dir)) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const t of readGoFile(text, `${pkg}/${f}`)) types.set(t.name, { ...t, pkg });
      constants.push(...readGoConstants(text));
    }
    for (const c of constants) {
      const t = types.get(c.type);
      if (t?.kind === 'named') {
        t.constants ??= [];
        t.constants.push(c.value);
      }
    }
    out.set(pkg, types);
  }
  return out;
}

/**
 * Every `k8s.io/api/<group>/<version>` package under the roots, sorted.
 * @param {GoSourceRoots} roots
 */
export function apiPackages(roots) {
  /** @type {string[]} */
  const out = [];
  const base = packageDir(roots, 'k8s.io/api');
  for (const group of readdirSync(base, { withFileTypes: true })) {
    if (!group.isDirectory() || group.name === 'testdata') continue;
    for (const version of readdirSync(join(base, group.name), { withFileTypes: true })) {
      if (version.isDirectory() && /^v\d+(?:alpha\d+|beta\d+)?$/.test(version.name))
        out.push(`k8s.io/api/${group.name}/${version.name}`);
    }
  }
  return out.sort();
}
