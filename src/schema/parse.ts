/**
 * TypeScript -> intermediate form. Walks type *syntax* (annotations, declarations) and uses the
 * checker only to resolve names, so it never asks TypeScript to compute a type: that keeps the
 * analysis far cheaper than a type check. Handles primitives, kubeforge's aliases, literal
 * unions and enums, arrays, records and index signatures, classes / interfaces / type literals /
 * aliases across files, heritage, intersections, generics (by substitution), optional and
 * nullable members, and @kubernetes/client-node model types by name. Everything else is a
 * located KF3xxx diagnostic naming what was found and how to fix it.
 */
import { ts } from '../util/typescript.cjs';
import { error, type Reporter } from '../diagnostics/index.js';
import { locationOf, type MarkerCollector, type MarkerValue } from '../collector/collector.js';
import { K8S_MODULE, MARKERS_MODULE } from '../loader/program.js';
import type { IRProperty, IRType } from './ir.js';
import { embeddedParts, irResolve } from './ir.js';
import { isValueNumber, plainNumberWarning } from './numbers.js';

type Binding = { node: ts.TypeNode; env: Env };
type Env = ReadonlyMap<ts.TypeParameterDeclaration, Binding>;
const EMPTY: Env = new Map();

type Resolved =
  | { kind: 'external'; module: string; name: string }
  | { kind: 'decl'; decl: ts.Declaration }
  | { kind: 'typeParam'; decl: ts.TypeParameterDeclaration }
  | { kind: 'global'; name: string }
  | { kind: 'unresolved' };

type NamedDecl = ts.ClassDeclaration | ts.InterfaceDeclaration | ts.TypeAliasDeclaration | ts.EnumDeclaration;

export interface ParserHost {
  collector: MarkerCollector;
  reporter: Reporter;
  checker: ts.TypeChecker;
  isLibFile(sf: ts.SourceFile): boolean;
  /** fieldsOptionalByDefault for the group-version of the folder holding this file. */
  optionalByDefault(file: string): boolean;
}

const isExternalModule = (m: string) => m === MARKERS_MODULE || m === K8S_MODULE || m.startsWith(`${K8S_MODULE}/`);

export class TypeParser {
  private readonly stack: ts.Node[] = [];
  private readonly cache = new Map<ts.Node, IRType>();

  constructor(private readonly host: ParserHost) {}

  /** The user's fields being parsed, innermost last: problems inside a dependency's types are reported there. */
  private readonly userSites: ts.Node[] = [];

  private readonly plainNumbers = new Set<ts.Node>();

  /**
   * Type nodes whose schema type a marker sets (`@Type` on the field or alias, `@Items.Type` for
   * a list's items): a `number` there is not `type: number`, so KF3012 would say something false.
   */
  private readonly typed = new Set<ts.Node>();

  /** Records the type nodes `@Type` / `@Items.Type` among `markers` set the schema type of. */
  private noteTyped(node: ts.TypeNode | undefined, markers: readonly MarkerValue[]): void {
    if (!node) return;
    const alternatives = (n: ts.TypeNode): ts.TypeNode[] => {
      while (ts.isParenthesizedTypeNode(n)) n = n.type;
      return ts.isUnionTypeNode(n) ? n.types.flatMap(alternatives) : [n];
    };
    if (markers.some((m) => m.name === 'Type')) for (const t of alternatives(node)) this.typed.add(t);
    if (!markers.some((m) => m.name === 'Items.Type')) return;
    for (const t of alternatives(node)) {
      const items = ts.isArrayTypeNode(t)
        ? t.elementType
        : ts.isTypeOperatorNode(t) && ts.isArrayTypeNode(t.type)
          ? t.type.elementType
          : ts.isTypeReferenceNode(t) &&
              ts.isIdentifier(t.typeName) &&
              (t.typeName.text === 'Array' || t.typeName.text === 'ReadonlyArray')
            ? t.typeArguments?.[0]
            : undefined;
      for (const i of items ? alternatives(items) : []) this.typed.add(i);
    }
  }

  /** KF3012, once per `number` the user wrote (not in a dependency's types), unless a marker sets its type. */
  private warnPlainNumber(node: ts.Node, where: string): void {
    if (this.typed.has(node)) return;
    if (this.plainNumbers.has(node) || !isValueNumber(node) || isDependencyFile(node.getSourceFile().fileName)) return;
    this.plainNumbers.add(node);
    this.host.reporter.report(plainNumberWarning(node, where));
  }

  /** Type nodes of fields that carry @Pattern: their template literal type says nothing the pattern does not. */
  private readonly patterned = new Set<ts.Node>();

  /**
   * KF3013: a template literal type (`prefix-${string}`) constrains the TypeScript, not the API
   * server, which sees `type: string`. The warning gives the @Pattern that would say it there.
   */
  private warnTemplateLiteral(node: ts.TemplateLiteralTypeNode, where: string): void {
    if (this.patterned.has(node) || isDependencyFile(node.getSourceFile().fileName)) return;
    const hole = (t: ts.TypeNode) =>
      t.kind === ts.SyntaxKind.NumberKeyword
        ? '-?[0-9]+(\\.[0-9]+)?'
        : t.kind === ts.SyntaxKind.BigIntKeyword
          ? '-?[0-9]+'
          : t.kind === ts.SyntaxKind.BooleanKeyword
            ? '(true|false)'
            : '.*';
    const quote = (text: string) => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
    const pattern = `^${quote(node.head.text)}${node.templateSpans.map((sp) => hole(sp.type) + quote(sp.literal.text)).join('')}$`;
    this.host.reporter.report({
      code: 'KF3013',
      severity: 'warning',
      message: `${where} is the template literal type ${truncate(node.getText())}: its schema is \`type: string\`, so the API server takes any string`,
      hint: `to have the API server check the form too, add @Pattern(${JSON.stringify(pattern).replace(/^"|"$/g, "'")})`,
      ...locationOf(node),
    });
  }

