from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.sync_source_name import SyncSourceName

if TYPE_CHECKING:
    from ..models.scheduled_release import ScheduledRelease


T = TypeVar("T", bound="SourceStatus")


@_attrs_define
class SourceStatus:
    """The freshness of one official source. `last_due_release` is the latest scheduled release whose time plus a grace of
    2 hours has passed (its data should be synced by now); `next_release` the next one.

        Attributes:
            source (SyncSourceName): An official source: `cftc` (CFTC Commitments of Traders), `eia` (U.S. Energy
                Information Administration), `nass` (USDA National Agricultural Statistics Service), `ams` (USDA Agricultural
                Marketing Service: Market News), `worldbank` (World Bank Commodity Price Data, the Pink Sheet), `wasde` (USDA
                World Agricultural Supply and Demand Estimates (WASDE)), `ecb` (ECB euro foreign exchange reference rates).
            last_success_at (datetime.datetime | None): When the last sync that fetched every series of the source ended
                (RFC 3339); null if none has.
            last_run_at (datetime.datetime | None): When the last sync of the source started; null if none ran.
            last_run_failed (bool): The last sync failed for at least one series (its data stays as it was; the next run
                retries).
            newest_data_date (datetime.date | None): The newest observation date synced from the source; null before any
                data.
            last_due_release (ScheduledRelease): A release on the publisher's schedule.
            next_release (ScheduledRelease): A release on the publisher's schedule.
            late (bool): The newest data date is older than the last due release's data date (or nothing was synced yet):
                the source missed a release or sync is not running.
    """

    source: SyncSourceName
    last_success_at: datetime.datetime | None
    last_run_at: datetime.datetime | None
    last_run_failed: bool
    newest_data_date: datetime.date | None
    last_due_release: ScheduledRelease
    next_release: ScheduledRelease
    late: bool

    def to_dict(self) -> dict[str, Any]:
        source = self.source.value

        last_success_at: None | str
        if isinstance(self.last_success_at, datetime.datetime):
            last_success_at = self.last_success_at.isoformat()
        else:
            last_success_at = self.last_success_at

        last_run_at: None | str
        if isinstance(self.last_run_at, datetime.datetime):
            last_run_at = self.last_run_at.isoformat()
        else:
            last_run_at = self.last_run_at

        last_run_failed = self.last_run_failed

        newest_data_date: None | str
        if isinstance(self.newest_data_date, datetime.date):
            newest_data_date = self.newest_data_date.isoformat()
        else:
            newest_data_date = self.newest_data_date

        last_due_release = self.last_due_release.to_dict()

        next_release = self.next_release.to_dict()

        late = self.late

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "source": source,
                "last_success_at": last_success_at,
                "last_run_at": last_run_at,
                "last_run_failed": last_run_failed,
                "newest_data_date": newest_data_date,
                "last_due_release": last_due_release,
                "next_release": next_release,
                "late": late,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.scheduled_release import ScheduledRelease

        d = dict(src_dict)
        source = SyncSourceName(d.pop("source"))

        def _parse_last_success_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_success_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_success_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_success_at = _parse_last_success_at(d.pop("last_success_at"))

        def _parse_last_run_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_run_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_run_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_run_at = _parse_last_run_at(d.pop("last_run_at"))

        last_run_failed = d.pop("last_run_failed")

        def _parse_newest_data_date(data: object) -> datetime.date | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                newest_data_date_type_0 = datetime.date.fromisoformat(data)

                return newest_data_date_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.date | None, data)

        newest_data_date = _parse_newest_data_date(d.pop("newest_data_date"))

        last_due_release = ScheduledRelease.from_dict(d.pop("last_due_release"))

        next_release = ScheduledRelease.from_dict(d.pop("next_release"))

        late = d.pop("late")

        source_status = cls(
            source=source,
            last_success_at=last_success_at,
            last_run_at=last_run_at,
            last_run_failed=last_run_failed,
            newest_data_date=newest_data_date,
            last_due_release=last_due_release,
            next_release=next_release,
            late=late,
        )

        return source_status
