import { PLAN_NAMES, PLANS, type Plan } from '@cds/contracts';
import { fmt } from '../pages/format.ts';
import { html, type SafeHtml } from '../security/html.ts';

function planCard(name: Plan, current: boolean): SafeHtml {
  const r = PLANS[name];
  return html`<article class="plan ${current ? 'current' : ''}" aria-label="${name} plan">
    <h3>${name[0]?.toUpperCase()}${name.slice(1)} ${current ? html`<span class="badge ok">Your plan</span>` : ''}</h3>
    <dl>
      <dt>Requests/min</dt>
      <dd>${fmt(r.perMinute)}</dd>
      <dt>Requests/day</dt>
      <dd>${fmt(r.perDay)}</dd>
      <dt>History</dt>
      <dd>${r.historyMonths === null ? 'Full' : `${r.historyMonths} months`}</dd>
      <dt>COT legacy and CIT supplement</dt>
      <dd>${r.cotLegacy ? 'Yes' : 'No'}</dd>
      <dt>COT disaggregated</dt>
      <dd>${r.cotDisaggregated ? 'Yes' : 'No'}</dd>
    </dl>
  </article>`;
}

export function planPage(s: { plan: Plan; accountId: string }): SafeHtml {
  return html`<div class="page-head"><h1>Plan</h1></div>
    <p class="lead">You are on the <strong>${s.plan}</strong> plan.</p>
    <div class="plans">${PLAN_NAMES.map((p) => planCard(p, p === s.plan))}</div>
    <section class="card">
      <h2>Upgrading</h2>
      <p>
        Plan changes are made by our operators. Write to support with your account id <code>${s.accountId}</code> and
        the plan you want; the change reaches every key of the account at once.
      </p>
    </section>`;
}
