// @commodity-data/client: the Commodity Data Service API from TypeScript (ESM; runtime dependency:
// openapi-fetch). `Client` is the hand-written layer; the types come from the OpenAPI document.
export {
  Client,
  DEFAULT_BASE_URL,
  Pager,
  type ClientOptions,
  type CommoditiesParams,
  type CommodityDetail,
  type CommodityDetailResponse,
  type CommodityListResponse,
  type CommoditySummary,
  type CotParams,
  type CotReport,
  type CotResponse,
  type DisaggregatedCotReport,
  type ExtraParams,
  type LegacyCotReport,
  type PaginationMeta,
  type SeriesParams,
  type SeriesResponse,
  type SeriesType,
  type StatusResponse,
  type TimeSeriesPoint,
} from './client.ts';
export {
  ApiConnectionError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  CommodityDataError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  type ApiErrorFields,
  type ErrorCode,
} from './errors.ts';
export type { components, operations, paths } from './generated/schema.ts';
