from enum import StrEnum


class ErrorCode(StrEnum):
    FORBIDDEN = "forbidden"
    FREE_KEY_CEILING = "free_key_ceiling"
    HISTORICAL_LIMIT = "historical_limit"
    INTERNAL_ERROR = "internal_error"
    INVALID_PARAMETER = "invalid_parameter"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    NOT_FOUND = "not_found"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    RANGE_NOT_SATISFIABLE = "range_not_satisfiable"
    RATE_LIMITED = "rate_limited"
    SERVICE_UNAVAILABLE = "service_unavailable"
    SLOW_CONSUMER = "slow_consumer"
    UNAUTHORIZED = "unauthorized"
    URI_TOO_LONG = "uri_too_long"

    def __str__(self) -> str:
        return str(self.value)
