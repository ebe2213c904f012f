from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.notification_type import NotificationType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.notification_data import NotificationData


T = TypeVar("T", bound="Notification")


@_attrs_define
class Notification:
    """A change notification (server-sent event data, webhook body).

    Attributes:
        id (str): Stable across retries and re-sends: receivers deduplicate on it.
        type_ (NotificationType):
        data (NotificationData):
        test (bool | Unset):
    """

    id: str
    type_: NotificationType
    data: NotificationData
    test: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_.value

        data = self.data.to_dict()

        test = self.test

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "type": type_,
                "data": data,
            }
        )
        if test is not UNSET:
            field_dict["test"] = test

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.notification_data import NotificationData

        d = dict(src_dict)
        id = d.pop("id")

        type_ = NotificationType(d.pop("type"))

        data = NotificationData.from_dict(d.pop("data"))

        test = d.pop("test", UNSET)

        notification = cls(
            id=id,
            type_=type_,
            data=data,
            test=test,
        )

        return notification
