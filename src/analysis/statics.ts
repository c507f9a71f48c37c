/**
 * A Kind class's own handle against its CRD: kubeforge/runtime addresses a Kind by its
 * `static gvk` / `plural` / `namespaced`, the CRD gets its names from the markers
 * (`defineGroupVersion`, `@Resource`, the class name). When they drift the first sign would be
 * 404s at run time, so `manifests` compares them (KF4015). Only literal values are compared; a
 * static computed from something else is the author's to keep right.
 */
import { ts } from '../util/typescript.cjs';
import { error, type Reporter } from '../diagnostics/index.js';
import { pluralize } from '../project/plural.js';
import { isMarkerNamed, locationOf, type MarkerValue } from '../collector/collector.js';

/** A Kind version as the analysis found it: its class and what its markers make of it. */
export interface KindStaticsInput {
  decl: ts.ClassDeclaration;
  group: string;
  version: string;
  kind: string;
  markers: readonly MarkerValue[];
}

/** The literal string or boolean of an expression (through `as const`, `satisfies`, parentheses), else undefined. */
function literal(e: ts.Expression | undefined): string | boolean | undefined {
  while (
    e &&
    (ts.isAsExpression(e) ||
      ts.isSatisfiesExpression(e) ||
      ts.isParenthesizedExpression(e) ||
      ts.isTypeAssertionExpression(e))
  )
    e = e.expression;
  if (!e) return undefined;
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  if (e.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (e.kind === ts.SyntaxKind.FalseKeyword) return false;
  return undefined;
}

function objectLiteral(e: ts.Expression | undefined): ts.ObjectLiteralExpression | undefined {
  while (
    e &&
    (ts.isAsExpression(e) ||
      ts.isSatisfiesExpression(e) ||
      ts.isParenthesizedExpression(e) ||
      ts.isTypeAssertionExpression(e))
  )
    e = e.expression;
  return e && ts.isObjectLiteralExpression(e) ? e : undefined;
}

function staticProperty(decl: ts.ClassDeclaration, name: string): ts.PropertyDeclaration | undefined {
  return decl.members.find(
    (m): m is ts.PropertyDeclaration =>
      ts.isPropertyDeclaration(m) &&
      !!(ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Static) &&
      (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) &&
      m.name.text === name,
  );
}

/**
 * Reports KF4015 for every `static gvk` field (group, version, kind), `static plural` and
 * `static namespaced` of a Kind class whose literal value differs from what the CRD generated
 * from its markers says. `@Resource` may sit on any version of a Kind, so all versions are given.
 */
export function checkKindStatics(kinds: readonly KindStaticsInput[], reporter: Reporter): void {
  const resourceOf = new Map<string, { path?: string; scope?: string }>();
  for (const k of kinds) {
    const key = `${k.group}/${k.kind}`;
    const r = resourceOf.get(key) ?? {};
    for (const m of k.markers) {
      if (!isMarkerNamed(m, 'Resource')) continue;
      const args = m.args as { path?: string; scope?: string };
      r.path ??= args.path;
      r.scope ??= args.scope;
    }
    resourceOf.set(key, r);
  }
  for (const k of kinds) {
    const resource = resourceOf.get(`${k.group}/${k.kind}`) ?? {}; // set for every kind above
    const plural = resource.path ?? pluralize(k.kind);
    const namespaced = (resource.scope ?? 'Namespaced') === 'Namespaced';
    const expected = `static readonly gvk = { group: '${k.group}', version: '${k.version}', kind: '${k.kind}' } as const;`;
    const report = (node: ts.Node, what: string, has: unknown, want: unknown, from: string, hint: string) =>
      reporter.report(
        error(
          'KF4015',
          `Kind ${k.kind}: ${what} is ${JSON.stringify(has)}, but its CRD says ${JSON.stringify(want)} (${from}); kubeforge/runtime would address a resource that does not exist (404)`,
          {
            ...locationOf(node),
            hint,
          },
        ),
      );

    const gvk = staticProperty(k.decl, 'gvk');
    const obj = objectLiteral(gvk?.initializer);
    if (obj) {
      const want: Record<string, [string, string]> = {
        group: [k.group, 'the group of defineGroupVersion in its folder'],
        version: [k.version, 'the version of defineGroupVersion in its folder'],
        kind: [k.kind, 'the class name'],
      };
      for (const p of obj.properties) {
        if (!ts.isPropertyAssignment(p) || !(ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) continue;
        const field = p.name.text;
        if (!Object.hasOwn(want, field)) continue;
        const has = literal(p.initializer);
        if (typeof has === 'string' && has !== want[field][0])
          report(p.initializer, `static gvk.${field}`, has, want[field][0], want[field][1], `write ${expected}`);
      }
    }
    const pluralProp = staticProperty(k.decl, 'plural');
    const hasPlural = literal(pluralProp?.initializer);
    if (pluralProp?.initializer && typeof hasPlural === 'string' && hasPlural !== plural) {
      report(
        pluralProp.initializer,
        'static plural',
        hasPlural,
        plural,
        resource.path ? "@Resource's path" : `the plural of ${k.kind}`,
        `write static readonly plural = '${plural}'; or set the CRD's plural with @Resource({ path: '${hasPlural}' })`,
      );
    }
    const nsProp = staticProperty(k.decl, 'namespaced');
    const hasNs = literal(nsProp?.initializer);
    if (nsProp?.initializer && typeof hasNs === 'boolean' && hasNs !== namespaced) {
      report(
        nsProp.initializer,
        'static namespaced',
        hasNs,
        namespaced,
        namespaced ? 'no @Resource scope: Namespaced' : "@Resource's scope: 'Cluster'",
        `write static readonly namespaced = ${namespaced}; or change @Resource's scope`,
      );
    }
  }
}
