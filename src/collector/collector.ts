/**
 * The marker collector: reads kubeforge markers statically from a loaded program (decorators
 * that resolve to 'kubeforge/markers', however imported: see resolve.ts; and JSDoc tags where TypeScript cannot put a decorator),
 * validating every argument against the definition table, so that what it hands on has the type
 * the table declares ({@link MarkerValue}). Where a marker may stand is decided from the node
 * itself (a class is classified as a Kind or not before its markers are read), never from which
 * caller asks first. Problems go to the reporter; nothing stops at the first one.
 */
import { ts } from '../util/typescript.cjs';
import { error, type Reporter } from '../diagnostics/index.js';
import {
  getMarkerDefinition,
  MARKER_DEFINITIONS,
  markerForJsDocTag,
  type ArgField,
  type ArgType,
  type MarkerArgs,
  type MarkerDefinition,
  type MarkerName,
  type MarkerTarget,
} from '../markers/definitions.js';
import type { NameResolver } from './resolve.js';

export interface Location {
  file: string;
  line: number;
  column: number;
}

/**
 * One marker as written, with its arguments evaluated and validated against its definition: a
 * union over the marker names, so that `m.name === 'Maximum'` narrows `m.args` to a number.
 */
export type MarkerValue<N extends MarkerName = MarkerName> = {
  [K in N]: Location & {
    /** Definition name: `Maximum`, `Items.MaxLength`, `Rbac`. */
    name: K;
    def: MarkerDefinition;
    /** As {@link MarkerArgs}: none: undefined; value: the value; object: the object; variadic: the array of values. */
    args: MarkerArgs<K>;
    source: 'decorator' | 'jsdoc';
  };
}[N];

/** Whether a marker value is of the marker named (narrows its arguments' type). */
export function isMarkerNamed<N extends MarkerName>(m: MarkerValue, name: N): m is Extract<MarkerValue, { name: N }> {
  return m.name === name;
}

/** What a class is, read from its own syntax: whether it is `@Root()`, and whether it is a Kind. */
export interface ClassKind {
  isRoot: boolean;
  isKind: boolean;
}

export function locationOf(node: ts.Node, sf: ts.SourceFile = node.getSourceFile()): Location {
  const lc = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  return { file: sf.fileName, line: lc.line + 1, column: lc.character + 1 };
}

// ---------------------------------------------------------------------------------------------
// Reading markers

type Eval = { ok: true; value: unknown } | { ok: false; node: ts.Node; what: string };

export class MarkerCollector {
  private readonly decoratorCache = new Map<ts.Node, MarkerValue[]>();
  private readonly jsDocCache = new Map<ts.Node, { description?: string; markers: MarkerValue[] }>();

  private readonly classKinds = new Map<ts.ClassDeclaration, ClassKind>();

  constructor(
    readonly checker: ts.TypeChecker,
    readonly reporter: Reporter,
    /** Follows names through imports and re-exports (barrels) to kubeforge/markers. */
    readonly names: NameResolver,
  ) {}

  private report(code: string, message: string, node: ts.Node, hint?: string): void {
    this.reporter.report(error(code, message, { ...locationOf(node), hint }));
  }

  /** Classifies a class from its own decorators and members (cached). */
  classify(decl: ts.ClassDeclaration): ClassKind {
    let kind = this.classKinds.get(decl);
    if (kind) return kind;
    const decorated = (ts.getDecorators(decl) ?? []).map((d) =>
      this.markerNameOf(ts.isCallExpression(d.expression) ? d.expression.expression : d.expression),
    );
    const isRoot = decorated.includes('Root');
    kind = { isRoot, isKind: isRoot && looksLikeKind(decl) };
    this.classKinds.set(decl, kind);
    return kind;
  }

  /**
   * The decorator markers of a class. Which markers it may carry follows from what the class is
   * (a Kind takes kind-level markers), whoever asks first: the analysis, or the parser reaching
   * the class as a field's type.
   */
  classMarkers(decl: ts.ClassDeclaration): MarkerValue[] {
    const { isKind } = this.classify(decl);
    const className = decl.name?.text ?? '(anonymous class)';
    return this.decoratorMarkers(
      decl,
      isKind ? ['kind', 'type', 'class'] : ['type', 'class'],
      isKind ? `Kind ${className}` : `class ${className}`,
    );
  }