  private report(code: string, message: string, node: ts.Node, hint?: string): IRType {
    const at = locationOf(node);
    const site = this.userSites[this.userSites.length - 1];
    if (site && isDependencyFile(at.file)) {
      const dep = at.file.slice(at.file.lastIndexOf('/node_modules/') + 1);
      this.host.reporter.report(
        error(code, `${message} (in ${dep}:${at.line}:${at.column}, a dependency's type this field uses)`, {
          ...locationOf(site),
          hint,
        }),
      );
    } else this.host.reporter.report(error(code, message, { ...at, hint }));
    return { kind: 'error' };
  }

  // -------------------------------------------------------------------------------------------
  // Name resolution

  /** Where an alias (import, re-export, namespace import) leads, when that is a module recognised by name. */
  private externalOf(decl: ts.Declaration | undefined): { module: string; name: string } | undefined {
    if (!decl) return undefined;
    const target = this.host.collector.names.resolveAliasDeclaration(decl);
    if (target?.kind === 'external' && isExternalModule(target.module))
      return { module: target.module, name: target.name };
    return undefined;
  }

  private resolveSymbol(sym: ts.Symbol | undefined): Resolved {
    for (let i = 0; sym && i < 20; i++) {
      if (sym.flags & ts.SymbolFlags.Alias) {
        const ext = this.externalOf(sym.declarations?.[0]);
        if (ext) return { kind: 'external', ...ext };
        const next = this.host.checker.getImmediateAliasedSymbol(sym);
        if (!next || next === sym) return { kind: 'unresolved' };
        sym = next;
        continue;
      }
      const decl = sym.declarations?.[0];
      if (!decl) return { kind: 'unresolved' };
      if (ts.isTypeParameterDeclaration(decl)) return { kind: 'typeParam', decl };
      if (this.host.isLibFile(decl.getSourceFile())) return { kind: 'global', name: sym.name };
      return { kind: 'decl', decl };
    }
    return { kind: 'unresolved' };
  }

  /** Resolves a type name (`Foo`, `k8s.V1Pod`) or a heritage expression. */
  resolveName(name: ts.EntityName | ts.Expression): Resolved {
    // ns.Name where ns is `import * as ns from '<external>'`
    if (ts.isQualifiedName(name) || ts.isPropertyAccessExpression(name)) {
      const left = ts.isQualifiedName(name) ? name.left : name.expression;
      const right = ts.isQualifiedName(name) ? name.right : name.name;
      if (ts.isIdentifier(left)) {
        const ls = this.host.checker.getSymbolAtLocation(left);
        if (ls && ls.flags & ts.SymbolFlags.Alias) {
          const ext = this.externalOf(ls.declarations?.[0]);
          if (ext && ext.name === '*') return { kind: 'external', module: ext.module, name: right.text };
        }
      }
      // m.Name through a barrel's namespace (`import * as m from './markers'`, `export * as m`)
      const via = this.host.collector.names.resolveAccess(name);
      if (
        via &&
        via.rest.length === 0 &&
        via.target.kind === 'external' &&
        isExternalModule(via.target.module) &&
        via.target.name !== '*'
      ) {
        return { kind: 'external', module: via.target.module, name: via.target.name };
      }
      return this.resolveSymbol(this.host.checker.getSymbolAtLocation(right));
    }
    return this.resolveSymbol(this.host.checker.getSymbolAtLocation(name));
  }

  // -------------------------------------------------------------------------------------------
  // Types

  /** A property's annotation: strips a top-level `| undefined` (optional) and parses the rest. */
  parseAnnotation(node: ts.TypeNode, env: Env, where: string): { type: IRType; optional: boolean } {
    if (ts.isUnionTypeNode(node)) {
      const undef = node.types.filter((t) => t.kind === ts.SyntaxKind.UndefinedKeyword);
      if (undef.length) {
        const rest = node.types.filter((t) => t.kind !== ts.SyntaxKind.UndefinedKeyword);
        return { type: this.parseUnion(rest, node, env, where), optional: true };
      }
    }
    return { type: this.parseType(node, env, where), optional: false };
  }

