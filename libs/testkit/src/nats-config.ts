/**
 * The `jetstream` block of every NATS server the testkit starts: fsync before each acknowledgement
 * (`sync_interval: always`; nats-server 2.10+), as the event store runs in production
 * (docs/reliability.md "Event store durability"). `-js` and the store folder are given as flags.
 */
export const NATS_JETSTREAM_CONFIG = 'jetstream {\n  sync_interval: always\n}\n';
