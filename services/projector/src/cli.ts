import { loadConfig } from '@cds/config';
import { connectMessaging } from '@cds/messaging';
import { MongoClient } from 'mongodb';
import { parseArgs } from 'node:util';
import { createLogger } from '@cds/telemetry';
import { ProjectorConfig } from './config.ts';
import { PROJECTION_NAMES, PROJECTIONS } from './projections/index.ts';
import { rebuildProjection } from './rebuild/rebuild.ts';
import { connectStore, createBulkFileStore, createReadModelStore } from '@cds/store';
import { buildBulkFiles } from './bulk/build-bulk.ts';

const USAGE = [
  `usage: npm run projector -- rebuild --projection <${PROJECTION_NAMES.join('|')}> [--keep-previous] [--grace-ms N]`,
  '       npm run projector -- bulk   (writes the bulk files of GET /api/v1/bulk from the read models)',
].join('\n');

async function cli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'bulk' && rest.length === 0) return bulk();
  if (command !== 'rebuild') {
    console.error(USAGE);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      projection: { type: 'string' },
      'keep-previous': { type: 'boolean', default: false },
      'grace-ms': { type: 'string' },
    },
  });
  const name = values.projection;
  if (name === undefined || !(PROJECTION_NAMES as readonly string[]).includes(name)) {
    console.error(USAGE);
    return 2;
  }
  const graceMs = values['grace-ms'] === undefined ? undefined : Number(values['grace-ms']);
  if (graceMs !== undefined && !(Number.isInteger(graceMs) && graceMs >= 0)) {
    console.error('--grace-ms must be a whole number of milliseconds');
    return 2;
  }
  const config = loadConfig(ProjectorConfig, process.env);
  const logger = createLogger({ name: 'projector-cli', level: config.LOG_LEVEL });
  const messaging = await connectMessaging({ servers: config.NATS_URL, name: `projector-rebuild-${name}` });
  const mongo = await new MongoClient(config.MONGODB_URL, { serverSelectionTimeoutMS: 5_000 }).connect();
  try {
    const report = await rebuildProjection(
      { messaging, db: mongo.db(config.MONGODB_DB), logger, clock: () => new Date() },
      PROJECTIONS[name as keyof typeof PROJECTIONS],
      { keepPrevious: values['keep-previous'], ...(graceMs !== undefined ? { graceMs } : {}) },
    );
    console.log(JSON.stringify(report, null, 2));
    return 0;
  } finally {
    await messaging.close();
    await mongo.close();
  }
}

/** `bulk`: the bulk files job, over the read models the query service reads (src/bulk/build-bulk.ts). */
async function bulk(): Promise<number> {
  const config = loadConfig(ProjectorConfig, process.env);
  const store = await connectStore({ url: config.MONGODB_URL, appName: 'cds-projector-bulk' });
  try {
    const db = store.db(config.MONGODB_DB);
    const report = await buildBulkFiles({
      reader: createReadModelStore(db),
      files: createBulkFileStore(db),
      clock: () => new Date(),
    });
    console.log(JSON.stringify(report, null, 2));
    return 0;
  } finally {
    await store.close();
  }
}

cli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('projector command failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
