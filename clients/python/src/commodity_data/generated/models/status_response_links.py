from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="StatusResponseLinks")


@_attrs_define
class StatusResponseLinks:
    """Where the per-dataset conditions and releases are (absolute URLs).

    Attributes:
        datasets (str): GET /datasets: each dataset's condition over 90 days.
        releases (str): GET /releases: a dataset's releases against its calendar.
    """

    datasets: str
    releases: str

    def to_dict(self) -> dict[str, Any]:
        datasets = self.datasets

        releases = self.releases

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "datasets": datasets,
                "releases": releases,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        datasets = d.pop("datasets")

        releases = d.pop("releases")

        status_response_links = cls(
            datasets=datasets,
            releases=releases,
        )

        return status_response_links