  /**
   * The marker name an expression (`Maximum`, `Max` imported as an alias, `m.Maximum`,
   * `Items.MaxLength`, any of them through barrels) refers to, if it leads to kubeforge/markers.
   */
  markerNameOf(expr: ts.Expression): string | undefined {
    return this.names.markerName(expr);
  }

  /** Markers written as decorators on a class, property, method, accessor or parameter (cached). */
  decoratorMarkers(node: ts.Node, allowed: readonly MarkerTarget[], placeName: string): MarkerValue[] {
    const cached = this.decoratorCache.get(node);
    if (cached) return cached;
    const out: MarkerValue[] = [];
    const decorators = ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : [];
    for (const dec of decorators) {
      const expr = dec.expression;
      const isCall = ts.isCallExpression(expr);
      const callee = isCall ? (expr as ts.CallExpression).expression : expr;
      const name = this.markerNameOf(callee);
      if (!name) {
        if (ts.isIdentifier(callee) && getMarkerDefinition(callee.text) && !this.checker.getSymbolAtLocation(callee)) {
          this.report(
            'KF2012',
            `@${callee.text} on ${placeName} is not imported`,
            dec,
            `add ${callee.text} to the import from 'kubeforge/markers'`,
          );
        }
        continue;
      }
      const def = getMarkerDefinition(name);
      if (!def || def.targets.includes('package')) {
        const guess = closest(
          name,
          MARKER_DEFINITIONS.filter((d) => !d.targets.includes('package')).map((d) => d.name),
        );
        this.report(
          'KF2001',
          `unknown marker @${name} on ${placeName}`,
          dec,
          `${guess ? `did you mean @${guess}? ` : ''}kubeforge/markers exports no decorator named ${name}; see the markers reference in docs/markers.md`,
        );
        continue;
      }
      if (!isCall) {
        this.report(
          'KF2004',
          `@${name} on ${placeName} must be called: write @${name}(${def.args.shape === 'none' ? '' : '...'})`,
          dec,
          `decorators from kubeforge/markers are factories: @${name}()`,
        );
        continue;
      }
      if (!def.targets.some((t) => allowed.includes(t))) {
        this.report(
          'KF2002',
          `@${name} cannot be used on ${placeName}: it belongs on ${describeTargets(def.targets)}`,
          dec,
          `move @${name} to ${describeTargets(def.targets)} or remove it`,
        );
        continue;
      }
      const args = this.validateCall(def, (expr as ts.CallExpression).arguments, expr, placeName);
      if (!args.ok) continue;
      out.push({ name, def, args: normalizeValue(args.value), source: 'decorator', ...locationOf(dec) } as MarkerValue);
    }
    this.checkRepeats(out, placeName);
    this.decoratorCache.set(node, out);
    return out;
  }

  private checkRepeats(list: MarkerValue[], placeName: string): void {
    const seen = new Set<string>();
    for (let i = 0; i < list.length; i++) {
      const m = list[i];
      if (seen.has(m.name) && !m.def.repeatable) {
        this.reporter.report(
          error('KF2008', `@${m.name} is given more than once on ${placeName}`, {
            file: m.file,
            line: m.line,
            column: m.column,
            hint: `keep one @${m.name}`,
          }),
        );
        list.splice(i, 1);
        i--;
      }
      seen.add(m.name);
    }
  }

