/**
 * Code migrations `alpha update` applies to a project's own TypeScript when it brings a kubeforge
 * whose API moved or renamed names (issue #44: upgrades that carry the user's code): imports of
 * names that left the `kubeforge/runtime` root are moved to the subpath that exports them now,
 * type names that were renamed are imported under their new name (aliased to the old one, so no
 * other line changes), options under old names are renamed in the object literals given to
 * `newManager(...)` and `.withOptions(...)`, and a Result's removed `requeueAfterMs` becomes
 * `requeueAfterSeconds`. Each change is listed in the update's report. Text edits
 * located by the TypeScript parser: formatting and comments elsewhere stay as they are.
 */
import { ts } from '../util/typescript.cjs';

/**
 * Names that left the `kubeforge/runtime` root for a subpath (kubeforge 0.1.0's curated root,
 * commit 7a62246): name -> the module that exports it now. `test/scaffolds/codemods.test.ts` holds
 * every entry to the API surface: the target exports the name, the root does not.
 */
export const RUNTIME_MOVES: Readonly<Record<string, string>> = {
  APIGroup: 'kubeforge/runtime/client',
  APIResource: 'kubeforge/runtime/client',
  AddOptions: 'kubeforge/runtime/controller',
  AdmissionHandler: 'kubeforge/runtime/webhook',
  AdmissionRequest: 'kubeforge/runtime/webhook',
  AdmissionResponse: 'kubeforge/runtime/webhook',
  AdmissionResult: 'kubeforge/runtime/webhook',
  AdmissionStatus: 'kubeforge/runtime/webhook',
  AdmissionWebhook: 'kubeforge/runtime/webhook',
  AlreadyExistsError: 'kubeforge/runtime/client',
  AlreadyOwnedError: 'kubeforge/runtime/util',
  AnnotationChangedPredicate: 'kubeforge/runtime/controller',
  AnyConversion: 'kubeforge/runtime/webhook',
  Apply: 'kubeforge/runtime/client',
  ApplyConfiguration: 'kubeforge/runtime/client',
  ApplyOptions: 'kubeforge/runtime/client',
  BucketRateLimiter: 'kubeforge/runtime/controller',
  Builder: 'kubeforge/runtime/controller',
  BuilderError: 'kubeforge/runtime/controller',
  Cache: 'kubeforge/runtime/cache',
  CacheByObject: 'kubeforge/runtime/cache',
  CacheNotStartedError: 'kubeforge/runtime/cache',
  CacheOptions: 'kubeforge/runtime/cache',
  CacheSyncTimeoutError: 'kubeforge/runtime/cache',
  ChannelSource: 'kubeforge/runtime/controller',
  Checker: 'kubeforge/runtime/manager',
  ClientOptions: 'kubeforge/runtime/client',
  Clock: 'kubeforge/runtime/controller',
  Condition: 'kubeforge/runtime/util',
  ConditionStatus: 'kubeforge/runtime/util',
  ConfigError: 'kubeforge/runtime/manager',
  ConflictError: 'kubeforge/runtime/client',
  Controller: 'kubeforge/runtime/controller',
  ControllerOptions: 'kubeforge/runtime/controller',
  CreateEvent: 'kubeforge/runtime/controller',
  DeepPartial: 'kubeforge/runtime/client',
  DeleteEvent: 'kubeforge/runtime/controller',
  DeleteOptions: 'kubeforge/runtime/client',
  DiscoveryClient: 'kubeforge/runtime/client',
  EnqueueForOwnerOptions: 'kubeforge/runtime/controller',
  EventHandler: 'kubeforge/runtime/controller',
  EventSink: 'kubeforge/runtime/controller',
  EventType: 'kubeforge/runtime/manager',
  FakeClock: 'kubeforge/runtime/controller',
  FieldErrorType: 'kubeforge/runtime/webhook',
  FieldValidation: 'kubeforge/runtime/client',
  ForOptions: 'kubeforge/runtime/controller',
  GenerationChangedPredicate: 'kubeforge/runtime/controller',
  GenericEvent: 'kubeforge/runtime/controller',
  GetConfigOptions: 'kubeforge/runtime/manager',
  GetOptions: 'kubeforge/runtime/client',
  GracefulShutdownTimeoutError: 'kubeforge/runtime/manager',
  GroupVersionKind: 'kubeforge/runtime/client',
  HandlerRegistration: 'kubeforge/runtime/cache',
  IndexExtractor: 'kubeforge/runtime/cache',
  Indexer: 'kubeforge/runtime/cache',
  Informer: 'kubeforge/runtime/cache',
  InformerCache: 'kubeforge/runtime/cache',
  InformerStats: 'kubeforge/runtime/cache',
  ItemExponentialFailureRateLimiter: 'kubeforge/runtime/controller',
  ItemFastSlowRateLimiter: 'kubeforge/runtime/controller',
  JSONPatchOperation: 'kubeforge/runtime/client',
  LOW_PRIORITY: 'kubeforge/runtime/controller',
  LabelChangedPredicate: 'kubeforge/runtime/controller',
  LeaderElectionError: 'kubeforge/runtime/manager',
  LeaderElectionLostError: 'kubeforge/runtime/manager',
  Leadership: 'kubeforge/runtime/manager',
  LeadershipLostError: 'kubeforge/runtime/client',
  ListOptions: 'kubeforge/runtime/client',
  LoggerOptionsError: 'kubeforge/runtime/manager',
  ManagerCacheOptions: 'kubeforge/runtime/manager',
  ManagerClientOptions: 'kubeforge/runtime/manager',
  ManagerOptions: 'kubeforge/runtime/manager',
  MapFunc: 'kubeforge/runtime/controller',
  MaxOfRateLimiter: 'kubeforge/runtime/controller',
  MetadataOnlyType: 'kubeforge/runtime/client',
  MetricsServerOptions: 'kubeforge/runtime/manager',
  MissingIndexError: 'kubeforge/runtime/cache',
  MultiNamespaceInformer: 'kubeforge/runtime/cache',
  MutateFn: 'kubeforge/runtime/util',
  NamespaceNotWatchedError: 'kubeforge/runtime/cache',
  NoKindMatchError: 'kubeforge/runtime/client',
  NotFoundError: 'kubeforge/runtime/client',
  ObjectKey: 'kubeforge/runtime/client',
  ObjectList: 'kubeforge/runtime/client',
  ObjectType: 'kubeforge/runtime/client',
  OperationResult: 'kubeforge/runtime/util',
  OwnerReferenceOptions: 'kubeforge/runtime/util',
  OwnsOptions: 'kubeforge/runtime/controller',
  PartialObjectMetadata: 'kubeforge/runtime/client',
  Patch: 'kubeforge/runtime/client',
  PatchOptions: 'kubeforge/runtime/client',
  Predicate: 'kubeforge/runtime/controller',
  RESTMapper: 'kubeforge/runtime/client',
  RateLimiter: 'kubeforge/runtime/controller',
  Reader: 'kubeforge/runtime/client',
  ReconcileFunc: 'kubeforge/runtime/controller',
  Reconciler: 'kubeforge/runtime/controller',
  ReconcilerObject: 'kubeforge/runtime/controller',
  ReconciliationTimeoutError: 'kubeforge/runtime/controller',
  RequestQueue: 'kubeforge/runtime/controller',
  ResourceEventHandler: 'kubeforge/runtime/cache',
  ResourceInfo: 'kubeforge/runtime/client',
  ResourceVersionChangedPredicate: 'kubeforge/runtime/controller',
  Runnable: 'kubeforge/runtime/manager',
  ServerVersion: 'kubeforge/runtime/client',
  SharedInformer: 'kubeforge/runtime/cache',
  Source: 'kubeforge/runtime/controller',
  Status: 'kubeforge/runtime/client',
  StatusError: 'kubeforge/runtime/client',
  StatusWriter: 'kubeforge/runtime/client',
  TypeRef: 'kubeforge/runtime/client',
  UpdateEvent: 'kubeforge/runtime/controller',
  WatchEventType: 'kubeforge/runtime/cache',
  WatchHandle: 'kubeforge/runtime/controller',
  WatchesOptions: 'kubeforge/runtime/controller',
  WebhookBuilder: 'kubeforge/runtime/webhook',
  WebhookHandler: 'kubeforge/runtime/webhook',
  WebhookHandlerContext: 'kubeforge/runtime/webhook',
  WebhookServer: 'kubeforge/runtime/webhook',
  WebhookServerOptions: 'kubeforge/runtime/webhook',
  WriteOptions: 'kubeforge/runtime/client',
  Writer: 'kubeforge/runtime/client',
  ZapOptions: 'kubeforge/runtime/manager',
  andPredicates: 'kubeforge/runtime/controller',
  apiVersionOf: 'kubeforge/runtime/client',
  createMergePatch: 'kubeforge/runtime/client',
  createOrPatch: 'kubeforge/runtime/util',
  createOrUpdate: 'kubeforge/runtime/util',
  defaultControllerRateLimiter: 'kubeforge/runtime/controller',
  denied: 'kubeforge/runtime/webhook',
  enqueueRequestForObject: 'kubeforge/runtime/controller',
  enqueueRequestForOwner: 'kubeforge/runtime/controller',
  enqueueRequestsFromMapFunc: 'kubeforge/runtime/controller',
  errored: 'kubeforge/runtime/webhook',
  extractApplyConfiguration: 'kubeforge/runtime/client',
  handlerFuncs: 'kubeforge/runtime/controller',
  hasOwnerReference: 'kubeforge/runtime/util',
  ignoreNotFound: 'kubeforge/runtime/client',
  ignoreOwnWrites: 'kubeforge/runtime/controller',
  isBadRequest: 'kubeforge/runtime/client',
  isConflict: 'kubeforge/runtime/client',
  isForbidden: 'kubeforge/runtime/client',
  isGone: 'kubeforge/runtime/client',
  isInvalid: 'kubeforge/runtime/client',
  isMetadataOnly: 'kubeforge/runtime/client',
  isStatusConditionFalse: 'kubeforge/runtime/util',
  isStatusConditionPresentAndEqual: 'kubeforge/runtime/util',
  isStatusConditionTrue: 'kubeforge/runtime/util',
  isTerminalError: 'kubeforge/runtime/controller',
  jsonPatch: 'kubeforge/runtime/client',
  kindSource: 'kubeforge/runtime/controller',
  labelSelectorPredicate: 'kubeforge/runtime/controller',
  mergeFrom: 'kubeforge/runtime/client',
  mergePatch: 'kubeforge/runtime/client',
  metadataOnly: 'kubeforge/runtime/client',
  newCache: 'kubeforge/runtime/cache',
  newPredicateFuncs: 'kubeforge/runtime/controller',
  notPredicate: 'kubeforge/runtime/controller',
  orPredicates: 'kubeforge/runtime/controller',
  predicateFuncs: 'kubeforge/runtime/controller',
  reasonOf: 'kubeforge/runtime/client',
  removeOwnerReference: 'kubeforge/runtime/util',
  removeStatusCondition: 'kubeforge/runtime/util',
  setOwnerReference: 'kubeforge/runtime/util',
  splitAPIVersion: 'kubeforge/runtime/client',
  strategicMergePatch: 'kubeforge/runtime/client',
  withCustomDefaulter: 'kubeforge/runtime/webhook',
  withCustomValidator: 'kubeforge/runtime/webhook',
  zapEncoder: 'kubeforge/runtime/manager',
  zapLevel: 'kubeforge/runtime/manager',
};

