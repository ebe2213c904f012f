// Flags, then the environment, then `.cds/local.json`: one resolver for every CLI (libs/config local-env.ts).
export { resolveAddresses, type Addresses } from '@cds/config';