  /** Description and JSDoc-tag markers of a declaration (cached). Tags are markers only where `tagMarkers` is set. */
  jsDoc(
    node: ts.Node,
    allowed: readonly MarkerTarget[] | undefined,
    placeName: string,
  ): { description?: string; markers: MarkerValue[] } {
    const cached = this.jsDocCache.get(node);
    if (cached) return cached;
    const result: { description?: string; markers: MarkerValue[] } = { markers: [] };
    const sf = node.getSourceFile();
    const doc = jsDocRange(node, sf);
    if (doc) {
      const parsed = parseJsDocText(sf.text.slice(doc.start, doc.end));
      result.description = parsed.description;
      const { line: startLine, character: startCol } = sf.getLineAndCharacterOfPosition(doc.start);
      for (const tag of parsed.tags) {
        let tagName = tag.name;
        let text = tag.text;
        if (tagName.toLowerCase() === 'items' && text.startsWith('.')) {
          const m = /^\.([A-Za-z]+)\s*([\s\S]*)$/.exec(text);
          if (m) {
            tagName = `items.${m[1]}`;
            text = m[2];
          }
        }
        const def = markerForJsDocTag(tagName);
        if (!def) continue;
        const loc: Location = {
          file: sf.fileName,
          line: startLine + tag.line + 1,
          column: (tag.line === 0 ? startCol : 0) + tag.column + 1,
        };
        if (!allowed) {
          // Classes and their fields take decorators; a marker tag there would be silently lost.
          this.reporter.report({
            code: 'KF2014',
            severity: 'warning',
            message: `JSDoc tag @${tagName} on ${placeName} is ignored: classes and their fields take decorators`,
            hint: `write the decorator @${def.name}(${decoratorArgsFor(def, text)}) imported from 'kubeforge/markers' instead`,
            ...loc,
          });
          continue;
        }
        if (!def.targets.some((t) => allowed.includes(t))) {
          this.reporter.report(
            error(
              'KF2002',
              `@${tagName} cannot be used on ${placeName}: it belongs on ${describeTargets(def.targets)}`,
              { ...loc, hint: `move the tag or remove it` },
            ),
          );
          continue;
        }
        const value = this.jsDocArgs(def, tagName, text, loc, placeName);
        if (value.ok)
          result.markers.push({ name: def.name, def, args: value.value, source: 'jsdoc', ...loc } as MarkerValue);
      }
      this.checkRepeats(result.markers, placeName);
    }
    this.jsDocCache.set(node, result);
    return result;
  }

