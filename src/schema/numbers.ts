/**
 * A plain `number` field becomes `type: number`, which accepts 1.5 where a Go author would have
 * written int32: warn (KF3012), with the aliases that say what is meant. Warnings only: the CRD
 * is still written and the exit code is unchanged. A `number` whose schema type a marker sets
 * (`@Type('integer')`, `@Items.Type(...)` for a list's items) is not `type: number` and does not warn.
 */
import { ts } from '../util/typescript.cjs';
import { type Diagnostic, warning } from '../diagnostics/index.js';
import { locationOf } from '../collector/collector.js';

/** The KF3012 warning for a plain `number` (or `Number`) type node that `where` describes. */
export function plainNumberWarning(node: ts.Node, where: string): Diagnostic {
  return warning(
    'KF3012',
    `${where} is a plain number, so its schema is \`type: number\` and the API server accepts fractions (1.5)`,
    {
      ...locationOf(node),
      hint: "use int, int32 or int64 from 'kubeforge/markers' for a whole number (type: integer), or float64 to say that it takes fractions on purpose",
    },
  );
}

/**
 * Whether a `number` node is a value's type (a field, an array's items, a map's values), rather
 * than a Record key or a member of a union with other types (both already errors): only the
 * former warn.
 */
export function isValueNumber(node: ts.Node): boolean {
  const p = node.parent;
  if (p && ts.isUnionTypeNode(p)) {
    return p.types.every(
      (t) =>
        t.kind === ts.SyntaxKind.NumberKeyword ||
        t.kind === ts.SyntaxKind.UndefinedKeyword ||
        (ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword),
    );
  }
  if (
    p &&
    ts.isTypeReferenceNode(p) &&
    p.typeArguments?.[0] === node &&
    ts.isIdentifier(p.typeName) &&
    p.typeName.text === 'Record'
  )
    return false;
  return true;
}
