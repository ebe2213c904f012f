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
