"""Contains all the data models used in inputs/outputs"""

from .available_series_type import AvailableSeriesType
from .bulk_file import BulkFile
from .bulk_file_dataset import BulkFileDataset
from .bulk_file_format import BulkFileFormat
from .bulk_file_plans_item import BulkFilePlansItem
from .bulk_file_span import BulkFileSpan
from .bulk_list_response import BulkListResponse
from .bulk_list_response_meta import BulkListResponseMeta
from .category import Category
from .cit_cot_changes import CitCotChanges
from .cit_cot_index import CitCotIndex
from .cit_cot_pct_of_oi import CitCotPctOfOi
from .cit_cot_report import CitCotReport
from .commodity_detail import CommodityDetail
from .commodity_detail_response import CommodityDetailResponse
from .commodity_identifiers import CommodityIdentifiers
from .commodity_list_response import CommodityListResponse
from .commodity_summary import CommoditySummary
from .condition_reason import ConditionReason
from .condition_reason_kind import ConditionReasonKind
from .consistency_day import ConsistencyDay
from .consistency_day_checks import ConsistencyDayChecks
from .conversion import Conversion
from .conversion_from import ConversionFrom
from .conversion_to import ConversionTo
from .cot_check import CotCheck
from .cot_format import CotFormat
from .cot_group_change import CotGroupChange
from .cot_group_change_with_spreading import CotGroupChangeWithSpreading
from .cot_group_pct_of_oi import CotGroupPctOfOi
from .cot_group_pct_of_oi_with_spreading import CotGroupPctOfOiWithSpreading
from .cot_meta import CotMeta
from .cot_response import CotResponse
from .cot_scope import CotScope
from .currency_conversion import CurrencyConversion
from .currency_conversion_rule import CurrencyConversionRule
from .dataset_condition import DatasetCondition
from .dataset_day import DatasetDay
from .dataset_id import DatasetId
from .dataset_summary import DatasetSummary
from .dataset_summary_calendar_rule_type_0 import DatasetSummaryCalendarRuleType0
from .dataset_summary_source import DatasetSummarySource
from .datasets_response import DatasetsResponse
from .datasets_response_meta import DatasetsResponseMeta
from .disaggregated_cot_changes import DisaggregatedCotChanges
from .disaggregated_cot_index import DisaggregatedCotIndex
from .disaggregated_cot_pct_of_oi import DisaggregatedCotPctOfOi
from .disaggregated_cot_report import DisaggregatedCotReport
from .error_body import ErrorBody
from .error_body_error import ErrorBodyError
from .error_code import ErrorCode
from .frequency import Frequency
from .get_series_include import GetSeriesInclude
from .get_supply_demand_include import GetSupplyDemandInclude
from .get_supply_demand_view import GetSupplyDemandView
from .incident import Incident
from .incident_state import IncidentState
from .incident_update import IncidentUpdate
from .incident_update_state import IncidentUpdateState
from .legacy_cot_changes import LegacyCotChanges
from .legacy_cot_index import LegacyCotIndex
from .legacy_cot_pct_of_oi import LegacyCotPctOfOi
from .legacy_cot_report import LegacyCotReport
from .list_releases_status import ListReleasesStatus
from .monthly_lag import MonthlyLag
from .net_only_position_group import NetOnlyPositionGroup
from .notification import Notification
from .notification_data import NotificationData
from .notification_data_topic import NotificationDataTopic
from .notification_type import NotificationType
from .pagination_meta import PaginationMeta
from .position_group import PositionGroup
from .position_group_with_spreading import PositionGroupWithSpreading
from .price_basis import PriceBasis
from .release_record import ReleaseRecord
from .release_record_shifted import ReleaseRecordShifted
from .release_status import ReleaseStatus
from .releases_response import ReleasesResponse
from .releases_response_meta import ReleasesResponseMeta
from .request_meta import RequestMeta
from .scheduled_release import ScheduledRelease
from .series_descriptor import SeriesDescriptor
from .series_meta import SeriesMeta
from .series_response import SeriesResponse
from .series_revision import SeriesRevision
from .series_type import SeriesType
from .sort_order import SortOrder
from .source_status import SourceStatus
from .status_response import StatusResponse
from .status_response_data import StatusResponseData
from .status_response_links import StatusResponseLinks
from .status_response_meta import StatusResponseMeta
from .supply_demand_check import SupplyDemandCheck
from .supply_demand_figure import SupplyDemandFigure
from .supply_demand_meta import SupplyDemandMeta
from .supply_demand_meta_view import SupplyDemandMetaView
from .supply_demand_response import SupplyDemandResponse
from .supply_demand_revision import SupplyDemandRevision
from .supply_demand_status import SupplyDemandStatus
from .sync_source_name import SyncSourceName
from .time_series_point import TimeSeriesPoint
from .transform import Transform
from .unit_conversion import UnitConversion

