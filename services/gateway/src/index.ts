export { buildApp, forwardedQuery, type GatewayDeps } from './app.ts';
export { GatewayConfig } from './config.ts';
export { KeyTable, hashKey, type Principal } from './keys/key-table.ts';
export { followKeyStream, type KeyStreamFollower } from './keys/key-stream.ts';
export { createQueryClient, type QueryClient } from './proxy/query-client.ts';
export { createFailoverRateLimiter } from './rate/failover-limiter.ts';
export { createMemoryRateLimiter } from './rate/memory-limiter.ts';
export { RATE_WINDOW_SCRIPT, createRedisRateLimiter, rateKey, usageKey } from './rate/redis-limiter.ts';
export type { RateDecision, RateLimiter, RateLimits } from './rate/windows.ts';
