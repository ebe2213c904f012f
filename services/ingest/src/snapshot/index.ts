export * from './format.ts';
export { readManifest, readSnapshot, SnapshotError } from './read.ts';
export { writeSnapshot, type WriteSummary } from './write.ts';
export { buildSnapshotFromFiles, defaultCotSince, type BuildFromFilesOptions } from './build.ts';