  private jsDocArgs(
    def: MarkerDefinition,
    tag: string,
    text: string,
    loc: Location,
    placeName: string,
  ): { ok: true; value: unknown } | { ok: false } {
    const fail = (msg: string, hint: string) => {
      this.reporter.report(error('KF2011', `@${tag} on ${placeName}: ${msg}`, { ...loc, hint }));
      return { ok: false as const };
    };
    const trimmed = text.trim();
    const shape = def.args;
    const isStringArg = (a: ArgType) => a.type === 'string' || a.type === 'pattern';
    let raw: unknown;
    if (shape.shape === 'none') {
      if (trimmed === '' || trimmed === 'true') return { ok: true, value: undefined };
      return fail(`takes no value, found '${trimmed}'`, `write just @${tag}`);
    }
    if (shape.shape === 'value' && isStringArg(shape.arg)) raw = trimmed;
    else {
      if (trimmed === '') return fail('needs a value', `write @${tag} <value>`);
      try {
        raw = JSON.parse(trimmed);
      } catch {
        if (shape.shape === 'variadic' && shape.arg.type === 'string' && /^[\w.-]+$/.test(trimmed)) raw = [trimmed];
        else if (shape.shape === 'value' && shape.arg.type === 'json' && !/^[[{"]/.test(trimmed)) raw = trimmed;
        else
          return fail(`cannot parse '${trimmed}' as JSON`, `write the value as JSON, e.g. @${tag} ${exampleFor(def)}`);
      }
    }
    if (shape.shape === 'variadic') {
      const list = Array.isArray(raw) ? raw : [raw];
      for (const v of list) {
        const err = checkArgType(shape.arg, v);
        if (err) return fail(`${shape.label}: ${err}`, `write @${tag} ${exampleFor(def)}`);
      }
      if (list.length === 0) return fail(`needs at least one of ${shape.label}`, `write @${tag} ${exampleFor(def)}`);
      return { ok: true, value: list };
    }
    if (shape.shape === 'value') {
      const err = checkArgType(shape.arg, raw);
      if (err) return fail(err, `write @${tag} ${exampleFor(def)}`);
      return { ok: true, value: raw };
    }
    // object
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      return fail('expects a JSON object', `write @${tag} ${exampleFor(def)}`);
    const problems = checkObjectFields(shape.fields, raw as Record<string, unknown>);
    if (problems.length) return fail(problems.join('; '), `write @${tag} ${exampleFor(def)}`);
    return { ok: true, value: raw };
  }

  validateCall(
    def: MarkerDefinition,
    args: ts.NodeArray<ts.Expression>,
    call: ts.CallExpression,
    placeName: string,
  ): { ok: true; value: unknown } | { ok: false } {
    const shape = def.args;
    const bad = (code: string, msg: string, node: ts.Node, hint: string) => {
      this.report(code, `@${def.name} on ${placeName}: ${msg}`, node, hint);
      return { ok: false as const };
    };
    const spread = args.find((a) => ts.isSpreadElement(a));
    if (spread)
      return bad('KF2003', 'spread arguments cannot be read statically', spread, 'write the values out as literals');
    if (shape.shape === 'none') {
      if (args.length > 0)
        return bad('KF2004', `takes no argument, found ${args.length}`, args[0], `write @${def.name}()`);
      return { ok: true, value: undefined };
    }
    if (shape.shape === 'value') {
      if (args.length !== 1)
        return bad(
          'KF2004',
          `takes exactly one argument (${shape.label}), found ${args.length}`,
          args[0] ?? call,
          `write @${def.name}(${exampleFor(def)})`,
        );
      const v = this.evaluate(args[0]);
      if (!v.ok)
        return bad(
          'KF2003',
          `argument ${shape.label} is not a literal: ${v.what}`,
          v.node,
          'marker arguments must be literals or references to const literals',
        );
      const err = checkArgType(shape.arg, v.value);
      if (err)
        return bad('KF2007', `argument ${shape.label}: ${err}`, args[0], `write @${def.name}(${exampleFor(def)})`);
      return { ok: true, value: v.value };
    }
    if (shape.shape === 'variadic') {
      if (args.length === 0)
        return bad(
          'KF2004',
          `needs at least one argument (${shape.label})`,
          call,
          `write @${def.name}(${exampleFor(def)})`,
        );
      const values: unknown[] = [];
      for (const a of args) {
        const v = this.evaluate(a);
        if (!v.ok)
          return bad(
            'KF2003',
            `argument is not a literal: ${v.what}`,
            v.node,
            'marker arguments must be literals or references to const literals',
          );
        const err = checkArgType(shape.arg, v.value);
        if (err) return bad('KF2007', `${shape.label}: ${err}`, a, `write @${def.name}(${exampleFor(def)})`);
        values.push(v.value);
      }
      return { ok: true, value: values };
    }
    return this.validateOptionsCall(def, shape, args, call, placeName);
  }

  /** validateCall of a marker that takes one options object: each field checked, at its own location where it has one. */
  private validateOptionsCall(
    def: MarkerDefinition,
    shape: Extract<MarkerDefinition['args'], { shape: 'object' }>,
    args: ts.NodeArray<ts.Expression>,
    call: ts.CallExpression,
    placeName: string,
  ): { ok: true; value: unknown } | { ok: false } {
    const bad = (code: string, msg: string, node: ts.Node, hint: string) => {
      this.report(code, `@${def.name} on ${placeName}: ${msg}`, node, hint);
      return { ok: false as const };
    };
    if (args.length === 0) {
      if (shape.optional) return { ok: true, value: {} };
      const required = shape.fields.filter((x) => x.required).map((x) => x.name);
      return bad(
        'KF2006',
        `missing its options object${required.length ? ` (required: ${required.join(', ')})` : ''}`,
        call,
        `write @${def.name}(${exampleFor(def)})`,
      );
    }
    if (args.length > 1)
      return bad(
        'KF2004',
        `takes one options object, found ${args.length} arguments`,
        args[1],
        `write @${def.name}(${exampleFor(def)})`,
      );
    const arg = unwrap(args[0]);
    const known = new Set(shape.fields.map((x) => x.name));
    let okAll = true;
    if (ts.isObjectLiteralExpression(arg)) {
      // Report unknown names and non-literal values property by property, at their own location.
      for (const p of arg.properties) {
        const pname = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
        if (pname !== undefined && !known.has(pname)) {
          const close = closest(pname, [...known]);
          this.report(
            'KF2005',
            `@${def.name} on ${placeName}: unknown argument '${pname}'`,
            p,
            `${close ? `did you mean '${close}'? ` : ''}known arguments: ${[...known].join(', ')}`,
          );
          okAll = false;
        }
      }
    }
    const v = this.evaluate(arg);
    if (!v.ok)
      return bad(
        'KF2003',
        `argument is not a literal: ${v.what}`,
        v.node,
        'marker arguments must be literals or references to const literals',
      );
    if (!okAll) return { ok: false };
    if (v.value === null || typeof v.value !== 'object' || Array.isArray(v.value))
      return bad('KF2007', 'expects an options object', arg, `write @${def.name}(${exampleFor(def)})`);
    const obj = v.value as Record<string, unknown>;
    const problems: { code: string; msg: string; node: ts.Node }[] = [];
    for (const field of shape.fields) {
      if (obj[field.name] === undefined) {
        if (field.required)
          problems.push({ code: 'KF2006', msg: `missing required argument '${field.name}'`, node: arg });
        continue;
      }
      const err = checkArgType(field.arg, obj[field.name]);
      if (err)
        problems.push({
          code: 'KF2007',
          msg: `argument '${field.name}': ${err}`,
          node: propertyNode(arg, field.name) ?? arg,
        });
    }
    for (const key of Object.keys(obj)) {
      if (!known.has(key) && !ts.isObjectLiteralExpression(arg))
        problems.push({ code: 'KF2005', msg: `unknown argument '${key}'`, node: arg });
    }
    for (const p of problems)
      this.report(p.code, `@${def.name} on ${placeName}: ${p.msg}`, p.node, `write @${def.name}(${exampleFor(def)})`);
    if (problems.length) return { ok: false };
    return { ok: true, value: obj };
  }

  /** Statically evaluates a marker argument: literals, arrays, objects, RegExp literals, const references. */
  evaluate(node: ts.Expression, depth = 0): Eval {
    if (depth > 20) return { ok: false, node, what: 'a reference cycle' };
    const e = unwrap(node);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return { ok: true, value: e.text };
    if (ts.isNumericLiteral(e)) return { ok: true, value: Number(e.text) };
    if (e.kind === ts.SyntaxKind.TrueKeyword) return { ok: true, value: true };
    if (e.kind === ts.SyntaxKind.FalseKeyword) return { ok: true, value: false };
    if (e.kind === ts.SyntaxKind.NullKeyword) return { ok: true, value: null };
    if (
      ts.isPrefixUnaryExpression(e) &&
      (e.operator === ts.SyntaxKind.MinusToken || e.operator === ts.SyntaxKind.PlusToken)
    ) {
      const inner = this.evaluate(e.operand, depth + 1);
      if (!inner.ok) return inner;
      if (typeof inner.value !== 'number') return { ok: false, node: e, what: 'a sign applied to a non-number' };
      return { ok: true, value: e.operator === ts.SyntaxKind.MinusToken ? -inner.value : inner.value };
    }
    if (ts.isRegularExpressionLiteral(e)) {
      const m = /^\/([\s\S]*)\/([a-z]*)$/.exec(e.text);
      if (!m) return { ok: false, node: e, what: 'an unreadable RegExp literal' };
      if (m[2]) return { ok: false, node: e, what: `a RegExp with flags '${m[2]}' (Kubernetes patterns take none)` };
      return { ok: true, value: new RegExpSource(m[1]) };
    }
    if (ts.isArrayLiteralExpression(e)) {
      const out: unknown[] = [];
      for (const el of e.elements) {
        if (ts.isSpreadElement(el)) return { ok: false, node: el, what: 'a spread element' };
        const v = this.evaluate(el, depth + 1);
        if (!v.ok) return v;
        out.push(v.value);
      }
      return { ok: true, value: out };
    }
    if (ts.isObjectLiteralExpression(e)) {
      const out: Record<string, unknown> = {};
      for (const p of e.properties) {
        if (ts.isPropertyAssignment(p)) {
          const key = propertyKey(p.name);
          if (key === undefined) return { ok: false, node: p.name, what: 'a computed property name' };
          const v = this.evaluate(p.initializer, depth + 1);
          if (!v.ok) return v;
          if (v.value !== undefined) out[key] = v.value;
        } else if (ts.isShorthandPropertyAssignment(p)) {
          const v = this.evaluate(p.name, depth + 1);
          if (!v.ok) return v;
          if (v.value !== undefined) out[p.name.text] = v.value;
        } else return { ok: false, node: p, what: ts.isSpreadAssignment(p) ? 'a spread' : 'a method or accessor' };
      }
      return { ok: true, value: out };
    }
    if (ts.isIdentifier(e)) {
      if (e.text === 'undefined') return { ok: true, value: undefined };
      return this.evaluateReference(e, depth);
    }
    if (ts.isPropertyAccessExpression(e)) {
      const sym = this.checker.getSymbolAtLocation(e);
      const decl = sym?.valueDeclaration;
      if (decl && ts.isEnumMember(decl)) {
        const c = this.checker.getConstantValue(decl);
        if (c !== undefined) return { ok: true, value: c };
      }
      const base = this.evaluate(e.expression, depth + 1);
      if (!base.ok) return base;
      if (
        base.value &&
        typeof base.value === 'object' &&
        !Array.isArray(base.value) &&
        e.name.text in (base.value as object)
      ) {
        return { ok: true, value: (base.value as Record<string, unknown>)[e.name.text] };
      }
      return { ok: false, node: e, what: `'${e.getText()}' is not a property of a const object literal` };
    }
    if (ts.isTemplateExpression(e)) return { ok: false, node: e, what: 'a template string with substitutions' };
    return { ok: false, node: e, what: `'${truncate(e.getText())}' (${ts.SyntaxKind[e.kind]})` };
  }

  private evaluateReference(id: ts.Identifier, depth: number): Eval {
    let sym = this.checker.getSymbolAtLocation(id);
    if (sym && sym.flags & ts.SymbolFlags.Alias) {
      try {
        sym = this.checker.getAliasedSymbol(sym);
      } catch {
        /* keep */
      }
    }
    const decl = sym?.valueDeclaration;
    if (
      decl &&
      ts.isVariableDeclaration(decl) &&
      decl.initializer &&
      ts.isVariableDeclarationList(decl.parent) &&
      decl.parent.flags & ts.NodeFlags.Const
    ) {
      return this.evaluate(decl.initializer, depth + 1);
    }
    if (decl && ts.isEnumMember(decl)) {
      const c = this.checker.getConstantValue(decl);
      if (c !== undefined) return { ok: true, value: c };
    }
    return { ok: false, node: id, what: `'${id.text}' is not a const with a literal value` };
  }
}

/** Replaces RegExp sources by their pattern text, deeply. */
function normalizeValue(v: unknown): unknown {
  if (v instanceof RegExpSource) return v.source;
  if (Array.isArray(v)) return v.map(normalizeValue);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalizeValue(x)]));
  return v;
}

/** The source of a RegExp literal, kept distinct from a string until type-checked. */
class RegExpSource {
  constructor(readonly source: string) {}
}

function unwrap(e: ts.Expression): ts.Expression {
  for (;;) {
    if (
      ts.isParenthesizedExpression(e) ||
      ts.isAsExpression(e) ||
      ts.isSatisfiesExpression(e) ||
      ts.isTypeAssertionExpression(e) ||
      ts.isNonNullExpression(e)
    )
      e = e.expression;
    else return e;
  }
}

function propertyKey(name: ts.PropertyName): string | undefined {
  if (
    ts.isIdentifier(name) ||
    ts.isStringLiteral(name) ||
    ts.isNumericLiteral(name) ||
    ts.isNoSubstitutionTemplateLiteral(name)
  )
    return name.text;
  return undefined;
}

function propertyNode(obj: ts.Expression, name: string): ts.Node | undefined {
  if (!ts.isObjectLiteralExpression(obj)) return undefined;
  return obj.properties.find((p) => p.name && propertyKey(p.name as ts.PropertyName) === name);
}

function truncate(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 40 ? `${one.slice(0, 37)}...` : one;
}

const SYNONYMS: Record<string, string> = {
  plural: 'path',
  shortNames: 'shortName',
  JSONPath: 'jsonPath',
  jsonpath: 'jsonPath',
};

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length];
}

