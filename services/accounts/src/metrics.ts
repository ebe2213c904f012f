import { declareMetrics, type Metrics } from '@cds/telemetry';
import type { KeyCreationRefusal } from './commands/index.ts';
import type { KeysModel } from './keys/model.ts';

/**
 * The admin API's metrics (GET /metrics): the keys every gateway replica holds, the Free keys against
 * their ceiling, and the key creations refused by reason. The gauges are read from the model when
 * metrics are collected.
 */
export function createAdminMetrics(metrics: Metrics, opts: { model: KeysModel; maxActiveFreeKeys: number }) {
  const m = declareMetrics(metrics);
  const { model } = opts;
  m.observe(
    'cds_admin_active_keys',
    'gauge',
    'Active API keys of every account, dashboard session keys included (what each gateway holds)',
    (report) => {
      let n = 0;
      for (const count of model.activeByAccount.values()) n += count;
      for (const ids of model.sessionKeysByAccount.values()) n += ids.size;
      report(n);
    },
  );
  m.observe('cds_admin_active_free_keys', 'gauge', 'Active API keys of Free accounts', (report) =>
    report(model.activeFreeKeys),
  );
  m.observe(
    'cds_admin_active_free_session_keys',
    'gauge',
    'Active dashboard session keys of Free accounts (bounded by MAX_ACTIVE_FREE_SESSION_KEYS)',
    (report) => report(model.activeFreeSessionKeys),
  );
  m.observe(
    'cds_admin_free_key_ceiling',
    'gauge',
    'Active Free keys above which new Free keys are refused (MAX_ACTIVE_FREE_KEYS)',
    (report) => report(opts.maxActiveFreeKeys),
  );
  const refused = m.counter('cds_admin_key_creations_refused', {
    description: 'Key creations refused, by reason: free_key_ceiling, plan_cap, account_closed, session_key_ceiling',
    labels: ['reason'],
  });
  return { keyCreationRefused: (reason: KeyCreationRefusal) => refused.add([reason]) };
}
