export { findOnPath, resolveMongoBinary, type MongoBinary } from './binaries.ts';
export {
  startNatsCluster,
  startRedisSentinel,
  type ClusterMember,
  type ClusterOptions,
  type NatsClusterHandle,
  type RedisSentinelHandle,
} from './cluster.ts';
export { isContainerRuntimeAvailable } from './container-servers.ts';
export {
  NATS_IDENTITIES,
  NATS_PERMISSIONS,
  NATS_SYSTEM_USER,
  REDIS_ACL_RULES,
  REDIS_IDENTITIES,
  chartAclFiles,
  natsAuthorizationConfig,
  natsPasswordVariable,
  redisPasswordVariable,
  redisUserLines,
  type InfraIdentities,
  type NatsIdentity,
  type NatsUser,
  type RedisIdentity,
  type SubjectPermissions,
} from './identities.ts';
export {
  resolveInfraPlan,
  startInfra,
  type Infra,
  type InfraMode,
  type InfraOptions,
  type InfraPlan,
  type ServicePlan,
} from './infra.ts';
export {
  createManagedProcess,
  ServerStartError,
  waitForProcessState,
  type ManagedProcess,
  type ManagedProcessOptions,
} from './managed-process.ts';
export { uniqueName } from './names.ts';
export { findFreePort, findFreePorts, isPortOpen } from './ports.ts';
export { probeMongo, probeNats, probeRedis } from './probes.ts';
export {
  runNodeScript,
  startCliSandbox,
  type CliSandbox,
  type RunScriptOptions,
  type ScriptRun,
} from './run-script.ts';
export type { TestInfraContext } from './provided-context.ts';
export { startRedisCluster, type RedisClusterHandle } from './redis-cluster.ts';
export { redisCommand, type RedisReply } from './resp.ts';
export { startMongo, startNats, startRedis } from './servers.ts';
export { getTestInfra } from './spec-context.ts';
export type {
  InfraSource,
  MongoFlavor,
  MongoHandle,
  NatsHandle,
  RedisHandle,
  ServerHandle,
  StartServerOptions,
} from './types.ts';
export { waitUntil } from './wait.ts';
export {
  REPO_ROOT,
  startServiceProcess,
  startSystem,
  waitForReady,
  type DashboardOptions,
  type NotifierOptions,
  type RunningSystem,
  type ServiceProcess,
  type StartServiceOptions,
  type SystemOptions,
} from './system.ts';
