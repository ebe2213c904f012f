import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';
import type { IssueSink } from '@cds/contracts';

/** A custom issue raised by a refinement (the contracts' `checkOhlc`, `checkSeriesBatch`, ...). */
export interface RefinementIssue {
  code: 'custom';
  path: PropertyKey[];
  message: string;
}

/** The outcome of a compiled check: zod's shape, so callers treat both alike. */
export type CompiledResult<T> =
  { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };

export interface CompiledSchema<T> {
  /**
   * Validates like `schema.safeParse`: the same values are accepted (proved by a property test),
   * and `data` is a copy with the keys in the schema's order, as zod's output has them, so its
   * JSON is the same canonical text. A value the compiled check refuses goes through zod itself,
   * so error messages are zod's and a refusal can never be stricter than the contract.
   */
  safeParse(value: unknown): CompiledResult<T>;
  /** The compiled check alone (JSON Schema + refinements), no copy, no zod. */
  check(value: unknown): boolean;
}

type JsonSchema = { [k: string]: unknown };

let sharedAjv: Ajv2020 | undefined;

function ajv(): Ajv2020 {
  if (sharedAjv) return sharedAjv;
  const a = new Ajv2020({
    allErrors: false,
    // NaN and ±Infinity are not numbers (zod's z.number() and the contracts' `finite` refuse them)
    strictNumbers: true,
    // `format: date` is documentation here: the Date schema's pattern is zod's exact date rule
    validateFormats: false,
    // zod's regexes have no `u` flag; lengths count code points in both (zod's codePointLength, ajv's ucs2length)
    unicodeRegExp: false,
  });
  sharedAjv = a;
  return a;
}

/** Copies a value with object keys in the JSON Schema's `properties` order (zod's output order). */
type Copier = (value: unknown) => unknown;
const identity: Copier = (v) => v;

function copierFor(schema: JsonSchema, defs: Record<string, JsonSchema>): Copier {
  const resolve = (s: JsonSchema): JsonSchema => {
    let cur = s;
    while (typeof cur.$ref === 'string') cur = defs[cur.$ref.replace('#/$defs/', '')] ?? {};
    return cur;
  };
  const build = (raw: JsonSchema): Copier => {
    const s = resolve(raw);
    const branches = (s.oneOf ?? s.anyOf) as JsonSchema[] | undefined;
    if (branches) {
      // a discriminated union: pick the branch whose `const` properties the value matches
      const options = branches.map((b) => {
        const r = resolve(b);
        const props = (r.properties ?? {}) as Record<string, JsonSchema>;
        const consts = Object.entries(props)
          .filter(([, p]) => 'const' in p)
          .map(([k, p]) => [k, p.const] as const);
        return { consts, copy: build(r) };
      });
      return (v) => {
        const o = v as Record<string, unknown>;
        const hit = options.find((opt) => opt.consts.every(([k, c]) => o[k] === c)) ?? options[0]!;
        return hit.copy(v);
      };
    }
    if (s.type === 'object' && s.properties) {
      const entries = Object.entries(s.properties as Record<string, JsonSchema>);
      const keys = entries.map(([key]) => key);
      const subs = entries.map(([, sub]) => build(sub));
      const count = keys.length;
      return (v) => {
        const o = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (let i = 0; i < count; i++) {
          const key = keys[i]!;
          const x = o[key];
          if (x === undefined) continue;
          const copy = subs[i]!;
          out[key] = copy === identity ? x : copy(x);
        }
        return out;
      };
    }
    if (s.type === 'array' && s.items) {
      const item = build(s.items as JsonSchema);
      return (v) => (v as unknown[]).map(item);
    }
    return identity;
  };
  return build(schema);
}

/**
 * Compiles a contract's zod schema for hot paths: `z.toJSONSchema(schema)` compiled by ajv (types,
 * required and unknown keys, lengths, integer bounds, patterns such as the calendar date), then
 * `refine` — the contract's refinements that JSON Schema cannot express, exported next to the
 * schema (e.g. `checkOhlc`) — on values that pass. zod stays the source of truth: the JSON Schema is
 * derived from it, and a refused value is handed to zod for its verdict and message.
 */
export function compileSchema<S extends z.ZodType>(
  schema: S,
  refine?: (value: z.output<S>, sink: IssueSink) => void,
): CompiledSchema<z.output<S>> {
  const json = z.toJSONSchema(schema, { unrepresentable: 'throw' }) as JsonSchema;
  const validate: ValidateFunction = ajv().compile(json);
  const copy = copierFor(json, (json.$defs ?? {}) as Record<string, JsonSchema>);
  let failed = false;
  const sink: IssueSink = {
    addIssue: () => {
      failed = true;
    },
  };
  const check = (value: unknown): boolean => {
    if (!validate(value)) return false;
    if (!refine) return true;
    failed = false;
    refine(value as z.output<S>, sink);
    return !failed;
  };
  return {
    check,
    safeParse(value) {
      if (check(value)) return { success: true, data: copy(value) as z.output<S> };
      const parsed = schema.safeParse(value);
      return parsed.success
        ? { success: true, data: parsed.data }
        : { success: false, error: { issues: parsed.error.issues } };
    },
  };
}
