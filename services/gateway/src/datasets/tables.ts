import { datasetById, DatasetLedger, Incident, RELEASES_BUCKET, INCIDENTS_BUCKET } from '@cds/contracts';
import type { Logger } from '@cds/telemetry';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { followBucket, type BucketFollower } from './follow-bucket.ts';
import { LedgerIndex } from './ledger-index.ts';

/** Each dataset's release ledger (RELEASES_BUCKET), as the projector last wrote it. */
export interface LedgerView {
  /** The dataset's entries, indexed (empty when none). */
  entries(dataset: string): LedgerIndex;
  /** Increases on every change (lets readers cache what they derive). */
  version(): number;
}

/** The incidents an operator wrote (INCIDENTS_BUCKET). */
export interface IncidentView {
  all(): readonly Incident[];
  version(): number;
}

/** Most incidents a gateway keeps in memory (a new one past it is dropped and counted). */
export const INCIDENTS_MAX = 10_000;

/** The ledgers by dataset id: only known datasets are kept (one key each, so the table is bounded). */
export class LedgerTable implements LedgerView {
  readonly #ledgers = new Map<string, LedgerIndex>();
  #version = 0;

  entries(dataset: string): LedgerIndex {
    return this.#ledgers.get(dataset) ?? LedgerIndex.EMPTY;
  }

  version(): number {
    return this.#version;
  }

  put(ledger: DatasetLedger): void {
    // Sorted by `lo` as the contract says; sorted again by the index, so a writer's slip cannot mislead it.
    this.#ledgers.set(ledger.dataset, new LedgerIndex(ledger.entries));
    this.#version += 1;
  }

  delete(dataset: string): void {
    if (this.#ledgers.delete(dataset)) this.#version += 1;
  }
}

/** The incidents by id, bounded by INCIDENTS_MAX. */
export class IncidentTable implements IncidentView {
  readonly #incidents = new Map<string, Incident>();
  readonly #max: number;
  #version = 0;
  #dropped = 0;
  #list: Incident[] | undefined;

  constructor(max = INCIDENTS_MAX) {
    this.#max = max;
  }

  get dropped(): number {
    return this.#dropped;
  }

  all(): readonly Incident[] {
    this.#list ??= [...this.#incidents.values()];
    return this.#list;
  }

  version(): number {
    return this.#version;
  }

  put(incident: Incident): void {
    if (!this.#incidents.has(incident.id) && this.#incidents.size >= this.#max) {
      this.#dropped += 1;
      return;
    }
    this.#incidents.set(incident.id, incident);
    this.#changed();
  }

  delete(id: string): void {
    if (this.#incidents.delete(id)) this.#changed();
  }

  #changed(): void {
    this.#list = undefined;
    this.#version += 1;
  }
}

export interface DatasetFollowers {
  ledgers: LedgerTable;
  incidents: IncidentTable;
  /** Both buckets are followed (each waits in the background until its writer has created it). */
  following(): boolean;
  stop(): Promise<void>;
}

/**
 * Follows the release ledger (the projector's RELEASES_BUCKET, one key per dataset id) and the
 * incidents (INCIDENTS_BUCKET, one key per incident id, written by the admin command) into memory,
 * so GET /datasets and GET /releases never wait on NATS. A ledger stored under another key than its
 * dataset, or under an unknown dataset, is skipped; so is an incident under another key than its id.
 */
export function followDatasets(opts: {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  retryMs?: number;
  buckets?: { releases?: string; incidents?: string };
}): DatasetFollowers {
  const ledgers = new LedgerTable();
  const incidents = new IncidentTable();
  const common = {
    nc: opts.nc,
    js: opts.js,
    jsm: opts.jsm,
    logger: opts.logger,
    ...(opts.retryMs === undefined ? {} : { retryMs: opts.retryMs }),
  };
  const followers: BucketFollower[] = [
    followBucket({
      ...common,
      bucket: opts.buckets?.releases ?? RELEASES_BUCKET,
      what: 'the release ledger',
      schema: DatasetLedger,
      accept: (key, ledger) => ledger.dataset === key && datasetById(key) !== undefined,
      put: (_key, ledger) => ledgers.put(ledger),
      remove: (key) => ledgers.delete(key),
    }),
    followBucket({
      ...common,
      bucket: opts.buckets?.incidents ?? INCIDENTS_BUCKET,
      what: 'the incidents',
      schema: Incident,
      accept: (key, incident) => incident.id === key,
      put: (_key, incident) => incidents.put(incident),
      remove: (key) => incidents.delete(key),
    }),
  ];
  return {
    ledgers,
    incidents,
    following: () => followers.every((f) => f.following()),
    stop: async () => {
      await Promise.all(followers.map((f) => f.stop()));
    },
  };
}
