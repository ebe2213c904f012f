"""Python client of the Commodity Data Service API.

``Client`` is the hand-written layer (environment defaults, pagination, typed errors, Retry-After,
DataFrames); ``commodity_data.generated`` is the low-level client generated from the OpenAPI
document with openapi-python-client (its models are what the layer returns).
"""

from ._client import DEFAULT_BASE_URL, Client, __version__
from ._errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    CommodityDataError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from ._pagination import CotPager, Pager, Series, SupplyDemandPager

__all__ = [
    "DEFAULT_BASE_URL",
    "APIConnectionError",
    "APIError",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "CommodityDataError",
    "CotPager",
    "NotFoundError",
    "Pager",
    "PermissionDeniedError",
    "RateLimitError",
    "Series",
    "ServerError",
    "SupplyDemandPager",
    "__version__",
]