  parseType(node: ts.TypeNode, env: Env, where: string): IRType {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { kind: 'primitive', type: 'string' };
      case ts.SyntaxKind.NumberKeyword:
        this.warnPlainNumber(node, where);
        return { kind: 'primitive', type: 'number' };
      case ts.SyntaxKind.BooleanKeyword:
        return { kind: 'primitive', type: 'boolean' };
      case ts.SyntaxKind.AnyKeyword:
        return { kind: 'unknown', what: 'any', at: locationOf(node) };
      case ts.SyntaxKind.UnknownKeyword:
        return { kind: 'unknown', what: 'unknown', at: locationOf(node) };
      case ts.SyntaxKind.ObjectKeyword:
        return { kind: 'unknown', what: 'object', at: locationOf(node) };
      case ts.SyntaxKind.BigIntKeyword:
        return this.report(
          'KF3005',
          `${where} has type 'bigint', which JSON cannot carry`,
          node,
          "use int64 (from 'kubeforge/markers') or a string",
        );
      case ts.SyntaxKind.SymbolKeyword:
        return this.report('KF3005', `${where} has type 'symbol', which JSON cannot carry`, node, 'use a string');
      case ts.SyntaxKind.NeverKeyword:
      case ts.SyntaxKind.VoidKeyword:
      case ts.SyntaxKind.UndefinedKeyword:
      case ts.SyntaxKind.NullKeyword:
        return this.report(
          'KF3005',
          `${where} has type '${node.getText()}', which has no schema`,
          node,
          'give the field a data type (string, number, a class, ...)',
        );
    }
    if (ts.isParenthesizedTypeNode(node)) return this.parseType(node.type, env, where);
    if (ts.isLiteralTypeNode(node)) return this.parseUnion([node], node, env, where);
    if (ts.isUnionTypeNode(node)) {
      const hasUndefined = node.types.some((t) => t.kind === ts.SyntaxKind.UndefinedKeyword);
      if (hasUndefined) {
        return this.report(
          'KF3006',
          `${where}: '| undefined' is only allowed at the top of a field's type`,
          node,
          'make the field optional with `?` instead',
        );
      }
      return this.parseUnion(node.types, node, env, where);
    }
    if (ts.isArrayTypeNode(node)) return { kind: 'array', items: this.parseType(node.elementType, env, where) };
    if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword)
      return this.parseType(node.type, env, where);
    if (ts.isTupleTypeNode(node))
      return this.report(
        'KF3003',
        `${where} is a tuple (${truncate(node.getText())}); CRD schemas have no tuples`,
        node,
        'use an array (T[]) or a class with named fields',
      );
    if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node))
      return this.report(
        'KF3004',
        `${where} is a function type (${truncate(node.getText())}), which is not data`,
        node,
        'remove the field from the API type, or make it a method',
      );
    if (ts.isTypeLiteralNode(node)) return this.parseMembers(node.members, 'type literal', env, where, node);
    if (ts.isIntersectionTypeNode(node)) return this.parseIntersection(node, env, where);
    if (ts.isTypeReferenceNode(node)) return this.parseReference(node, env, where);
    if (ts.isTemplateLiteralTypeNode(node)) {
      this.warnTemplateLiteral(node, where);
      return { kind: 'primitive', type: 'string' };
    }
    return this.report(
      'KF3007',
      `${where} uses a type construct kubeforge cannot map: ${ts.SyntaxKind[node.kind]} (${truncate(node.getText())})`,
      node,
      'write the type out as a class, interface or type alias of plain members',
    );
  }

  private parseUnion(types: readonly ts.TypeNode[], whole: ts.TypeNode, env: Env, where: string): IRType {
    let nullable = false;
    const parts: IRType[] = [];
    for (const t of types) {
      if (
        t.kind === ts.SyntaxKind.NullKeyword ||
        (ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword)
      ) {
        nullable = true;
        continue;
      }
      if (ts.isLiteralTypeNode(t)) {
        const lit = t.literal;
        if (ts.isStringLiteral(lit) || ts.isNoSubstitutionTemplateLiteral(lit))
          parts.push({ kind: 'enum', type: 'string', values: [lit.text] });
        else if (ts.isNumericLiteral(lit)) parts.push({ kind: 'enum', type: 'number', values: [Number(lit.text)] });
        else if (ts.isPrefixUnaryExpression(lit) && ts.isNumericLiteral(lit.operand))
          parts.push({ kind: 'enum', type: 'number', values: [-Number(lit.operand.text)] });
        else if (lit.kind === ts.SyntaxKind.TrueKeyword || lit.kind === ts.SyntaxKind.FalseKeyword)
          parts.push({ kind: 'enum', type: 'boolean', values: [lit.kind === ts.SyntaxKind.TrueKeyword] });
        else
          return this.report(
            'KF3007',
            `${where}: unsupported literal type ${t.getText()}`,
            t,
            'use string or numeric literals',
          );
        continue;
      }
      parts.push(this.parseType(t, env, where));
    }
    if (parts.some((p) => p.kind === 'error')) return { kind: 'error' };
    let result: IRType;
    if (parts.length === 1 && parts[0].kind !== 'enum') result = parts[0];
    else {
      // A union of literals (possibly through aliases and enums): merge into one enum.
      const resolved = parts.map(irResolve);
      if (resolved.every((p) => p.kind === 'enum' || (p.kind === 'primitive' && p.type === 'boolean'))) {
        const kinds = new Set(
          resolved.map((p) => (p.kind === 'enum' ? (p.type === 'integer' ? 'number' : p.type) : 'boolean')),
        );
        if (kinds.size > 1)
          return this.report(
            'KF3006',
            `${where} mixes literal types (${[...kinds].join(', ')}): ${truncate(whole.getText())}`,
            whole,
            'use literals of one type (all strings or all numbers)',
          );
        const kind = [...kinds][0];
        if (kind === 'boolean') result = { kind: 'primitive', type: 'boolean' };
        else {
          const values: (string | number | boolean)[] = [];
          for (const p of resolved)
            if (p.kind === 'enum') for (const v of p.values) if (!values.includes(v)) values.push(v);
          const type = kind === 'string' ? 'string' : values.every((v) => Number.isInteger(v)) ? 'integer' : 'number';
          result = { kind: 'enum', type, values };
        }
      } else if (parts.length === 0) {
        return this.report(
          'KF3005',
          `${where} has type 'null', which has no schema`,
          whole,
          'give the field a data type and add `| null` to it',
        );
      } else {
        const names = parts.map((p) => (p.kind === 'named' ? p.name : describe(irResolve(p))));
        const objects = parts.filter((p) => ['object', 'map', 'k8s'].includes(irResolve(p).kind)).length;
        const prims = new Set(names);
        const hint =
          prims.has('string') && (prims.has('number') || prims.has('integer'))
            ? "use IntOrString (from 'kubeforge/markers') for 'number | string'"
            : objects > 1
              ? 'structural schemas cannot express a union of object types: merge them into one class with optional fields (and @ExactlyOneOf to pick one)'
              : 'use one type, or a class with one optional field per alternative';
        return this.report(
          'KF3006',
          `${where} is a union of ${names.join(' | ')} (${truncate(whole.getText())}), which a structural schema cannot express`,
          whole,
          hint,
        );
      }
    }
    return nullable ? { kind: 'nullable', target: result } : result;
  }

  private parseIntersection(node: ts.IntersectionTypeNode, env: Env, where: string): IRType {
    const parts = node.types.map((t) => this.parseType(t, env, where));
    if (parts.some((p) => p.kind === 'error')) return { kind: 'error' };
    const props: IRProperty[] = [];
    const primitives = parts.filter((p) => irResolve(p).kind !== 'object');
    if (
      primitives.length === 1 &&
      parts.length > 1 &&
      parts.every(
        (p) =>
          p === primitives[0] ||
          (irResolve(p).kind === 'object' && (irResolve(p) as { properties: IRProperty[] }).properties.length <= 1),
      )
    ) {
      // Branded primitive (`string & { __brand: 'X' }`): the primitive.
      return primitives[0];
    }
    const embedded: IRType[] = [];
    for (const p of parts) {
      const r = irResolve(p);
      if (r.kind !== 'object')
        return this.report(
          'KF3006',
          `${where} intersects a non-object type (${describe(r)}) in ${truncate(node.getText())}`,
          node,
          'intersect only classes, interfaces and type literals',
        );
      for (const prop of r.properties) {
        const i = props.findIndex((x) => x.name === prop.name);
        if (i < 0) {
          props.push(prop);
          continue;
        }
        // Both members declare it: their schemas are folded as controller-gen folds the same
        // field of two embedded structs (the formatter does it; see IRProperty.shadowed).
        const [before] = props.splice(i, 1);
        const { shadowed = [], ...first } = before;
        props.push({ ...prop, shadowed: [...shadowed, first, ...(prop.shadowed ?? [])] });
      }
      // A member's type-level markers stay with the merged object (Go's embedded struct).
      embedded.push(...embeddedParts(p));
    }
    return embedded.length ? { kind: 'object', properties: props, embedded } : { kind: 'object', properties: props };
  }

  private parseReference(node: ts.TypeReferenceNode, env: Env, where: string): IRType {
    const res = this.resolveName(node.typeName);
    const args = node.typeArguments ?? [];
    const name = node.typeName.getText();
    switch (res.kind) {
      case 'typeParam': {
        const b = env.get(res.decl);
        if (!b)
          return this.report(
            'KF3010',
            `${where}: type parameter ${name} has no type argument here`,
            node,
            'instantiate the generic type with concrete type arguments',
          );
        return this.parseType(b.node, b.env, where);
      }
      case 'external':
        return this.parseExternal(res.module, res.name, node, where);
      case 'global':
        return this.parseGlobal(res.name, args, node, env, where);
      case 'unresolved':
        return this.report(
          'KF3010',
          `${where}: cannot resolve type '${name}'`,
          node,
          'import the type, or check its spelling',
        );
      case 'decl':
        return this.parseDeclaration(res.decl, args, node, env, where);
    }
  }

  private parseExternal(module: string, name: string, node: ts.TypeReferenceNode, where: string): IRType {
    if (module === MARKERS_MODULE) {
      switch (name) {
        case 'int':
          // Go's int: controller-gen writes `type: integer` without a format.
          return { kind: 'primitive', type: 'integer' };
        case 'int32':
        case 'int64':
          return { kind: 'primitive', type: 'integer', format: name };
        case 'float64':
          return { kind: 'primitive', type: 'number' };
        case 'Quantity':
          return { kind: 'builtin', name: 'Quantity' };
        case 'IntOrString':
          return { kind: 'builtin', name: 'IntOrString' };
        case 'Duration':
          return { kind: 'builtin', name: 'Duration' };
        case 'Time':
        case 'MicroTime':
          return { kind: 'builtin', name: 'DateTime' };
      }
      return this.report(
        'KF3010',
        `${where}: '${name}' from kubeforge/markers is not a type with a schema`,
        node,
        'use int, int32, int64, float64, Quantity, IntOrString, Duration, Time or MicroTime',
      );
    }
    if (name === 'V1ObjectMeta') return { kind: 'builtin', name: 'ObjectMeta' };
    if (name === 'IntOrString') return { kind: 'builtin', name: 'IntOrString' };
    return { kind: 'k8s', name, at: locationOf(node) };
  }

  private parseGlobal(
    name: string,
    args: readonly ts.TypeNode[],
    node: ts.TypeReferenceNode,
    env: Env,
    where: string,
  ): IRType {
    switch (name) {
      case 'Array':
      case 'ReadonlyArray':
        if (args.length !== 1) return this.report('KF3007', `${where}: ${name} needs one type argument`, node);
        return { kind: 'array', items: this.parseType(args[0], env, where) };
      case 'Record': {
        if (args.length !== 2) return this.report('KF3007', `${where}: Record needs two type arguments`, node);
        const key = irResolve(this.parseType(args[0], env, where));
        if (!(key.kind === 'primitive' && key.type === 'string'))
          return this.report(
            'KF3007',
            `${where}: Record keys must be string, found ${truncate(args[0].getText())}`,
            args[0],
            'use Record<string, T> (or a class with one field per key)',
          );
        return { kind: 'map', values: this.parseType(args[1], env, where) };
      }
      case 'Partial':
      case 'Required':
      case 'Pick':
      case 'Omit':
        return this.parseUtility(name, args, node, env, where);
      case 'Readonly':
      case 'NonNullable':
        if (args.length !== 1) return this.report('KF3007', `${where}: ${name} needs one type argument`, node);
        return this.parseType(args[0], env, where);
      case 'Date':
        return { kind: 'builtin', name: 'DateTime' };
      case 'Uint8Array':
        return { kind: 'builtin', name: 'Bytes' };
      case 'Map':
      case 'ReadonlyMap':
        return this.report('KF3007', `${where} is a ${name}, which JSON cannot carry`, node, 'use Record<string, T>');
      case 'Set':
      case 'ReadonlySet':
        return this.report(
          'KF3007',
          `${where} is a ${name}, which JSON cannot carry`,
          node,
          "use T[] with @ListType('set')",
        );
      case 'String':
      case 'Number':
      case 'Boolean':
        if (name === 'Number') this.warnPlainNumber(node, where);
        return { kind: 'primitive', type: name.toLowerCase() as 'string' | 'number' | 'boolean' };
      case 'Object':
        return { kind: 'unknown', what: 'object', at: locationOf(node) };
    }
    return this.report(
      'KF3007',
      `${where} uses ${name}<...>, which kubeforge cannot map`,
      node,
      'write the resulting type out as a class or interface',
    );
  }

  /** Partial / Required / Pick / Omit over an object type: the resulting members. */
  private parseUtility(
    name: string,
    args: readonly ts.TypeNode[],
    node: ts.TypeReferenceNode,
    env: Env,
    where: string,
  ): IRType {
    const arity = name === 'Pick' || name === 'Omit' ? 2 : 1;
    if (args.length !== arity)
      return this.report('KF3007', `${where}: ${name} needs ${arity} type argument${arity > 1 ? 's' : ''}`, node);
    const base = irResolve(this.parseType(args[0], env, where));
    if (base.kind === 'error') return base;
    if (base.kind !== 'object')
      return this.report(
        'KF3007',
        `${where}: ${name}<...> applies to object types, found ${describe(base)}`,
        args[0],
        'apply it to a class, interface or type literal',
      );
    let keys: (string | number | boolean)[] | undefined;
    if (arity === 2) {
      const k = irResolve(this.parseType(args[1], env, where));
      if (k.kind !== 'enum' || k.type !== 'string')
        return this.report(
          'KF3007',
          `${where}: the keys of ${name} must be string literals ('a' | 'b')`,
          args[1],
          'write the field names as a union of string literals',
        );
      keys = k.values;
      const unknownKeys = keys.filter((x) => !base.properties.some((p) => p.name === x));
      if (unknownKeys.length)
        return this.report(
          'KF3007',
          `${where}: ${name} names ${unknownKeys.map((x) => `'${String(x)}'`).join(', ')}, not a field of the type`,
          args[1],
          `fields: ${base.properties.map((p) => p.name).join(', ')}`,
        );
    }
    let props = base.properties;
    const named = keys ?? [];
    if (name === 'Pick') props = props.filter((p) => named.includes(p.name));
    if (name === 'Omit') props = props.filter((p) => !named.includes(p.name));
    if (name === 'Partial')
      props = props.map((p) => ({ ...p, optional: true, markers: p.markers.filter((m) => m.name !== 'Required') }));
    if (name === 'Required')
      props = props.map((p) => ({
        ...p,
        optional: false,
        optionalByDefault: false,
        markers: p.markers.filter((m) => m.name !== 'Optional'),
      }));
    return { kind: 'object', properties: props };
  }

  private bind(
    params: readonly ts.TypeParameterDeclaration[] | undefined,
    args: readonly ts.TypeNode[],
    useEnv: Env,
    node: ts.Node,
    name: string,
  ): Env | undefined {
    if (!params || params.length === 0) return EMPTY;
    const m = new Map<ts.TypeParameterDeclaration, Binding>();
    for (let i = 0; i < params.length; i++) {
      const p = params[i];
      if (args[i]) m.set(p, { node: args[i], env: useEnv });
      else if (p.default) m.set(p, { node: p.default, env: m });
      else {
        this.report(
          'KF3010',
          `generic type ${name} is used without its type argument ${p.name.text}`,
          node,
          `write ${name}<...> with concrete type arguments`,
        );
        return undefined;
      }
    }
    return m;
  }

  private placeName(decl: NamedDecl): string {
    const kind = ts.isClassDeclaration(decl)
      ? 'class'
      : ts.isInterfaceDeclaration(decl)
        ? 'interface'
        : ts.isEnumDeclaration(decl)
          ? 'enum'
          : 'type';
    return `${kind} ${decl.name?.text ?? '(anonymous)'}`;
  }

  parseDeclaration(decl: ts.Declaration, args: readonly ts.TypeNode[], use: ts.Node, env: Env, where: string): IRType {
    if (ts.isEnumMember(decl)) {
      const v = this.host.checker.getConstantValue(decl);
      if (v === undefined)
        return this.report('KF3007', `${where}: enum member ${decl.name.getText()} has no constant value`, use);
      return typeof v === 'string'
        ? { kind: 'enum', type: 'string', values: [v] }
        : { kind: 'enum', type: Number.isInteger(v) ? 'integer' : 'number', values: [v] };
    }
    if (
      !(
        ts.isClassDeclaration(decl) ||
        ts.isInterfaceDeclaration(decl) ||
        ts.isTypeAliasDeclaration(decl) ||
        ts.isEnumDeclaration(decl)
      )
    )
      return this.report(
        'KF3007',
        `${where}: '${use.getText()}' is not a class, interface, type alias or enum`,
        use,
        'refer to a type declaration',
      );
    const name = decl.name?.text ?? '(anonymous)';
    const generic = (decl as { typeParameters?: ts.NodeArray<ts.TypeParameterDeclaration> }).typeParameters;
    const cacheable = !generic || generic.length === 0;
    if (cacheable) {
      const hit = this.cache.get(decl);
      if (hit) return hit;
    }
    if (this.stack.includes(decl)) {
      const chain = this.stack
        .filter(
          (n): n is NamedDecl =>
            ts.isClassDeclaration(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n),
        )
        .map((n) => n.name?.text)
        .slice(this.stack.indexOf(decl));
      return this.report(
        'KF3002',
        `${where} makes type ${name} recursive (${[...chain, name].join(' -> ')}); CRD schemas cannot be recursive`,
        use,
        'break the cycle: bound the nesting with separate types, or keep the nested value as free-form data (@PreserveUnknownFields() on an `unknown` field)',
      );
    }
    const newEnv = this.bind(generic, args, env, use, name);
    if (!newEnv) return { kind: 'error' };
    this.stack.push(decl);
    try {
      const result = this.parseNamed(decl, newEnv);
      if (cacheable) this.cache.set(decl, result);
      return result;
    } finally {
      this.stack.pop();
    }
  }

  private parseNamed(decl: NamedDecl, env: Env): IRType {
    const place = this.placeName(decl);
    const name = decl.name?.text ?? '(anonymous)';
    const collector = this.host.collector;
    let markers: MarkerValue[];
    let description: string | undefined;
    let target: IRType;
    if (ts.isClassDeclaration(decl)) {
      description = collector.jsDoc(decl, undefined, place).description;
      markers = collector.classMarkers(decl);
      target = this.parseClassMembers(decl, env);
    } else {
      const doc = collector.jsDoc(decl, ['type'], place);
      description = doc.description;
      markers = doc.markers;
      if (ts.isInterfaceDeclaration(decl)) {
        // Declaration merging: every `interface X` of the same symbol contributes members.
        const sym = this.host.checker.getSymbolAtLocation(decl.name);
        const parts = (sym?.declarations ?? [decl]).filter(ts.isInterfaceDeclaration);
        target = { kind: 'object', properties: [] };
        for (const part of parts.length ? parts : [decl]) {
          target = mergeObjects(
            target,
            mergeObjects(this.heritageProperties(part, env), this.parseMembers(part.members, place, env, name, part)),
          );
        }
      } else if (ts.isTypeAliasDeclaration(decl)) {
        this.noteTyped(decl.type, markers);
        target = this.parseType(decl.type, env, `type ${name}`);
      } else target = this.parseEnum(decl);
    }
    return { kind: 'named', name, target, markers, description };
  }

  private parseEnum(decl: ts.EnumDeclaration): IRType {
    const values: (string | number)[] = [];
    for (const m of decl.members) {
      const v = this.host.checker.getConstantValue(m);
      if (v === undefined)
        return this.report(
          'KF3007',
          `enum ${decl.name.text}: member ${m.name.getText()} has no constant value`,
          m,
          'give every member a literal value',
        );
      values.push(v);
    }
    if (values.every((v) => typeof v === 'string')) return { kind: 'enum', type: 'string', values };
    if (values.every((v) => typeof v === 'number'))
      return { kind: 'enum', type: values.every((v) => Number.isInteger(v)) ? 'integer' : 'number', values };
    return this.report(
      'KF3006',
      `enum ${decl.name.text} mixes string and numeric members`,
      decl,
      'use members of one type',
    );
  }

  private heritageProperties(decl: ts.ClassDeclaration | ts.InterfaceDeclaration, env: Env): IRType | undefined {
    let merged: IRType | undefined;
    for (const clause of decl.heritageClauses ?? []) {
      if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
      for (const t of clause.types) {
        const res = this.resolveName(t.expression);
        const where = `${this.placeName(decl)} (extends ${truncate(t.getText())})`;
        let base: IRType;
        if (res.kind === 'decl') base = this.parseDeclaration(res.decl, t.typeArguments ?? [], t, env, where);
        else if (res.kind === 'external')
          base = this.report(
            'KF3007',
            `${where}: cannot extend ${res.name} from ${res.module}`,
            t,
            'declare the fields in the class itself',
          );
        else base = this.report('KF3010', `${where}: cannot resolve the base type`, t, 'import the base type');
        const r = irResolve(base);
        if (r.kind === 'error') continue;
        if (r.kind !== 'object') {
          this.report('KF3006', `${where}: the base type is not an object type`, t);
          continue;
        }
        // The base's type-level markers stay with the class (as a Go embedded struct's).
        const parts = embeddedParts(base);
        const own: IRType = parts.length
          ? { kind: 'object', properties: r.properties, embedded: parts }
          : { kind: 'object', properties: r.properties };
        merged = merged ? mergeObjects(merged, own) : own;
      }
    }
    return merged;
  }

  /** Properties of a class (heritage first); methods, statics and private members are not data. */
  parseClassMembers(decl: ts.ClassDeclaration, env: Env): IRType {
    const className = decl.name?.text ?? '(anonymous class)';
    const base = this.heritageProperties(decl, env);
    const props: IRProperty[] = [];
    const optionalByDefault = this.host.optionalByDefault(decl.getSourceFile().fileName);
    for (const member of decl.members) {
      if (ts.isPropertyDeclaration(member)) {
        const mods = ts.getCombinedModifierFlags(member);
        if (mods & ts.ModifierFlags.Static) continue;
        if (mods & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected) || ts.isPrivateIdentifier(member.name)) {
          // Left out of the schema, as Go's unexported fields; said, because a TypeScript
          // `private` field is still in the JSON, and the API server would prune it.
          const how = ts.isPrivateIdentifier(member.name)
            ? 'an ECMAScript private field'
            : mods & ts.ModifierFlags.Private
              ? 'private'
              : 'protected';
          this.host.reporter.report({
            code: 'KF2017',
            severity: 'warning',
            message: `field ${member.name.getText()} of ${className} is ${how}, so it is left out of the CRD schema: the API server prunes it from every object it stores`,
            hint: `if it is data of the resource, make it public; if not, move it out of the API type (API types hold data only)`,
            ...locationOf(member.name),
          });
          continue;
        }
        const p = this.parseProperty(member, className, env, optionalByDefault, true);
        if (p) props.push(p);
      } else if (ts.isIndexSignatureDeclaration(member)) {
        this.report(
          'KF3007',
          `class ${className} has an index signature; classes describe fixed fields`,
          member,
          'use a field of type Record<string, T>',
        );
      } else if (ts.isConstructorDeclaration(member)) {
        // Parameter properties (`constructor(public name: string)`) are fields too.
        for (const param of member.parameters) {
          const mods = ts.getCombinedModifierFlags(param as unknown as ts.Declaration);
          if (
            !(mods & (ts.ModifierFlags.Public | ts.ModifierFlags.Readonly)) ||
            mods & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)
          )
            continue;
          if (!ts.isIdentifier(param.name)) continue;
          const place = `field "${param.name.text}" of ${className}`;
          const doc = this.host.collector.jsDoc(param, undefined, place);
          let type: IRType;
          let optional = !!param.questionToken;
          if (!param.type)
            type = this.report(
              'KF3008',
              `${place} has no type annotation`,
              param.name,
              `write its type: ${param.name.text}: string (or whatever it holds)`,
            );
          else {
            const a = this.parseAnnotation(param.type, env, place);
            type = a.type;
            optional ||= a.optional || !!param.initializer;
          }
          props.push({
            name: param.name.text,
            type,
            optional,
            optionalByDefault,
            markers: [],
            description: doc.description,
            owner: className,
            at: locationOf(param.name),
          });
        }
      } else {
        // Methods and accessors: not data. Markers on them are misplaced.
        const kind = ts.isMethodDeclaration(member)
          ? 'method'
          : ts.isConstructorDeclaration(member)
            ? 'constructor'
            : 'accessor';
        const label = member.name ? `${kind} ${className}.${member.name.getText()}` : `${kind} of ${className}`;
        this.host.collector.decoratorMarkers(member, [], label);
        // Objects from the client, the cache and webhooks are plain JSON, never instances of the
        // class: a method (Go's GetConditions()) would type-check and then be undefined at run time.
        const isStatic = ts.getCombinedModifierFlags(member as ts.Declaration) & ts.ModifierFlags.Static;
        if (
          (ts.isMethodDeclaration(member) ||
            ts.isGetAccessorDeclaration(member) ||
            ts.isSetAccessorDeclaration(member)) &&
          !isStatic &&
          member.name
        ) {
          const name = member.name.getText();
          this.report(
            'KF3004',
            `class ${className} declares ${kind} ${name}, but the objects kubeforge/runtime hands out (client, cache, webhooks) are plain JSON, not instances of ${className}: ${name} would be undefined at run time`,
            member.name,
            `API types hold data only: move it to a function that takes the object, e.g. export function ${name}(obj: ${className}) { ... } (Go's methods on API types port to functions)`,
          );
        }
      }
    }
    return mergeObjects(base, { kind: 'object', properties: props });
  }

  private parseMembers(
    members: ts.NodeArray<ts.TypeElement>,
    place: string,
    env: Env,
    owner: string,
    node: ts.Node,
  ): IRType {
    const props: IRProperty[] = [];
    let index: ts.IndexSignatureDeclaration | undefined;
    const optionalByDefault = this.host.optionalByDefault(node.getSourceFile().fileName);
    for (const m of members) {
      if (ts.isPropertySignature(m)) {
        const p = this.parseProperty(m, owner, env, optionalByDefault, false);
        if (p) props.push(p);
      } else if (ts.isIndexSignatureDeclaration(m)) index = m;
      else
        this.report(
          'KF3004',
          `${place} declares ${ts.isMethodSignature(m) ? `method ${m.name.getText()}` : 'a call or construct signature'}, which is not data`,
          m,
          'API types hold data only: remove it',
        );
    }
    if (index) {
      const keyType = index.parameters[0]?.type;
      if (!keyType || keyType.kind !== ts.SyntaxKind.StringKeyword)
        return this.report(
          'KF3007',
          `${place}: index signatures must have string keys`,
          index,
          'write { [key: string]: T }',
        );
      if (props.length)
        return this.report(
          'KF3007',
          `${place} mixes named members with an index signature; a structural schema cannot have both`,
          index,
          'move the named members into their own type',
        );
      if (!index.type) return this.report('KF3008', `${place}: the index signature has no value type`, index);
      return { kind: 'map', values: this.parseType(index.type, env, `${place} [key: string]`) };
    }
    return { kind: 'object', properties: props };
  }

  private parseProperty(
    member: ts.PropertyDeclaration | ts.PropertySignature,
    owner: string,
    env: Env,
    optionalByDefault: boolean,
    isClass: boolean,
  ): IRProperty | undefined {
    const collector = this.host.collector;
    const n = member.name;
    let name: string;
    if (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n))
      name = n.text;
    else {
      this.report(
        'KF3011',
        `${owner} has a computed property name ${n.getText()}`,
        n,
        'use a plain identifier or string as the field name',
      );
      return undefined;
    }
    const place = `field "${name}" of ${owner}`;
    const doc = collector.jsDoc(member, isClass ? undefined : ['field'], place);
    const markers = isClass ? collector.decoratorMarkers(member, ['field'], place) : doc.markers;
    const hasSchemaless = markers.some((m) => m.name === 'Schemaless');
    if (member.type && markers.some((m) => m.name === 'Pattern')) this.patterned.add(member.type);
    this.noteTyped(member.type, markers);
    if (
      ts.isPropertyDeclaration(member) &&
      member.type &&
      member.initializer &&
      !TYPE_META.has(name) &&
      !isDependencyFile(member.getSourceFile().fileName)
    ) {
      // An initializer fills objects the operator makes with `new`; objects from the API server
      // (client, cache, webhooks) are plain JSON it never touched, and the CRD gets no default.
      // (apiVersion and kind, which the scaffold initializes for `new`, are not schema fields.)
      const text = member.initializer.getText();
      this.host.reporter.report({
        code: 'KF2018',
        severity: 'warning',
        message: `${place} has the initializer ${truncate(text)}, which is not a CRD default: it fills only objects made with \`new\` in your code, not those the API server stores or sends`,
        hint: markers.some((m) => m.name === 'Default')
          ? 'remove the initializer: @Default already gives the default'
          : `to have the API server default it, write @Default(${truncate(text)}) and remove the initializer`,
        ...locationOf(member.initializer),
      });
    }
    let type: IRType;
    let optional = !!member.questionToken;
    if (hasSchemaless) type = { kind: 'unknown', what: 'unknown', at: locationOf(member) };
    else if (!member.type) {
      type = this.report(
        'KF3008',
        `${place} has no type annotation`,
        member.name,
        `write its type: ${name}${member.questionToken ? '?' : '!'}: string (or whatever it holds)`,
      );
    } else {
      const user = !isDependencyFile(member.getSourceFile().fileName);
      if (user) this.userSites.push(member.type);
      let a: { type: IRType; optional: boolean };
      try {
        a = this.parseAnnotation(member.type, env, place);
      } finally {
        if (user) this.userSites.pop();
      }
      type = a.type;
      optional ||= a.optional;
    }
    return {
      name,
      type,
      optional,
      optionalByDefault,
      markers,
      description: doc.description,
      owner,
      at: locationOf(member.name),
    };
  }
}