/** The option a misspelt name most likely meant. */
function closest(name: string, options: readonly string[]): string | undefined {
  const syn = SYNONYMS[name];
  if (syn && options.includes(syn)) return syn;
  const lower = name.toLowerCase();
  const exact = options.find((o) => o.toLowerCase() === lower);
  if (exact) return exact;
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of options) {
    const dist = editDistance(lower, o.toLowerCase());
    if (dist < bestD) {
      bestD = dist;
      best = o;
    }
  }
  return bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

function typeLabel(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof RegExpSource) return 'a RegExp';
  return `a ${typeof v}`;
}

/** Checks (and for patterns, normalises in place is not needed) a value against an argument type; returns the problem or undefined. */
function checkArgType(arg: ArgType, v: unknown): string | undefined {
  switch (arg.type) {
    case 'string':
      if (typeof v !== 'string') return `expected a string, found ${typeLabel(v)}`;
      if (arg.enum && !arg.enum.includes(v)) return `'${v}' is not one of ${arg.enum.map((x) => `'${x}'`).join(', ')}`;
      return undefined;
    case 'pattern':
      if (typeof v !== 'string' && !(v instanceof RegExpSource))
        return `expected a string or a RegExp literal, found ${typeLabel(v)}`;
      return undefined;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : `expected a number, found ${typeLabel(v)}`;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v)
        ? undefined
        : `expected an integer, found ${typeof v === 'number' ? v : typeLabel(v)}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected a boolean, found ${typeLabel(v)}`;
    case 'json':
      return v instanceof RegExpSource ? 'expected a JSON value, found a RegExp' : undefined;
    case 'string[]':
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
        return `expected an array of strings, found ${typeLabel(v)}`;
      if (arg.enum) {
        const allowed = arg.enum;
        const badOne = v.find((x) => !allowed.includes(x));
        if (badOne !== undefined) return `'${badOne}' is not one of ${allowed.join(', ')}`;
      }
      return undefined;
    case 'record':
      if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof RegExpSource)
        return `expected an object of strings, found ${typeLabel(v)}`;
      for (const [k, x] of Object.entries(v)) if (typeof x !== 'string') return `value of '${k}' must be a string`;
      return undefined;
  }
}

