# Generated from schemas/health.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = 'b3230a380678792868ed1f77d32f157856b300b8e2a4c0950b706f49cd64c8bc'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_health_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['timestamp', 'status', 'disk_usage_bytes', 'disk_usage_percent', 'total_facts', 'active_facts', 'archived_facts', 'avg_activation', 'daily_files_count', 'session_files_count', 'embedding_index_size_bytes', 'memory_md_lines', 'last_consolidation', 'consolidation_duration_seconds', 'warnings']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "timestamp" in data_keys:
            data_keys.remove("timestamp")
            data__timestamp = data["timestamp"]
            if not isinstance(data__timestamp, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".timestamp must be string")
            if isinstance(data__timestamp, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__timestamp):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".timestamp must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "status" in data_keys:
            data_keys.remove("status")
            data__status = data["status"]
            if not (isinstance(data__status, str) and data__status == 'healthy' or isinstance(data__status, str) and data__status == 'degraded' or isinstance(data__status, str) and data__status == 'unhealthy'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".status must be one of ['healthy', 'degraded', 'unhealthy']")
        if "disk_usage_bytes" in data_keys:
            data_keys.remove("disk_usage_bytes")
            data__diskusagebytes = data["disk_usage_bytes"]
            if not isinstance(data__diskusagebytes, (int)) and not (isinstance(data__diskusagebytes, float) and data__diskusagebytes.is_integer()) or isinstance(data__diskusagebytes, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".disk_usage_bytes must be integer")
            if isinstance(data__diskusagebytes, (int, float, Decimal)) and not isinstance(data__diskusagebytes, bool):
                if data__diskusagebytes < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".disk_usage_bytes must be bigger than or equal to 0")
        if "disk_usage_percent" in data_keys:
            data_keys.remove("disk_usage_percent")
            data__diskusagepercent = data["disk_usage_percent"]
            if not isinstance(data__diskusagepercent, (int, float, Decimal)) or isinstance(data__diskusagepercent, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".disk_usage_percent must be number")
            if isinstance(data__diskusagepercent, (int, float, Decimal)) and not isinstance(data__diskusagepercent, bool):
                if data__diskusagepercent < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".disk_usage_percent must be bigger than or equal to 0")
                if data__diskusagepercent > 100:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".disk_usage_percent must be smaller than or equal to 100")
        if "total_facts" in data_keys:
            data_keys.remove("total_facts")
            data__totalfacts = data["total_facts"]
            if not isinstance(data__totalfacts, (int)) and not (isinstance(data__totalfacts, float) and data__totalfacts.is_integer()) or isinstance(data__totalfacts, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".total_facts must be integer")
            if isinstance(data__totalfacts, (int, float, Decimal)) and not isinstance(data__totalfacts, bool):
                if data__totalfacts < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".total_facts must be bigger than or equal to 0")
        if "active_facts" in data_keys:
            data_keys.remove("active_facts")
            data__activefacts = data["active_facts"]
            if not isinstance(data__activefacts, (int)) and not (isinstance(data__activefacts, float) and data__activefacts.is_integer()) or isinstance(data__activefacts, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".active_facts must be integer")
            if isinstance(data__activefacts, (int, float, Decimal)) and not isinstance(data__activefacts, bool):
                if data__activefacts < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".active_facts must be bigger than or equal to 0")
        if "archived_facts" in data_keys:
            data_keys.remove("archived_facts")
            data__archivedfacts = data["archived_facts"]
            if not isinstance(data__archivedfacts, (int)) and not (isinstance(data__archivedfacts, float) and data__archivedfacts.is_integer()) or isinstance(data__archivedfacts, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".archived_facts must be integer")
            if isinstance(data__archivedfacts, (int, float, Decimal)) and not isinstance(data__archivedfacts, bool):
                if data__archivedfacts < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".archived_facts must be bigger than or equal to 0")
        if "avg_activation" in data_keys:
            data_keys.remove("avg_activation")
            data__avgactivation = data["avg_activation"]
            if not isinstance(data__avgactivation, (int, float, Decimal, NoneType)) or isinstance(data__avgactivation, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".avg_activation must be number or null")
            if isinstance(data__avgactivation, (int, float, Decimal)) and not isinstance(data__avgactivation, bool):
                if data__avgactivation < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".avg_activation must be bigger than or equal to 0")
                if data__avgactivation > 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".avg_activation must be smaller than or equal to 1")
        if "daily_files_count" in data_keys:
            data_keys.remove("daily_files_count")
            data__dailyfilescount = data["daily_files_count"]
            if not isinstance(data__dailyfilescount, (int)) and not (isinstance(data__dailyfilescount, float) and data__dailyfilescount.is_integer()) or isinstance(data__dailyfilescount, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".daily_files_count must be integer")
            if isinstance(data__dailyfilescount, (int, float, Decimal)) and not isinstance(data__dailyfilescount, bool):
                if data__dailyfilescount < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".daily_files_count must be bigger than or equal to 0")
        if "session_files_count" in data_keys:
            data_keys.remove("session_files_count")
            data__sessionfilescount = data["session_files_count"]
            if not isinstance(data__sessionfilescount, (int)) and not (isinstance(data__sessionfilescount, float) and data__sessionfilescount.is_integer()) or isinstance(data__sessionfilescount, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".session_files_count must be integer")
            if isinstance(data__sessionfilescount, (int, float, Decimal)) and not isinstance(data__sessionfilescount, bool):
                if data__sessionfilescount < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".session_files_count must be bigger than or equal to 0")
        if "embedding_index_size_bytes" in data_keys:
            data_keys.remove("embedding_index_size_bytes")
            data__embeddingindexsizebytes = data["embedding_index_size_bytes"]
            if not isinstance(data__embeddingindexsizebytes, (int)) and not (isinstance(data__embeddingindexsizebytes, float) and data__embeddingindexsizebytes.is_integer()) or isinstance(data__embeddingindexsizebytes, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".embedding_index_size_bytes must be integer")
            if isinstance(data__embeddingindexsizebytes, (int, float, Decimal)) and not isinstance(data__embeddingindexsizebytes, bool):
                if data__embeddingindexsizebytes < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".embedding_index_size_bytes must be bigger than or equal to 0")
        if "memory_md_lines" in data_keys:
            data_keys.remove("memory_md_lines")
            data__memorymdlines = data["memory_md_lines"]
            if not isinstance(data__memorymdlines, (int)) and not (isinstance(data__memorymdlines, float) and data__memorymdlines.is_integer()) or isinstance(data__memorymdlines, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".memory_md_lines must be integer")
            if isinstance(data__memorymdlines, (int, float, Decimal)) and not isinstance(data__memorymdlines, bool):
                if data__memorymdlines < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".memory_md_lines must be bigger than or equal to 0")
        if "last_consolidation" in data_keys:
            data_keys.remove("last_consolidation")
            data__lastconsolidation = data["last_consolidation"]
            data__lastconsolidation_any_of_count1 = 0
            if not data__lastconsolidation_any_of_count1:
                try:
                    if not isinstance(data__lastconsolidation, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".last_consolidation must be string")
                    if isinstance(data__lastconsolidation, str):
                        if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__lastconsolidation):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".last_consolidation must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
                    data__lastconsolidation_any_of_count1 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if not data__lastconsolidation_any_of_count1:
                try:
                    if not isinstance(data__lastconsolidation, (NoneType)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".last_consolidation must be null")
                    data__lastconsolidation_any_of_count1 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if not data__lastconsolidation_any_of_count1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".last_consolidation cannot be validated by any definition")
        if "consolidation_duration_seconds" in data_keys:
            data_keys.remove("consolidation_duration_seconds")
            data__consolidationdurationseconds = data["consolidation_duration_seconds"]
            if not isinstance(data__consolidationdurationseconds, (int, float, Decimal, NoneType)) or isinstance(data__consolidationdurationseconds, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".consolidation_duration_seconds must be number or null")
            if isinstance(data__consolidationdurationseconds, (int, float, Decimal)) and not isinstance(data__consolidationdurationseconds, bool):
                if data__consolidationdurationseconds < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".consolidation_duration_seconds must be bigger than or equal to 0")
        if "warnings" in data_keys:
            data_keys.remove("warnings")
            data__warnings = data["warnings"]
            if not isinstance(data__warnings, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".warnings must be array")
            data__warnings_is_list = isinstance(data__warnings, (list, tuple))
            if data__warnings_is_list:
                data__warnings_len = len(data__warnings)
                for data__warnings_x, data__warnings_item in enumerate(data__warnings):
                    if not isinstance(data__warnings_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".warnings[{data__warnings_x}]".format(**locals()) + " must be string")
                    if isinstance(data__warnings_item, str):
                        data__warnings_item_len = len(data__warnings_item)
                        if data__warnings_item_len > 1000:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".warnings[{data__warnings_x}]".format(**locals()) + " must be shorter than or equal to 1000 characters")
        if "findings" in data_keys:
            data_keys.remove("findings")
            data__findings = data["findings"]
            if not isinstance(data__findings, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings must be array")
            data__findings_is_list = isinstance(data__findings, (list, tuple))
            if data__findings_is_list:
                data__findings_len = len(data__findings)
                for data__findings_x, data__findings_item in enumerate(data__findings):
                    if not isinstance(data__findings_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings[{data__findings_x}]".format(**locals()) + " must be object")
                    data__findings_item_is_dict = isinstance(data__findings_item, dict)
                    if data__findings_item_is_dict:
                        data__findings_item__missing_keys = set(['code', 'severity', 'message']) - data__findings_item.keys()
                        if data__findings_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings[{data__findings_x}]".format(**locals()) + " must contain ")
                        data__findings_item_keys = set(data__findings_item.keys())
                        if "code" in data__findings_item_keys:
                            data__findings_item_keys.remove("code")
                            data__findings_item__code = data__findings_item["code"]
                            if not isinstance(data__findings_item__code, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings[{data__findings_x}].code".format(**locals()) + " must be string")
                            if isinstance(data__findings_item__code, str):
                                data__findings_item__code_len = len(data__findings_item__code)
                                if data__findings_item__code_len > 64:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings[{data__findings_x}].code".format(**locals()) + " must be shorter than or equal to 64 characters")
                        if "severity" in data__findings_item_keys:
                            data__findings_item_keys.remove("severity")
                            data__findings_item__severity = data__findings_item["severity"]
                            if not (isinstance(data__findings_item__severity, str) and data__findings_item__severity == 'warning' or isinstance(data__findings_item__severity, str) and data__findings_item__severity == 'critical'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings[{data__findings_x}].severity".format(**locals()) + " must be one of ['warning', 'critical']")
                        if "message" in data__findings_item_keys:
                            data__findings_item_keys.remove("message")
                            data__findings_item__message = data__findings_item["message"]
                            if not isinstance(data__findings_item__message, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings[{data__findings_x}].message".format(**locals()) + " must be string")
                            if isinstance(data__findings_item__message, str):
                                data__findings_item__message_len = len(data__findings_item__message)
                                if data__findings_item__message_len > 1000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings[{data__findings_x}].message".format(**locals()) + " must be shorter than or equal to 1000 characters")
                        if data__findings_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".findings[{data__findings_x}]".format(**locals()) + " must not contain "+str(data__findings_item_keys)+" properties")
        if "pinned_facts" in data_keys:
            data_keys.remove("pinned_facts")
            data__pinnedfacts = data["pinned_facts"]
            if not isinstance(data__pinnedfacts, (int)) and not (isinstance(data__pinnedfacts, float) and data__pinnedfacts.is_integer()) or isinstance(data__pinnedfacts, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".pinned_facts must be integer")
            if isinstance(data__pinnedfacts, (int, float, Decimal)) and not isinstance(data__pinnedfacts, bool):
                if data__pinnedfacts < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".pinned_facts must be bigger than or equal to 0")
        if "superseded_facts" in data_keys:
            data_keys.remove("superseded_facts")
            data__supersededfacts = data["superseded_facts"]
            if not isinstance(data__supersededfacts, (int)) and not (isinstance(data__supersededfacts, float) and data__supersededfacts.is_integer()) or isinstance(data__supersededfacts, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".superseded_facts must be integer")
            if isinstance(data__supersededfacts, (int, float, Decimal)) and not isinstance(data__supersededfacts, bool):
                if data__supersededfacts < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".superseded_facts must be bigger than or equal to 0")
        if "index" in data_keys:
            data_keys.remove("index")
            data__index = data["index"]
            if not isinstance(data__index, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".index must be object")
        if "text_index" in data_keys:
            data_keys.remove("text_index")
            data__textindex = data["text_index"]
            if not isinstance(data__textindex, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".text_index must be object")
        if "embedder" in data_keys:
            data_keys.remove("embedder")
            data__embedder = data["embedder"]
            if not isinstance(data__embedder, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".embedder must be object")
        if "last_probe" in data_keys:
            data_keys.remove("last_probe")
            data__lastprobe = data["last_probe"]
            if not isinstance(data__lastprobe, (dict, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".last_probe must be object or null")
        if "quarantined_lines" in data_keys:
            data_keys.remove("quarantined_lines")
            data__quarantinedlines = data["quarantined_lines"]
            if not isinstance(data__quarantinedlines, (int)) and not (isinstance(data__quarantinedlines, float) and data__quarantinedlines.is_integer()) or isinstance(data__quarantinedlines, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".quarantined_lines must be integer")
            if isinstance(data__quarantinedlines, (int, float, Decimal)) and not isinstance(data__quarantinedlines, bool):
                if data__quarantinedlines < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".quarantined_lines must be bigger than or equal to 0")
        if "invalid_lines" in data_keys:
            data_keys.remove("invalid_lines")
            data__invalidlines = data["invalid_lines"]
            if not isinstance(data__invalidlines, (int)) and not (isinstance(data__invalidlines, float) and data__invalidlines.is_integer()) or isinstance(data__invalidlines, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".invalid_lines must be integer")
            if isinstance(data__invalidlines, (int, float, Decimal)) and not isinstance(data__invalidlines, bool):
                if data__invalidlines < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".invalid_lines must be bigger than or equal to 0")
        if "redactions" in data_keys:
            data_keys.remove("redactions")
            data__redactions = data["redactions"]
            if not isinstance(data__redactions, (int)) and not (isinstance(data__redactions, float) and data__redactions.is_integer()) or isinstance(data__redactions, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".redactions must be integer")
            if isinstance(data__redactions, (int, float, Decimal)) and not isinstance(data__redactions, bool):
                if data__redactions < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".redactions must be bigger than or equal to 0")
        if "pending_proposals" in data_keys:
            data_keys.remove("pending_proposals")
            data__pendingproposals = data["pending_proposals"]
            if not isinstance(data__pendingproposals, (int)) and not (isinstance(data__pendingproposals, float) and data__pendingproposals.is_integer()) or isinstance(data__pendingproposals, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".pending_proposals must be integer")
            if isinstance(data__pendingproposals, (int, float, Decimal)) and not isinstance(data__pendingproposals, bool):
                if data__pendingproposals < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".pending_proposals must be bigger than or equal to 0")
        if "data_path" in data_keys:
            data_keys.remove("data_path")
            data__datapath = data["data_path"]
            if not isinstance(data__datapath, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".data_path must be string")
            if isinstance(data__datapath, str):
                data__datapath_len = len(data__datapath)
                if data__datapath_len > 4096:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".data_path must be shorter than or equal to 4096 characters")
        if "repairs" in data_keys:
            data_keys.remove("repairs")
            data__repairs = data["repairs"]
            if not isinstance(data__repairs, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs must be array")
            data__repairs_is_list = isinstance(data__repairs, (list, tuple))
            if data__repairs_is_list:
                data__repairs_len = len(data__repairs)
                if data__repairs_len > 20:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs must contain less than or equal to 20 items")
                for data__repairs_x, data__repairs_item in enumerate(data__repairs):
                    if not isinstance(data__repairs_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}]".format(**locals()) + " must be object")
                    data__repairs_item_is_dict = isinstance(data__repairs_item, dict)
                    if data__repairs_item_is_dict:
                        data__repairs_item__missing_keys = set(['at', 'action', 'repair']) - data__repairs_item.keys()
                        if data__repairs_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}]".format(**locals()) + " must contain ")
                        data__repairs_item_keys = set(data__repairs_item.keys())
                        if "at" in data__repairs_item_keys:
                            data__repairs_item_keys.remove("at")
                            data__repairs_item__at = data__repairs_item["at"]
                            if not isinstance(data__repairs_item__at, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}].at".format(**locals()) + " must be string")
                            if isinstance(data__repairs_item__at, str):
                                data__repairs_item__at_len = len(data__repairs_item__at)
                                if data__repairs_item__at_len > 64:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}].at".format(**locals()) + " must be shorter than or equal to 64 characters")
                        if "action" in data__repairs_item_keys:
                            data__repairs_item_keys.remove("action")
                            data__repairs_item__action = data__repairs_item["action"]
                            if not isinstance(data__repairs_item__action, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}].action".format(**locals()) + " must be string")
                            if isinstance(data__repairs_item__action, str):
                                data__repairs_item__action_len = len(data__repairs_item__action)
                                if data__repairs_item__action_len > 64:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}].action".format(**locals()) + " must be shorter than or equal to 64 characters")
                        if "repair" in data__repairs_item_keys:
                            data__repairs_item_keys.remove("repair")
                            data__repairs_item__repair = data__repairs_item["repair"]
                            if not isinstance(data__repairs_item__repair, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}].repair".format(**locals()) + " must be string")
                            if isinstance(data__repairs_item__repair, str):
                                data__repairs_item__repair_len = len(data__repairs_item__repair)
                                if data__repairs_item__repair_len > 1000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}].repair".format(**locals()) + " must be shorter than or equal to 1000 characters")
                        if data__repairs_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}]".format(**locals()) + " must not contain "+str(data__repairs_item_keys)+" properties")
        if "stale_references" in data_keys:
            data_keys.remove("stale_references")
            data__stalereferences = data["stale_references"]
            if not isinstance(data__stalereferences, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references must be array")
            data__stalereferences_is_list = isinstance(data__stalereferences, (list, tuple))
            if data__stalereferences_is_list:
                data__stalereferences_len = len(data__stalereferences)
                for data__stalereferences_x, data__stalereferences_item in enumerate(data__stalereferences):
                    if not isinstance(data__stalereferences_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}]".format(**locals()) + " must be object")
                    data__stalereferences_item_is_dict = isinstance(data__stalereferences_item, dict)
                    if data__stalereferences_item_is_dict:
                        data__stalereferences_item__missing_keys = set(['fact', 'gone', 'present', 'unchecked']) - data__stalereferences_item.keys()
                        if data__stalereferences_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}]".format(**locals()) + " must contain ")
                        data__stalereferences_item_keys = set(data__stalereferences_item.keys())
                        if "fact" in data__stalereferences_item_keys:
                            data__stalereferences_item_keys.remove("fact")
                            data__stalereferences_item__fact = data__stalereferences_item["fact"]
                            if not isinstance(data__stalereferences_item__fact, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].fact".format(**locals()) + " must be string")
                            if isinstance(data__stalereferences_item__fact, str):
                                data__stalereferences_item__fact_len = len(data__stalereferences_item__fact)
                                if data__stalereferences_item__fact_len > 64:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].fact".format(**locals()) + " must be shorter than or equal to 64 characters")
                        if "gone" in data__stalereferences_item_keys:
                            data__stalereferences_item_keys.remove("gone")
                            data__stalereferences_item__gone = data__stalereferences_item["gone"]
                            if not isinstance(data__stalereferences_item__gone, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].gone".format(**locals()) + " must be array")
                            data__stalereferences_item__gone_is_list = isinstance(data__stalereferences_item__gone, (list, tuple))
                            if data__stalereferences_item__gone_is_list:
                                data__stalereferences_item__gone_len = len(data__stalereferences_item__gone)
                                for data__stalereferences_item__gone_x, data__stalereferences_item__gone_item in enumerate(data__stalereferences_item__gone):
                                    if not isinstance(data__stalereferences_item__gone_item, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].gone[{data__stalereferences_item__gone_x}]".format(**locals()) + " must be string")
                                    if isinstance(data__stalereferences_item__gone_item, str):
                                        data__stalereferences_item__gone_item_len = len(data__stalereferences_item__gone_item)
                                        if data__stalereferences_item__gone_item_len > 2000:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].gone[{data__stalereferences_item__gone_x}]".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if "present" in data__stalereferences_item_keys:
                            data__stalereferences_item_keys.remove("present")
                            data__stalereferences_item__present = data__stalereferences_item["present"]
                            if not isinstance(data__stalereferences_item__present, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].present".format(**locals()) + " must be array")
                            data__stalereferences_item__present_is_list = isinstance(data__stalereferences_item__present, (list, tuple))
                            if data__stalereferences_item__present_is_list:
                                data__stalereferences_item__present_len = len(data__stalereferences_item__present)
                                for data__stalereferences_item__present_x, data__stalereferences_item__present_item in enumerate(data__stalereferences_item__present):
                                    if not isinstance(data__stalereferences_item__present_item, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].present[{data__stalereferences_item__present_x}]".format(**locals()) + " must be string")
                                    if isinstance(data__stalereferences_item__present_item, str):
                                        data__stalereferences_item__present_item_len = len(data__stalereferences_item__present_item)
                                        if data__stalereferences_item__present_item_len > 2000:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].present[{data__stalereferences_item__present_x}]".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if "unchecked" in data__stalereferences_item_keys:
                            data__stalereferences_item_keys.remove("unchecked")
                            data__stalereferences_item__unchecked = data__stalereferences_item["unchecked"]
                            if not isinstance(data__stalereferences_item__unchecked, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].unchecked".format(**locals()) + " must be array")
                            data__stalereferences_item__unchecked_is_list = isinstance(data__stalereferences_item__unchecked, (list, tuple))
                            if data__stalereferences_item__unchecked_is_list:
                                data__stalereferences_item__unchecked_len = len(data__stalereferences_item__unchecked)
                                for data__stalereferences_item__unchecked_x, data__stalereferences_item__unchecked_item in enumerate(data__stalereferences_item__unchecked):
                                    if not isinstance(data__stalereferences_item__unchecked_item, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].unchecked[{data__stalereferences_item__unchecked_x}]".format(**locals()) + " must be string")
                                    if isinstance(data__stalereferences_item__unchecked_item, str):
                                        data__stalereferences_item__unchecked_item_len = len(data__stalereferences_item__unchecked_item)
                                        if data__stalereferences_item__unchecked_item_len > 2000:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}].unchecked[{data__stalereferences_item__unchecked_x}]".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if data__stalereferences_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".stale_references[{data__stalereferences_x}]".format(**locals()) + " must not contain "+str(data__stalereferences_item_keys)+" properties")
        if "damaged_files" in data_keys:
            data_keys.remove("damaged_files")
            data__damagedfiles = data["damaged_files"]
            if not isinstance(data__damagedfiles, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".damaged_files must be array")
            data__damagedfiles_is_list = isinstance(data__damagedfiles, (list, tuple))
            if data__damagedfiles_is_list:
                data__damagedfiles_len = len(data__damagedfiles)
                for data__damagedfiles_x, data__damagedfiles_item in enumerate(data__damagedfiles):
                    if not isinstance(data__damagedfiles_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".damaged_files[{data__damagedfiles_x}]".format(**locals()) + " must be object")
                    data__damagedfiles_item_is_dict = isinstance(data__damagedfiles_item, dict)
                    if data__damagedfiles_item_is_dict:
                        data__damagedfiles_item__missing_keys = set(['file', 'problem']) - data__damagedfiles_item.keys()
                        if data__damagedfiles_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".damaged_files[{data__damagedfiles_x}]".format(**locals()) + " must contain ")
                        data__damagedfiles_item_keys = set(data__damagedfiles_item.keys())
                        if "file" in data__damagedfiles_item_keys:
                            data__damagedfiles_item_keys.remove("file")
                            data__damagedfiles_item__file = data__damagedfiles_item["file"]
                            if not isinstance(data__damagedfiles_item__file, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".damaged_files[{data__damagedfiles_x}].file".format(**locals()) + " must be string")
                            if isinstance(data__damagedfiles_item__file, str):
                                data__damagedfiles_item__file_len = len(data__damagedfiles_item__file)
                                if data__damagedfiles_item__file_len > 4096:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".damaged_files[{data__damagedfiles_x}].file".format(**locals()) + " must be shorter than or equal to 4096 characters")
                        if "problem" in data__damagedfiles_item_keys:
                            data__damagedfiles_item_keys.remove("problem")
                            data__damagedfiles_item__problem = data__damagedfiles_item["problem"]
                            if not isinstance(data__damagedfiles_item__problem, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".damaged_files[{data__damagedfiles_x}].problem".format(**locals()) + " must be string")
                            if isinstance(data__damagedfiles_item__problem, str):
                                data__damagedfiles_item__problem_len = len(data__damagedfiles_item__problem)
                                if data__damagedfiles_item__problem_len > 2000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".damaged_files[{data__damagedfiles_x}].problem".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if data__damagedfiles_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".damaged_files[{data__damagedfiles_x}]".format(**locals()) + " must not contain "+str(data__damagedfiles_item_keys)+" properties")
        if "openclaw" in data_keys:
            data_keys.remove("openclaw")
            data__openclaw = data["openclaw"]
            if not isinstance(data__openclaw, (dict, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw must be object or null")
            data__openclaw_is_dict = isinstance(data__openclaw, dict)
            if data__openclaw_is_dict:
                data__openclaw__missing_keys = set(['state_dir', 'agents', 'problems']) - data__openclaw.keys()
                if data__openclaw__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw must contain ")
                data__openclaw_keys = set(data__openclaw.keys())
                if "state_dir" in data__openclaw_keys:
                    data__openclaw_keys.remove("state_dir")
                    data__openclaw__statedir = data__openclaw["state_dir"]
                    if not isinstance(data__openclaw__statedir, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.state_dir must be string")
                if "bootstrap_max_chars" in data__openclaw_keys:
                    data__openclaw_keys.remove("bootstrap_max_chars")
                    data__openclaw__bootstrapmaxchars = data__openclaw["bootstrap_max_chars"]
                    if not isinstance(data__openclaw__bootstrapmaxchars, (int)) and not (isinstance(data__openclaw__bootstrapmaxchars, float) and data__openclaw__bootstrapmaxchars.is_integer()) or isinstance(data__openclaw__bootstrapmaxchars, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.bootstrap_max_chars must be integer")
                if "bootstrap_total_max_chars" in data__openclaw_keys:
                    data__openclaw_keys.remove("bootstrap_total_max_chars")
                    data__openclaw__bootstraptotalmaxchars = data__openclaw["bootstrap_total_max_chars"]
                    if not isinstance(data__openclaw__bootstraptotalmaxchars, (int)) and not (isinstance(data__openclaw__bootstraptotalmaxchars, float) and data__openclaw__bootstraptotalmaxchars.is_integer()) or isinstance(data__openclaw__bootstraptotalmaxchars, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.bootstrap_total_max_chars must be integer")
                if "agents" in data__openclaw_keys:
                    data__openclaw_keys.remove("agents")
                    data__openclaw__agents = data__openclaw["agents"]
                    if not isinstance(data__openclaw__agents, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents must be array")
                    data__openclaw__agents_is_list = isinstance(data__openclaw__agents, (list, tuple))
                    if data__openclaw__agents_is_list:
                        data__openclaw__agents_len = len(data__openclaw__agents)
                        for data__openclaw__agents_x, data__openclaw__agents_item in enumerate(data__openclaw__agents):
                            if not isinstance(data__openclaw__agents_item, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents[{data__openclaw__agents_x}]".format(**locals()) + " must be object")
                            data__openclaw__agents_item_is_dict = isinstance(data__openclaw__agents_item, dict)
                            if data__openclaw__agents_item_is_dict:
                                data__openclaw__agents_item__missing_keys = set(['id', 'workspace', 'database', 'database_found']) - data__openclaw__agents_item.keys()
                                if data__openclaw__agents_item__missing_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents[{data__openclaw__agents_x}]".format(**locals()) + " must contain ")
                                data__openclaw__agents_item_keys = set(data__openclaw__agents_item.keys())
                                if "id" in data__openclaw__agents_item_keys:
                                    data__openclaw__agents_item_keys.remove("id")
                                    data__openclaw__agents_item__id = data__openclaw__agents_item["id"]
                                    if not isinstance(data__openclaw__agents_item__id, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents[{data__openclaw__agents_x}].id".format(**locals()) + " must be string")
                                if "workspace" in data__openclaw__agents_item_keys:
                                    data__openclaw__agents_item_keys.remove("workspace")
                                    data__openclaw__agents_item__workspace = data__openclaw__agents_item["workspace"]
                                    if not isinstance(data__openclaw__agents_item__workspace, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents[{data__openclaw__agents_x}].workspace".format(**locals()) + " must be string")
                                if "database" in data__openclaw__agents_item_keys:
                                    data__openclaw__agents_item_keys.remove("database")
                                    data__openclaw__agents_item__database = data__openclaw__agents_item["database"]
                                    if not isinstance(data__openclaw__agents_item__database, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents[{data__openclaw__agents_x}].database".format(**locals()) + " must be string")
                                if "database_found" in data__openclaw__agents_item_keys:
                                    data__openclaw__agents_item_keys.remove("database_found")
                                    data__openclaw__agents_item__databasefound = data__openclaw__agents_item["database_found"]
                                    if not isinstance(data__openclaw__agents_item__databasefound, (bool)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents[{data__openclaw__agents_x}].database_found".format(**locals()) + " must be boolean")
                                if "memory_md_chars" in data__openclaw__agents_item_keys:
                                    data__openclaw__agents_item_keys.remove("memory_md_chars")
                                    data__openclaw__agents_item__memorymdchars = data__openclaw__agents_item["memory_md_chars"]
                                    if not isinstance(data__openclaw__agents_item__memorymdchars, (int, NoneType)) and not (isinstance(data__openclaw__agents_item__memorymdchars, float) and data__openclaw__agents_item__memorymdchars.is_integer()) or isinstance(data__openclaw__agents_item__memorymdchars, bool):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents[{data__openclaw__agents_x}].memory_md_chars".format(**locals()) + " must be integer or null")
                                if "memory_md_budget" in data__openclaw__agents_item_keys:
                                    data__openclaw__agents_item_keys.remove("memory_md_budget")
                                    data__openclaw__agents_item__memorymdbudget = data__openclaw__agents_item["memory_md_budget"]
                                    if not isinstance(data__openclaw__agents_item__memorymdbudget, (int)) and not (isinstance(data__openclaw__agents_item__memorymdbudget, float) and data__openclaw__agents_item__memorymdbudget.is_integer()) or isinstance(data__openclaw__agents_item__memorymdbudget, bool):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.agents[{data__openclaw__agents_x}].memory_md_budget".format(**locals()) + " must be integer")
                if "problems" in data__openclaw_keys:
                    data__openclaw_keys.remove("problems")
                    data__openclaw__problems = data__openclaw["problems"]
                    if not isinstance(data__openclaw__problems, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.problems must be array")
                    data__openclaw__problems_is_list = isinstance(data__openclaw__problems, (list, tuple))
                    if data__openclaw__problems_is_list:
                        data__openclaw__problems_len = len(data__openclaw__problems)
                        for data__openclaw__problems_x, data__openclaw__problems_item in enumerate(data__openclaw__problems):
                            if not isinstance(data__openclaw__problems_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.problems[{data__openclaw__problems_x}]".format(**locals()) + " must be string")
                if "excluded" in data__openclaw_keys:
                    data__openclaw_keys.remove("excluded")
                    data__openclaw__excluded = data__openclaw["excluded"]
                    if not isinstance(data__openclaw__excluded, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.excluded must be object")
                    data__openclaw__excluded_is_dict = isinstance(data__openclaw__excluded, dict)
                    if data__openclaw__excluded_is_dict:
                        data__openclaw__excluded_keys = set(data__openclaw__excluded.keys())
                        for data__openclaw__excluded_key in data__openclaw__excluded_keys:
                            if data__openclaw__excluded_key not in []:
                                data__openclaw__excluded_value = data__openclaw__excluded.get(data__openclaw__excluded_key)
                                if not isinstance(data__openclaw__excluded_value, (dict)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.excluded.{data__openclaw__excluded_key}".format(**locals()) + " must be object")
                                data__openclaw__excluded_value_is_dict = isinstance(data__openclaw__excluded_value, dict)
                                if data__openclaw__excluded_value_is_dict:
                                    data__openclaw__excluded_value__missing_keys = set(['sessions', 'events']) - data__openclaw__excluded_value.keys()
                                    if data__openclaw__excluded_value__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.excluded.{data__openclaw__excluded_key}".format(**locals()) + " must contain ")
                                    data__openclaw__excluded_value_keys = set(data__openclaw__excluded_value.keys())
                                    if "sessions" in data__openclaw__excluded_value_keys:
                                        data__openclaw__excluded_value_keys.remove("sessions")
                                        data__openclaw__excluded_value__sessions = data__openclaw__excluded_value["sessions"]
                                        if not isinstance(data__openclaw__excluded_value__sessions, (int)) and not (isinstance(data__openclaw__excluded_value__sessions, float) and data__openclaw__excluded_value__sessions.is_integer()) or isinstance(data__openclaw__excluded_value__sessions, bool):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.excluded.{data__openclaw__excluded_key}.sessions".format(**locals()) + " must be integer")
                                        if isinstance(data__openclaw__excluded_value__sessions, (int, float, Decimal)) and not isinstance(data__openclaw__excluded_value__sessions, bool):
                                            if data__openclaw__excluded_value__sessions < 1:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.excluded.{data__openclaw__excluded_key}.sessions".format(**locals()) + " must be bigger than or equal to 1")
                                    if "events" in data__openclaw__excluded_value_keys:
                                        data__openclaw__excluded_value_keys.remove("events")
                                        data__openclaw__excluded_value__events = data__openclaw__excluded_value["events"]
                                        if not isinstance(data__openclaw__excluded_value__events, (int)) and not (isinstance(data__openclaw__excluded_value__events, float) and data__openclaw__excluded_value__events.is_integer()) or isinstance(data__openclaw__excluded_value__events, bool):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.excluded.{data__openclaw__excluded_key}.events".format(**locals()) + " must be integer")
                                        if isinstance(data__openclaw__excluded_value__events, (int, float, Decimal)) and not isinstance(data__openclaw__excluded_value__events, bool):
                                            if data__openclaw__excluded_value__events < 0:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.excluded.{data__openclaw__excluded_key}.events".format(**locals()) + " must be bigger than or equal to 0")
                                    if data__openclaw__excluded_value_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".openclaw.excluded.{data__openclaw__excluded_key}".format(**locals()) + " must not contain "+str(data__openclaw__excluded_value_keys)+" properties")
        if "refused" in data_keys:
            data_keys.remove("refused")
            data__refused = data["refused"]
            if not isinstance(data__refused, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused must be array")
            data__refused_is_list = isinstance(data__refused, (list, tuple))
            if data__refused_is_list:
                data__refused_len = len(data__refused)
                for data__refused_x, data__refused_item in enumerate(data__refused):
                    if not isinstance(data__refused_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}]".format(**locals()) + " must be object")
                    data__refused_item_is_dict = isinstance(data__refused_item, dict)
                    if data__refused_item_is_dict:
                        data__refused_item__missing_keys = set(['file', 'problem', 'fix']) - data__refused_item.keys()
                        if data__refused_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}]".format(**locals()) + " must contain ")
                        data__refused_item_keys = set(data__refused_item.keys())
                        if "file" in data__refused_item_keys:
                            data__refused_item_keys.remove("file")
                            data__refused_item__file = data__refused_item["file"]
                            if not isinstance(data__refused_item__file, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}].file".format(**locals()) + " must be string")
                            if isinstance(data__refused_item__file, str):
                                data__refused_item__file_len = len(data__refused_item__file)
                                if data__refused_item__file_len > 4096:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}].file".format(**locals()) + " must be shorter than or equal to 4096 characters")
                        if "problem" in data__refused_item_keys:
                            data__refused_item_keys.remove("problem")
                            data__refused_item__problem = data__refused_item["problem"]
                            if not isinstance(data__refused_item__problem, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}].problem".format(**locals()) + " must be string")
                            if isinstance(data__refused_item__problem, str):
                                data__refused_item__problem_len = len(data__refused_item__problem)
                                if data__refused_item__problem_len > 2000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}].problem".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if "fix" in data__refused_item_keys:
                            data__refused_item_keys.remove("fix")
                            data__refused_item__fix = data__refused_item["fix"]
                            if not isinstance(data__refused_item__fix, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}].fix".format(**locals()) + " must be string")
                            if isinstance(data__refused_item__fix, str):
                                data__refused_item__fix_len = len(data__refused_item__fix)
                                if data__refused_item__fix_len > 8500:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}].fix".format(**locals()) + " must be shorter than or equal to 8500 characters")
                        if data__refused_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".refused[{data__refused_x}]".format(**locals()) + " must not contain "+str(data__refused_item_keys)+" properties")
        if "problems" in data_keys:
            data_keys.remove("problems")
            data__problems = data["problems"]
            if not isinstance(data__problems, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems must be array")
            data__problems_is_list = isinstance(data__problems, (list, tuple))
            if data__problems_is_list:
                data__problems_len = len(data__problems)
                for data__problems_x, data__problems_item in enumerate(data__problems):
                    if not isinstance(data__problems_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}]".format(**locals()) + " must be object")
                    data__problems_item_is_dict = isinstance(data__problems_item, dict)
                    if data__problems_item_is_dict:
                        data__problems_item__missing_keys = set(['code', 'file', 'message', 'repairable']) - data__problems_item.keys()
                        if data__problems_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}]".format(**locals()) + " must contain ")
                        data__problems_item_keys = set(data__problems_item.keys())
                        if "code" in data__problems_item_keys:
                            data__problems_item_keys.remove("code")
                            data__problems_item__code = data__problems_item["code"]
                            if not isinstance(data__problems_item__code, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}].code".format(**locals()) + " must be string")
                            if isinstance(data__problems_item__code, str):
                                data__problems_item__code_len = len(data__problems_item__code)
                                if data__problems_item__code_len > 64:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}].code".format(**locals()) + " must be shorter than or equal to 64 characters")
                        if "file" in data__problems_item_keys:
                            data__problems_item_keys.remove("file")
                            data__problems_item__file = data__problems_item["file"]
                            if not isinstance(data__problems_item__file, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}].file".format(**locals()) + " must be string")
                            if isinstance(data__problems_item__file, str):
                                data__problems_item__file_len = len(data__problems_item__file)
                                if data__problems_item__file_len > 4096:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}].file".format(**locals()) + " must be shorter than or equal to 4096 characters")
                        if "message" in data__problems_item_keys:
                            data__problems_item_keys.remove("message")
                            data__problems_item__message = data__problems_item["message"]
                            if not isinstance(data__problems_item__message, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}].message".format(**locals()) + " must be string")
                            if isinstance(data__problems_item__message, str):
                                data__problems_item__message_len = len(data__problems_item__message)
                                if data__problems_item__message_len > 8500:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}].message".format(**locals()) + " must be shorter than or equal to 8500 characters")
                        if "repairable" in data__problems_item_keys:
                            data__problems_item_keys.remove("repairable")
                            data__problems_item__repairable = data__problems_item["repairable"]
                            if not isinstance(data__problems_item__repairable, (bool)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}].repairable".format(**locals()) + " must be boolean")
                        if data__problems_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".problems[{data__problems_x}]".format(**locals()) + " must not contain "+str(data__problems_item_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_health_schema_json
