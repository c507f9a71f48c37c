/**
 * The CEL webhook's answer (run in the child process of ./cel-server.ts): evaluates the rules of
 * the object's schema (packages/cel/src/eval.ts) and refuses as a current API server does: 422 Invalid,
 * apimachinery's message and the field causes.
 */
import { validateObject, type RuleFailure, type RuleSchema } from '#cel';
import { FieldErrors, OMITTED_VALUE, type FieldError } from '../runtime/webhook/fielderrors.js';
import { newWebhookServer, type WebhookServer } from '../runtime/webhook/server.js';
import { CEL_WEBHOOK_PATH } from './cel-path.js';

type Obj = Record<string, unknown>;

function toFieldError(f: RuleFailure): FieldError {
  const badValue = f.omitted ? OMITTED_VALUE : f.value;
  switch (f.type) {
    case 'FieldValueForbidden':
      return { type: 'FieldValueForbidden', field: f.field, detail: f.detail };
    case 'FieldValueRequired':
      return { type: 'FieldValueRequired', field: f.field, detail: f.detail };
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field: f.field, badValue };
    default:
      return { type: 'FieldValueInvalid', field: f.field, badValue, detail: f.detail };
  }
}

/** Answers one AdmissionReview: allowed, or refused with the failures of the object's rules. */
export function reviewCEL(schemas: ReadonlyMap<string, RuleSchema>, review: unknown): unknown {
  const req = ((review as Obj | undefined)?.request ?? {}) as Obj;
  const uid = String(req.uid ?? '');
  const kind = (req.kind ?? {}) as { group?: string; version?: string; kind?: string };
  const schema = schemas.get(`${kind.group}/${kind.version}/${kind.kind}`);
  const answer = (response: Obj) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid, ...response },
  });
  const op = req.operation;
  if (!schema || (op !== 'CREATE' && op !== 'UPDATE') || !req.object) return answer({ allowed: true });
  const warnings: string[] = [];
  const failures = validateObject(
    schema,
    req.object,
    op === 'UPDATE' ? (req.oldObject ?? undefined) : undefined,
    warnings,
  );
  if (!failures.length) return answer(warnings.length ? { allowed: true, warnings } : { allowed: true });
  const obj = req.object as Obj;
  const name = String(((obj.metadata ?? {}) as Obj).name ?? req.name ?? '');
  const errors = new FieldErrors(failures.map(toFieldError), { kind: kind.kind, group: kind.group, name });
  return answer({
    allowed: false,
    ...(warnings.length ? { warnings } : {}),
    status: {
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: errors.message,
      details: { name, group: kind.group, kind: kind.kind, causes: errors.causes() },
    },
  });
}

/** A running CEL webhook server; `stop()` ends it. */
export interface CELWebhook {
  port: number;
  stop(): Promise<void>;
}

/** Starts the runtime's webhook server on `host:port` (certificate from `certDir`) answering {@link reviewCEL}. */
export async function startCELWebhook(
  schemas: ReadonlyMap<string, RuleSchema>,
  host: string,
  port: number,
  certDir: string,
): Promise<CELWebhook> {
  const server: WebhookServer = newWebhookServer({ host, port, certDir });
  server.register(CEL_WEBHOOK_PATH, { handle: async (body) => reviewCEL(schemas, body) });
  const abort = new AbortController();
  const running = server.start(abort.signal);
  running.catch(() => undefined);
  await server.whenStarted();
  const served = server.port;
  if (served === undefined) throw new Error('kubeforge/testing: the CEL webhook server started without a port');
  return {
    port: served,
    stop: async () => {
      abort.abort();
      await running.catch(() => undefined);
    },
  };
}
