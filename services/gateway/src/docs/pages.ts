import { ERROR_CODES, ERROR_CODE_LIST } from '@cds/contracts';

const escape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Inline code spans (`x`) in our own descriptions become <code>. */
const prose = (s: string) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>');

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
code,pre{font:14px ui-monospace,monospace;background:#f3f4f6;padding:.1rem .3rem;border-radius:4px}
pre{padding:1rem;overflow:auto}table{border-collapse:collapse;width:100%}td,th{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
h2{margin-top:2.5rem;border-bottom:1px solid #d0d7de}section:target{background:#fff8c5}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The page every error's doc_url points at: one section, with an anchor, per code. */
export function renderErrorsPage(): string {
  const rows = ERROR_CODE_LIST.map((code) => {
    const e = ERROR_CODES[code];
    return `<section id="${code}"><h2><code>${code}</code> — ${e.status} ${escape(e.title)}</h2><p>${prose(e.description)}</p></section>`;
  }).join('');
  return page(
    'Errors — Commodity Data Service',
    `<h1>Errors</h1><p>Every error response has the body <code>{"error": {"code", "message", "doc_url", "param"?, "request_id"}}</code>. ` +
      `Rely on the HTTP status and <code>code</code>; <code>param</code> names the offending parameter; quote <code>request_id</code> to support. ` +
      `See also the <a href="/docs">API reference</a>.</p>${rows}`,
  );
}

interface Param {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema: Record<string, unknown>;
}

function schemaSummary(schema: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof schema.$ref === 'string') parts.push(schema.$ref.split('/').pop() ?? '');
  if (typeof schema.type === 'string') parts.push(schema.type);
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.join(', ')}`);
  if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number')
    parts.push(`${schema.minimum}–${schema.maximum}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join('; ');
}

/** A readable API reference built from the OpenAPI document. */
export function renderReferencePage(doc: Record<string, unknown>): string {
  const info = doc.info as { title: string; version: string; description: string };
  const paths = doc.paths as Record<
    string,
    {
      get: {
        summary: string;
        description: string;
        parameters: Param[];
        responses: Record<string, { description: string }>;
      };
    }
  >;
  const ops = Object.entries(paths)
    .map(([path, { get }]) => {
      const params = get.parameters
        .map(
          (p) =>
            `<tr><td><code>${escape(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escape(schemaSummary(p.schema))}</td><td>${prose(p.description ?? '')}</td></tr>`,
        )
        .join('');
      const responses = Object.entries(get.responses)
        .map(([status, r]) => `<li><strong>${status}</strong> ${escape(r.description)}</li>`)
        .join('');
      return (
        `<section id="${escape(path)}"><h2><code>GET /api/v1${escape(path)}</code></h2><p><strong>${escape(get.summary)}.</strong> ${prose(get.description)}</p>` +
        `<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Schema</th><th>Description</th></tr>${params}</table><ul>${responses}</ul></section>`
      );
    })
    .join('');
  return page(
    `${info.title} API ${info.version}`,
    `<h1>${escape(info.title)} API <small>${escape(info.version)}</small></h1><p>${prose(info.description)}</p>` +
      `<h2>Authentication</h2><p>Send your 40-character key as <code>Authorization: Bearer &lt;key&gt;</code> (recommended) or as the <code>api_key</code> query parameter for quick tests. ` +
      `Every response to an authenticated request carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code>, <code>X-RateLimit-Reset</code>, <code>RateLimit-Policy</code> and <code>RateLimit</code>; 429 adds <code>Retry-After</code>.</p>` +
      `<pre>curl -H "Authorization: Bearer $KEY" "$BASE/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&amp;limit=5&amp;sort_order=desc"</pre>` +
      `<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>. Errors: <a href="/docs/errors">/docs/errors</a>.</p>${ops}`,
  );
}