/** A Kind's type-meta fields: described by the CRD whatever the class says (an initializer there is for `new`). */
const TYPE_META = new Set(['apiVersion', 'kind']);

/** A file of an installed package (its problems are the user's field's to fix, not the file's). */
export function isDependencyFile(file: string): boolean {
  return file.includes('/node_modules/');
}

function mergeObjects(a: IRType | undefined, b: IRType): IRType {
  if (!a) return b;
  const ra = irResolve(a);
  const rb = irResolve(b);
  if (ra.kind !== 'object' || rb.kind !== 'object') return b;
  const props = [...ra.properties];
  for (const p of rb.properties) {
    const i = props.findIndex((x) => x.name === p.name);
    if (i >= 0) props.splice(i, 1);
    props.push(p);
  }
  const embedded = [...(ra.embedded ?? []), ...(rb.embedded ?? [])];
  return embedded.length ? { kind: 'object', properties: props, embedded } : { kind: 'object', properties: props };
}

function describe(t: IRType): string {
  switch (t.kind) {
    case 'primitive':
      return t.type;
    case 'enum':
      return `${t.type} literals`;
    case 'object':
      return 'an object type';
    case 'map':
      return 'a record';
    case 'array':
      return 'an array';
    case 'k8s':
      return t.name;
    case 'builtin':
      return t.name;
    case 'unknown':
      return t.what;
    default:
      return t.kind;
  }
}

function truncate(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 60 ? `${one.slice(0, 57)}...` : one;
}
