// The file `npm start` leaves behind (`.cds/local.json`): read by libs/config (local-env.ts) for every CLI.
export { LocalEnv, LOCAL_ENV_PATH, readLocalEnv } from '@cds/config';
