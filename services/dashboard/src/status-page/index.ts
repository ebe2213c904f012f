export { createDatasetsReader, type DatasetsRead, type DatasetsReader } from './reader.ts';
export { registerStatusPage } from './routes.ts';
