/**
 * Renders the marker definition table as the Markdown reference that docs/markers.md carries
 * between `<!-- markers-reference:start -->` and `<!-- markers-reference:end -->`. A test keeps the
 * two equal, so the reference cannot drift from what the analyzer accepts.
 */
import {
  jsDocTagName,
  MARKER_DEFINITIONS,
  type ArgShape,
  type ArgType,
  type MarkerDefinition,
  type MarkerTarget,
} from './definitions.js';

export const REFERENCE_START = '<!-- markers-reference:start -->';
export const REFERENCE_END = '<!-- markers-reference:end -->';

const SECTIONS: { category: MarkerDefinition['category']; title: string; intro: string }[] = [
  { category: 'package', title: 'Group and version', intro: 'In `groupversion.ts` of each API version folder.' },
  { category: 'kind', title: 'Kind-level markers', intro: 'On the `@Root()` class of a Kind.' },
  {
    category: 'validation',
    title: 'Validation markers',
    intro: 'On fields, and on types (classes by decorator; type aliases, interfaces and enums by JSDoc tag).',
  },
  {
    category: 'field',
    title: 'Field markers',
    intro: 'On fields (decorators on class properties, JSDoc tags on interface members).',
  },
  {
    category: 'class',
    title: 'Class markers',
    intro: 'On a class (or interface / type alias by JSDoc tag): CEL rules over its fields.',
  },
  { category: 'rbac', title: 'RBAC', intro: 'On any class, conventionally the reconciler.' },
  { category: 'webhook', title: 'Webhooks', intro: 'On the webhook class.' },
];

const cell = (s: string) => s.replace(/\|/g, '\\|');

function argType(t: ArgType): string {
  switch (t.type) {
    case 'string':
      return t.enum ? t.enum.map((e) => `'${e}'`).join(' | ') : 'string';
    case 'pattern':
      return 'string | RegExp';
    case 'json':
      return 'any JSON value';
    case 'string[]':
      return 'string[]';
    case 'record':
      return 'Record<string, string>';
    default:
      return t.type;
  }
}

function signature(d: MarkerDefinition): string {
  const a: ArgShape = d.args;
  const call = d.targets.includes('package') ? d.name : `@${d.name}`;
  switch (a.shape) {
    case 'none':
      return `${call}()`;
    case 'value':
      return `${call}(${a.label}: ${argType(a.arg)})`;
    case 'variadic':
      return `${call}(...${a.label}: ${argType(a.arg)}[])`;
    case 'object':
      return `${call}({ ${a.fields.map((f) => `${f.name}${f.required ? '' : '?'}: ${argType(f.arg)}`).join(', ')} })${a.optional ? ' (options optional)' : ''}`;
  }
}

const TARGET_WORDS: Record<MarkerTarget, string> = {
  field: 'field',
  type: 'type',
  kind: 'Kind',
  class: 'class',
  package: 'groupversion.ts',
};

/** The whole reference, between (and including) the start and end comments, LF, trailing newline. */
export function renderMarkersReference(): string {
  const lines: string[] = [
    REFERENCE_START,
    '',
    '<!-- Generated from src/markers/definitions.ts by renderMarkersReference(); do not edit by hand. -->',
    '',
  ];
  for (const s of SECTIONS) {
    const defs = MARKER_DEFINITIONS.filter((d) => d.category === s.category);
    if (!defs.length) continue;
    lines.push(
      `### ${s.title}`,
      '',
      s.intro,
      '',
      '| marker | controller-gen | on | repeatable | JSDoc tag | what it does |',
      '|---|---|---|---|---|---|',
    );
    for (const d of defs) {
      const canTag = d.targets.includes('field') || d.targets.includes('type');
      lines.push(
        `| \`${cell(signature(d))}\` | \`${d.controllerGen}\` | ${d.targets.map((t) => TARGET_WORDS[t]).join(', ')} | ${d.repeatable ? 'yes' : ''} | ${canTag ? `\`@${jsDocTagName(d.name)}\`` : ''} | ${cell(d.help)} |`,
      );
    }
    lines.push('');
    const withFields = defs.filter((d) => d.args.shape === 'object' && d.args.fields.length > 0);
    for (const d of withFields) {
      if (d.args.shape !== 'object') continue;
      lines.push(
        `<details><summary>${d.name} arguments</summary>`,
        '',
        '| argument | type | required | meaning |',
        '|---|---|---|---|',
      );
      for (const f of d.args.fields)
        lines.push(`| \`${f.name}\` | ${cell(argType(f.arg))} | ${f.required ? 'yes' : ''} | ${cell(f.help)} |`);
      lines.push('', '</details>', '');
    }
  }
  lines.push(
    '### Type aliases',
    '',
    "`int` (Go's `int`: `type: integer`, no format), `int32`, `int64` (integers with that format), `float64` (`type: number`, fractions on purpose: a plain `number` warns, KF3012), `Quantity` (controller-gen's Quantity schema), `IntOrString`, `Duration` (string), `Time` and `MicroTime` (date-time strings), exported by `kubeforge/markers`.",
    '',
    REFERENCE_END,
  );
  return `${lines.join('\n')}\n`;
}

/** The reference section of a Markdown text (docs/markers.md), or undefined when it has none. */
export function extractReferenceSection(readme: string): string | undefined {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start) return undefined;
  return `${readme.slice(start, end + REFERENCE_END.length)}\n`;
}
