from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.supply_demand_meta_view import SupplyDemandMetaView
from ..types import UNSET, Unset

T = TypeVar("T", bound="SupplyDemandMeta")


@_attrs_define
class SupplyDemandMeta:
    """Pagination, the attribution and the point in time of a supply and demand answer.

    Attributes:
        commodity_id (str): Commodity identifier in UPPER_SNAKE_CASE, used as {slug} in paths.
        region (str): A region of the balance sheets in snake_case: united_states, world, or a country or group of the
            world tables (china, eu, major_exporters, …), as the table names it.
        view (SupplyDemandMetaView):
        page (int):
        per_page (int):
        total (int):
        total_pages (int):
        attribution (str): USDA World Agricultural Outlook Board, as it asks to be cited.
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
        source (str | Unset): Where the figures come from (`<source>:<file>`).
        as_of (datetime.datetime | Unset): With as_of: its instant (UTC).
        first_release (bool | Unset):
    """

    commodity_id: str
    region: str
    view: SupplyDemandMetaView
    page: int
    per_page: int
    total: int
    total_pages: int
    attribution: str
    request_id: str
    source: str | Unset = UNSET
    as_of: datetime.datetime | Unset = UNSET
    first_release: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        commodity_id = self.commodity_id

        region = self.region

        view = self.view.value

        page = self.page

        per_page = self.per_page

        total = self.total

        total_pages = self.total_pages

        attribution = self.attribution

        request_id = self.request_id

        source = self.source

        as_of: str | Unset = UNSET
        if not isinstance(self.as_of, Unset):
            as_of = self.as_of.isoformat()

        first_release = self.first_release

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "commodity_id": commodity_id,
                "region": region,
                "view": view,
                "page": page,
                "per_page": per_page,
                "total": total,
                "total_pages": total_pages,
                "attribution": attribution,
                "request_id": request_id,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source
        if as_of is not UNSET:
            field_dict["as_of"] = as_of
        if first_release is not UNSET:
            field_dict["first_release"] = first_release

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        commodity_id = d.pop("commodity_id")

        region = d.pop("region")

        view = SupplyDemandMetaView(d.pop("view"))

        page = d.pop("page")

        per_page = d.pop("per_page")

        total = d.pop("total")

        total_pages = d.pop("total_pages")

        attribution = d.pop("attribution")

        request_id = d.pop("request_id")

        source = d.pop("source", UNSET)

        _as_of = d.pop("as_of", UNSET)
        as_of: datetime.datetime | Unset
        if isinstance(_as_of, Unset):
            as_of = UNSET
        else:
            as_of = datetime.datetime.fromisoformat(_as_of)

        first_release = d.pop("first_release", UNSET)

        supply_demand_meta = cls(
            commodity_id=commodity_id,
            region=region,
            view=view,
            page=page,
            per_page=per_page,
            total=total,
            total_pages=total_pages,
            attribution=attribution,
            request_id=request_id,
            source=source,
            as_of=as_of,
            first_release=first_release,
        )

        return supply_demand_meta