function checkObjectFields(fields: readonly ArgField[], obj: Record<string, unknown>): string[] {
  const out: string[] = [];
  const known = new Set(fields.map((f) => f.name));
  for (const k of Object.keys(obj)) if (!known.has(k)) out.push(`unknown argument '${k}'`);
  for (const f of fields) {
    if (obj[f.name] === undefined) {
      if (f.required) out.push(`missing required argument '${f.name}'`);
      continue;
    }
    const err = checkArgType(f.arg, obj[f.name]);
    if (err) out.push(`argument '${f.name}': ${err}`);
  }
  return out;
}

function exampleFor(def: MarkerDefinition): string {
  const a = def.args;
  const sample = (t: ArgType): string => {
    switch (t.type) {
      case 'string':
        return t.enum ? `'${t.enum[0]}'` : "'...'";
      case 'pattern':
        return '/^[a-z]+$/';
      case 'number':
      case 'integer':
        return '1';
      case 'boolean':
        return 'true';
      case 'json':
        return "'value'";
      case 'string[]':
        return "['...']";
      case 'record':
        return "{ key: 'value' }";
    }
  };
  if (a.shape === 'none') return '';
  if (a.shape === 'value') return sample(a.arg);
  if (a.shape === 'variadic') return `${sample(a.arg)}, ${sample(a.arg)}`;
  const req = a.fields.filter((f) => f.required);
  return `{ ${(req.length ? req : a.fields.slice(0, 1)).map((f) => `${f.name}: ${sample(f.arg)}`).join(', ')} }`;
}

