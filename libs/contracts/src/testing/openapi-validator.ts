import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../openapi.ts';

// ajv-formats is CommonJS: under Node's ESM interop the plugin is the namespace's `default`.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const formatsModule = ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } };
const addFormats: FormatsPlugin =
  typeof formatsModule.default === 'function' ? formatsModule.default : formatsModule.default.default;

export interface ResponseLike {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

interface OperationResponses {
  [status: string]: {
    headers?: Record<string, { $ref: string }>;
    content?: Record<string, { schema: unknown }>;
  };
}

/**
 * Validates real HTTP responses against the generated OpenAPI document: the status must be one the
 * operation declares, the body must match its schema (a text/csv answer must be one the response
 * declares; its rows are not checked here), and every declared header must be present (unless
 * the document says `required: false`) and of its declared type. Throws an Error listing every problem.
 */
export function createOpenApiResponseValidator(doc: Record<string, unknown> = buildOpenApiDocument()) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const components = doc.components as { schemas: Record<string, unknown>; headers: Record<string, unknown> };
  ajv.addSchema({ $id: 'openapi', components: { schemas: components.schemas } });
  const cache = new Map<string, ValidateFunction>();
  const paths = doc.paths as Record<string, { get: { responses: OperationResponses } }>;

  const compile = (schema: unknown): ValidateFunction => {
    const key = JSON.stringify(schema);
    let fn = cache.get(key);
    if (fn === undefined) {
      fn = ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"openapi#/components/')) as object);
      cache.set(key, fn);
    }
    return fn;
  };

  return function validate(pathTemplate: string, res: ResponseLike): void {
    const op = paths[pathTemplate]?.get;
    if (op === undefined) throw new Error(`no operation GET ${pathTemplate} in the OpenAPI document`);
    const declared = op.responses[String(res.statusCode)];
    if (declared === undefined) {
      throw new Error(`GET ${pathTemplate}: status ${res.statusCode} is not declared (body ${res.body.slice(0, 300)})`);
    }
    const problems: string[] = [];
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const csv = type === 'text/csv';
    if (csv && declared.content?.['text/csv'] === undefined) problems.push(`a text/csv body is not declared`);
    const schema = csv ? undefined : declared.content?.['application/json']?.schema;
    if (schema !== undefined) {
      let body: unknown;
      try {
        body = JSON.parse(res.body);
      } catch {
        problems.push(`body is not JSON: ${res.body.slice(0, 200)}`);
      }
      if (body !== undefined) {
        const fn = compile(schema);
        if (!fn(body)) problems.push(`body: ${ajv.errorsText(fn.errors, { dataVar: 'body' })}`);
      }
    }
    for (const [name, ref] of Object.entries(declared.headers ?? {})) {
      const value = res.headers[name.toLowerCase()];
      const header = components.headers[ref.$ref.split('/').pop() ?? ''] as {
        required?: boolean;
        schema: { type: string };
      };
      if (value === undefined) {
        if (header.required !== false) problems.push(`header ${name} is missing`);
        continue;
      }
      const headerSchema = header.schema;
      if (headerSchema.type === 'integer' && !/^\d+$/.test(String(value))) {
        problems.push(`header ${name} is not a non-negative integer: ${String(value)}`);
      }
    }
    if (problems.length > 0) {
      throw new Error(
        `GET ${pathTemplate} ${res.statusCode} does not match the OpenAPI document:\n- ${problems.join('\n- ')}`,
      );
    }
  };
}
