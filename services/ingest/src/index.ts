export * from './sources/types.ts';