function describeTargets(targets: readonly MarkerTarget[]): string {
  const words: Record<MarkerTarget, string> = {
    field: 'a field',
    type: 'a type (class, interface, type alias or enum)',
    kind: 'a Kind (a @Root() class with metadata)',
    class: 'a class',
    package: 'groupversion.ts',
  };
  return targets.map((t) => words[t]).join(' or ');
}

// ---------------------------------------------------------------------------------------------
// JSDoc text

export interface ParsedJsDoc {
  description?: string;
  tags: { name: string; text: string; line: number; column: number }[];
}

/**
 * Splits a raw `/** ... *\/` comment into its description (tags stripped; lines kept; a blank
 * line is a paragraph break) and its tags, each with its line offset and column.
 */
/** The arguments of the decorator that says what a JSDoc tag's text says (`...` when that cannot be told). */
function decoratorArgsFor(def: MarkerDefinition, text: string): string {
  const t = text.trim();
  if (def.args.shape === 'none' || t === '') return '';
  const quoted = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (def.args.shape === 'value' && (def.args.arg.type === 'string' || def.args.arg.type === 'pattern'))
    return quoted(t);
  try {
    const v: unknown = JSON.parse(t);
    if (def.args.shape === 'variadic' && Array.isArray(v))
      return v.map((x) => (typeof x === 'string' ? quoted(x) : JSON.stringify(x))).join(', ');
    return typeof v === 'string' ? quoted(v) : t;
  } catch {
    // A bare word where a JSON value is expected (`@default fast`): the string it most likely means.
    return /^[\w.-]+$/.test(t) ? quoted(t) : '...';
  }
}