/** Type names that were renamed (imported under the new name, aliased to the old one). */
export const RUNTIME_RENAMES: Readonly<Record<string, { name: string; module: string }>> = {
  ControllerManagerLike: { name: 'Manager', module: 'kubeforge/runtime' },
  ManagerContracts: { name: 'Manager', module: 'kubeforge/runtime' },
};

/**
 * Options renamed without moving (the runtime's own rename tables, MANAGER_RENAMES and
 * CONTROLLER_RENAMES, less the ones that moved into a nested object, which the runtime's error
 * names for a change by hand). The codemods test holds them to those tables.
 */
export const OPTION_RENAMES: Readonly<Record<'newManager' | 'withOptions', Readonly<Record<string, string>>>> = {
  newManager: {
    gracefulShutdownTimeout: 'gracefulShutdownTimeoutMs',
    leaseDuration: 'leaseDurationMs',
    renewDeadline: 'renewDeadlineMs',
    retryPeriod: 'retryPeriodMs',
  },
  withOptions: {
    cacheSyncTimeout: 'cacheSyncTimeoutMs',
    reconciliationTimeout: 'reconciliationTimeoutMs',
  },
};

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * `requeueAfterMs: x` (a reconcile Result's removed field, in any object literal) as
 * `requeueAfterSeconds: x / 1000`: a number literal is divided here, another expression in the
 * code. The name is kubeforge's own, so an object literal that carries it is a Result.
 */
function requeueDelayEdit(p: ts.ObjectLiteralElementLike, sf: ts.SourceFile): Edit | undefined {
  if (!ts.isPropertyAssignment(p) && !ts.isShorthandPropertyAssignment(p)) return undefined;
  const name = ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : undefined;
  if (name !== 'requeueAfterMs') return undefined;
  const value = ts.isShorthandPropertyAssignment(p) ? p.name : p.initializer;
  const seconds =
    ts.isNumericLiteral(value) && Number.isFinite(Number(value.text))
      ? String(Number(value.text) / 1000)
      : ts.isIdentifier(value) || ts.isPropertyAccessExpression(value) || ts.isCallExpression(value)
        ? `${value.getText(sf)} / 1000`
        : `(${value.getText(sf)}) / 1000`;
  return { start: p.getStart(sf), end: p.getEnd(), text: `requeueAfterSeconds: ${seconds}` };
}

/** What {@link migrateSource} did to one file. */
export interface Migration {
  text: string;
  /** One line per change, for the report: `moved newClient to kubeforge/runtime/client`. */
  changes: string[];
}

/**
 * Applies the migrations to one TypeScript file's text; `available(module)` says whether the
 * kubeforge being updated to has that module (a move to a subpath it lacks is not made).
 */
export function migrateSource(text: string, fileName: string, available: (module: string) => boolean): Migration {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: Edit[] = [];
  const changes: string[] = [];
  // Imports: names moved out of the root go to their subpath's import (an existing one, or a new one).
  const existing = new Map<string, ts.ImportDeclaration>();
  for (const st of sf.statements)
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) existing.set(st.moduleSpecifier.text, st);
  const additions = new Map<string, { typeOnly: boolean; specs: string[] }[]>();
  for (const st of sf.statements) {
    if (
      !ts.isImportDeclaration(st) ||
      !ts.isStringLiteral(st.moduleSpecifier) ||
      st.moduleSpecifier.text !== 'kubeforge/runtime'
    )
      continue;
    const clause = st.importClause;
    const named = clause?.namedBindings;
    if (!clause || !named || !ts.isNamedImports(named)) continue;
    const typeOnly = clause.isTypeOnly;
    const stay: string[] = [];
    let changed = false;
    for (const el of named.elements) {
      const imported = (el.propertyName ?? el.name).text;
      const local = el.name.text;
      const typePrefix = el.isTypeOnly ? 'type ' : '';
      const rename = RUNTIME_RENAMES[imported];
      const target = RUNTIME_MOVES[imported];
      if (rename) {
        stay.push(`${typePrefix}${rename.name} as ${local}`);
        changes.push(`${imported} is now ${rename.name} (imported as ${local})`);
        changed = true;
      } else if (target && available(target)) {
        const spec = `${typePrefix}${imported}${local !== imported ? ` as ${local}` : ''}`;
        const list = additions.get(target) ?? [];
        list.push({ typeOnly, specs: [spec] });
        additions.set(target, list);
        changes.push(`moved ${imported} to ${target}`);
        changed = true;
      } else stay.push(el.getText(sf));
    }
    if (!changed) continue;
    const q = st.moduleSpecifier.getText(sf)[0];
    edits.push({
      start: st.getStart(sf),
      // An import left empty goes with its line.
      end: st.getEnd() + (!stay.length && text[st.getEnd()] === '\n' ? 1 : 0),
      text: stay.length
        ? `import ${typeOnly ? 'type ' : ''}{ ${stay.join(', ')} } from ${q}kubeforge/runtime${q};`
        : '',
    });
  }
  for (const [module, groups] of additions) {
    for (const typeOnly of [false, true]) {
      const specs = groups.filter((g) => g.typeOnly === typeOnly).flatMap((g) => g.specs);
      if (!specs.length) continue;
      const have = existing.get(module);
      const haveNamed = have?.importClause?.namedBindings;
      if (have && haveNamed && ts.isNamedImports(haveNamed) && have.importClause?.isTypeOnly === typeOnly) {
        const known = new Set(haveNamed.elements.map((e) => e.getText(sf)));
        const extra = specs.filter((s) => !known.has(s));
        if (extra.length)
          edits.push({
            start: haveNamed.elements.end,
            end: haveNamed.elements.end,
            text: `${haveNamed.elements.length ? ', ' : ''}${extra.join(', ')}`,
          });
      } else {
        // After the last import.
        const last = [...sf.statements].reverse().find((s) => ts.isImportDeclaration(s));
        const at = last ? last.getEnd() : 0;
        edits.push({
          start: at,
          end: at,
          text: `${last ? '\n' : ''}import ${typeOnly ? 'type ' : ''}{ ${specs.join(', ')} } from '${module}';${last ? '' : '\n'}`,
        });
      }
    }
  }
  // Options renamed, in the object literal given to newManager(config, {...}) or .withOptions({...}).
  const visit = (node: ts.Node): void => {
    const delay = ts.isObjectLiteralElementLike(node) ? requeueDelayEdit(node, sf) : undefined;
    if (delay) {
      edits.push(delay);
      changes.push('Result: requeueAfterMs is now requeueAfterSeconds (the delay divided by 1000)');
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const which =
        ts.isIdentifier(callee) && callee.text === 'newManager'
          ? 'newManager'
          : ts.isPropertyAccessExpression(callee) && callee.name.text === 'withOptions'
            ? 'withOptions'
            : undefined;
      const arg = which === 'newManager' ? node.arguments[1] : which === 'withOptions' ? node.arguments[0] : undefined;
      if (which && arg && ts.isObjectLiteralExpression(arg)) {
        const renames = OPTION_RENAMES[which];
        for (const p of arg.properties) {
          if (!ts.isPropertyAssignment(p) && !ts.isShorthandPropertyAssignment(p)) continue;
          const name = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
          const to = name ? renames[name] : undefined;
          if (!to) continue;
          edits.push(
            ts.isShorthandPropertyAssignment(p)
              ? { start: p.name.getStart(sf), end: p.name.getEnd(), text: `${to}: ${name}` }
              : { start: p.name.getStart(sf), end: p.name.getEnd(), text: to },
          );
          changes.push(`${which}: option ${name} is now ${to}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (!edits.length) return { text, changes: [] };
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start || b.end - a.end))
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return { text: out, changes: [...new Set(changes)] };
}
