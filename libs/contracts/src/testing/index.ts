export * from './openapi-validator.ts';