__all__ = (
    "AvailableSeriesType",
    "BulkFile",
    "BulkFileDataset",
    "BulkFileFormat",
    "BulkFilePlansItem",
    "BulkFileSpan",
    "BulkListResponse",
    "BulkListResponseMeta",
    "Category",
    "CitCotChanges",
    "CitCotIndex",
    "CitCotPctOfOi",
    "CitCotReport",
    "CommodityDetail",
    "CommodityDetailResponse",
    "CommodityIdentifiers",
    "CommodityListResponse",
    "CommoditySummary",
    "ConditionReason",
    "ConditionReasonKind",
    "ConsistencyDay",
    "ConsistencyDayChecks",
    "Conversion",
    "ConversionFrom",
    "ConversionTo",
    "CotCheck",
    "CotFormat",
    "CotGroupChange",
    "CotGroupChangeWithSpreading",
    "CotGroupPctOfOi",
    "CotGroupPctOfOiWithSpreading",
    "CotMeta",
    "CotResponse",
    "CotScope",
    "CurrencyConversion",
    "CurrencyConversionRule",
    "DatasetCondition",
    "DatasetDay",
    "DatasetId",
    "DatasetSummary",
    "DatasetSummaryCalendarRuleType0",
    "DatasetSummarySource",
    "DatasetsResponse",
    "DatasetsResponseMeta",
    "DisaggregatedCotChanges",
    "DisaggregatedCotIndex",
    "DisaggregatedCotPctOfOi",
    "DisaggregatedCotReport",
    "ErrorBody",
    "ErrorBodyError",
    "ErrorCode",
    "Frequency",
    "GetSeriesInclude",
    "GetSupplyDemandInclude",
    "GetSupplyDemandView",
    "Incident",
    "IncidentState",
    "IncidentUpdate",
    "IncidentUpdateState",
    "LegacyCotChanges",
    "LegacyCotIndex",
    "LegacyCotPctOfOi",
    "LegacyCotReport",
    "ListReleasesStatus",
    "MonthlyLag",
    "NetOnlyPositionGroup",
    "Notification",
    "NotificationData",
    "NotificationDataTopic",
    "NotificationType",
    "PaginationMeta",
    "PositionGroup",
    "PositionGroupWithSpreading",
    "PriceBasis",
    "ReleaseRecord",
    "ReleaseRecordShifted",
    "ReleaseStatus",
    "ReleasesResponse",
    "ReleasesResponseMeta",
    "RequestMeta",
    "ScheduledRelease",
    "SeriesDescriptor",
    "SeriesMeta",
    "SeriesResponse",
    "SeriesRevision",
    "SeriesType",
    "SortOrder",
    "SourceStatus",
    "StatusResponse",
    "StatusResponseData",
    "StatusResponseLinks",
    "StatusResponseMeta",
    "SupplyDemandCheck",
    "SupplyDemandFigure",
    "SupplyDemandMeta",
    "SupplyDemandMetaView",
    "SupplyDemandResponse",
    "SupplyDemandRevision",
    "SupplyDemandStatus",
    "SyncSourceName",
    "TimeSeriesPoint",
    "Transform",
    "UnitConversion",
)