/**
 * Where the JSDoc comment of a declaration is: the one the compiler attached, else a `/** *\/`
 * comment just before it on the same line as the `{` of its interface or type literal
 * (`{ /** @maxLength 3 *\/ a?: string }`), which TypeScript leaves unattached, and which would
 * otherwise be a marker dropped without a word.
 */
function jsDocRange(node: ts.Node, sf: ts.SourceFile): { start: number; end: number } | undefined {
  const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc;
  if (docs && docs.length > 0) {
    const doc = docs[docs.length - 1];
    return { start: doc.getStart(sf), end: doc.end };
  }
  // On the line of the `{`, the compiler counts the comment as trailing the `{`, not leading the member.
  const last = [
    ...(ts.getTrailingCommentRanges(sf.text, node.pos) ?? []),
    ...(ts.getLeadingCommentRanges(sf.text, node.pos) ?? []),
  ]
    .filter(
      (r) =>
        r.kind === ts.SyntaxKind.MultiLineCommentTrivia &&
        sf.text.startsWith('/**', r.pos) &&
        !sf.text.startsWith('/**/', r.pos),
    )
    .at(-1);
  // Only a comment that ends on the line where the declaration starts: one left after the previous
  // member (`a?: string; /** of a? *\/` then a line break) is not this one's.
  if (
    !last ||
    sf.getLineAndCharacterOfPosition(last.end).line !== sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
  )
    return undefined;
  return { start: last.pos, end: last.end };
}

export function parseJsDocText(raw: string): ParsedJsDoc {
  const body = raw.replace(/^\/\*\*/, '').replace(/\*\/$/, '');
  const lines = body.split(/\r?\n/);
  const desc: string[] = [];
  const tags: ParsedJsDoc['tags'] = [];
  let current: ParsedJsDoc['tags'][number] | undefined;
  lines.forEach((line, i) => {
    const m = /^(\s*\*?\s?)(.*)$/.exec(line);
    const content = (m ? m[2] : line).replace(/\s+$/, '');
    const tag = /^@([A-Za-z][\w.]*)\s?(.*)$/.exec(content.trimStart());
    if (tag) {
      current = { name: tag[1], text: tag[2], line: i, column: (i === 0 ? 3 : 0) + line.indexOf(`@${tag[1]}`) };
      tags.push(current);
    } else if (current) {
      current.text += `\n${content.trim()}`;
    } else desc.push(i === 0 ? content.trimStart() : content);
  });
  for (const t of tags) t.text = t.text.trim();
  // As controller-gen reads Go comments: indentation after the comment prefix is kept; outside
  // fenced code blocks, lines starting with TODO are dropped and a line starting with --- ends
  // the description; runs of blank lines become one paragraph break.
  const kept: string[] = [];
  let inCode = false;
  for (const l of desc) {
    if (l.startsWith('```') || l.startsWith('~~~')) inCode = !inCode;
    if (!inCode) {
      if (l.startsWith('TODO')) continue;
      if (l.startsWith('---')) break;
    }
    kept.push(l);
  }
  while (kept.length && kept[0] === '') kept.shift();
  while (kept.length && kept[kept.length - 1] === '') kept.pop();
  const joined: string[] = [];
  for (const l of kept) {
    if (l === '' && joined[joined.length - 1] === '') continue;
    joined.push(l);
  }
  const description = joined.join('\n');
  return { description: description || undefined, tags };
}

/** A @Root() class is a Kind when it has a `metadata` field that is not a ListMeta (list types are roots too). */
function looksLikeKind(decl: ts.ClassDeclaration): boolean {
  for (const m of decl.members) {
    if (ts.isPropertyDeclaration(m) && m.name.getText() === 'metadata') {
      return !(m.type && /ListMeta\b/.test(m.type.getText()));
    }
  }
  // metadata may come from a base class
  return (
    !!decl.heritageClauses?.some((h) => h.token === ts.SyntaxKind.ExtendsKeyword) &&
    !/List$/.test(decl.name?.text ?? '')
  );
}
