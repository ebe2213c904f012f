import { html, type SafeHtml } from '../security/html.ts';
import { PREFIX } from './layout.ts';

export function errorPage(status: number, title: string, message: string, link?: SafeHtml): SafeHtml {
  return html`<section class="card narrow error-page">
    <p class="status-code">${status}</p>
    <h1>${title}</h1>
    <p class="lead">${message}</p>
    ${link ?? html`<p><a href="${PREFIX}/">Back to the dashboard</a></p>`}
  </section>`;
}
