# Generated from schemas/consolidation-checkpoint.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '7e369a5b827ee449c41c9df7859ed03e273d13288754e7f23836879d50471836'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_consolidation_checkpoint_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['started_at', 'completed', 'reports']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "started_at" in data_keys:
            data_keys.remove("started_at")
            data__startedat = data["started_at"]
            if not isinstance(data__startedat, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".started_at must be string")
            if isinstance(data__startedat, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__startedat):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".started_at must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "actor" in data_keys:
            data_keys.remove("actor")
            data__actor = data["actor"]
            if not isinstance(data__actor, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".actor must be string")
            if isinstance(data__actor, str):
                data__actor_len = len(data__actor)
                if data__actor_len > 64:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".actor must be shorter than or equal to 64 characters")
        if "completed" in data_keys:
            data_keys.remove("completed")
            data__completed = data["completed"]
            if not isinstance(data__completed, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".completed must be array")
            data__completed_is_list = isinstance(data__completed, (list, tuple))
            if data__completed_is_list:
                data__completed_len = len(data__completed)
                for data__completed_x, data__completed_item in enumerate(data__completed):
                    if not (isinstance(data__completed_item, str) and data__completed_item == 'summarize' or isinstance(data__completed_item, str) and data__completed_item == 'decay' or isinstance(data__completed_item, str) and data__completed_item == 'index' or isinstance(data__completed_item, str) and data__completed_item == 'merge' or isinstance(data__completed_item, str) and data__completed_item == 'stale' or isinstance(data__completed_item, str) and data__completed_item == 'prune' or isinstance(data__completed_item, str) and data__completed_item == 'memory_md' or isinstance(data__completed_item, str) and data__completed_item == 'clean' or isinstance(data__completed_item, str) and data__completed_item == 'health'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".completed[{data__completed_x}]".format(**locals()) + " must be one of ['summarize', 'decay', 'index', 'merge', 'stale', 'prune', 'memory_md', 'clean', 'health']")
        if "reports" in data_keys:
            data_keys.remove("reports")
            data__reports = data["reports"]
            if not isinstance(data__reports, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".reports must be object")
            data__reports_is_dict = isinstance(data__reports, dict)
            if data__reports_is_dict:
                data__reports_keys = set(data__reports.keys())
                for data__reports_key in data__reports_keys:
                    if data__reports_key not in []:
                        data__reports_value = data__reports.get(data__reports_key)
                        if not isinstance(data__reports_value, (dict)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".reports.{data__reports_key}".format(**locals()) + " must be object")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_consolidation_checkpoint_schema_json
