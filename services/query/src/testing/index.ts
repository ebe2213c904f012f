export { createFakeRepository, type FakeReadModels, type FakeRepository } from './fake-repository.ts';
export {
  catalogDoc,
  cotBuckets,
  cotDoc,
  dateRange,
  descriptorOf,
  seriesBuckets,
  supplyDemandSheet,
  type SheetRelease,
} from './fixtures.ts';
export { createQueryResponseValidator, pathTemplateOf } from './openapi.ts';
