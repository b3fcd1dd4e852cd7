# Generated from schemas/audit-entry.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '2df749efa6768ce1be7c6f9e049064d757d5ed0cb2632428356fee15c103835c'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z'),
    '^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_audit_entry_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['at', 'actor', 'action', 'files', 'change']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "at" in data_keys:
            data_keys.remove("at")
            data__at = data["at"]
            if not isinstance(data__at, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".at must be string")
            if isinstance(data__at, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__at):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".at must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "actor" in data_keys:
            data_keys.remove("actor")
            data__actor = data["actor"]
            if not isinstance(data__actor, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".actor must be string")
            if isinstance(data__actor, str):
                data__actor_len = len(data__actor)
                if data__actor_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".actor must be longer than or equal to 1 characters")
                if data__actor_len > 64:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".actor must be shorter than or equal to 64 characters")
        if "action" in data_keys:
            data_keys.remove("action")
            data__action = data["action"]
            if not isinstance(data__action, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must be string")
            if isinstance(data__action, str):
                data__action_len = len(data__action)
                if data__action_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must be longer than or equal to 1 characters")
                if data__action_len > 64:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must be shorter than or equal to 64 characters")
        if "step" in data_keys:
            data_keys.remove("step")
            data__step = data["step"]
            if not isinstance(data__step, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".step must be string")
            if isinstance(data__step, str):
                data__step_len = len(data__step)
                if data__step_len > 200:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".step must be shorter than or equal to 200 characters")
        if "files" in data_keys:
            data_keys.remove("files")
            data__files = data["files"]
            if not isinstance(data__files, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".files must be array")
            data__files_is_list = isinstance(data__files, (list, tuple))
            if data__files_is_list:
                data__files_len = len(data__files)
                for data__files_x, data__files_item in enumerate(data__files):
                    if not isinstance(data__files_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".files[{data__files_x}]".format(**locals()) + " must be string")
                    if isinstance(data__files_item, str):
                        data__files_item_len = len(data__files_item)
                        if data__files_item_len > 512:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".files[{data__files_x}]".format(**locals()) + " must be shorter than or equal to 512 characters")
        if "change" in data_keys:
            data_keys.remove("change")
            data__change = data["change"]
            if not isinstance(data__change, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".change must be string")
            if isinstance(data__change, str):
                data__change_len = len(data__change)
                if data__change_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".change must be longer than or equal to 1 characters")
                if data__change_len > 4000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".change must be shorter than or equal to 4000 characters")
        if "ids" in data_keys:
            data_keys.remove("ids")
            data__ids = data["ids"]
            if not isinstance(data__ids, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ids must be array")
            data__ids_is_list = isinstance(data__ids, (list, tuple))
            if data__ids_is_list:
                data__ids_len = len(data__ids)
                if data__ids_len > 50:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ids must contain less than or equal to 50 items")
                for data__ids_x, data__ids_item in enumerate(data__ids):
                    if not isinstance(data__ids_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ids[{data__ids_x}]".format(**locals()) + " must be string")
                    if isinstance(data__ids_item, str):
                        if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__ids_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ids[{data__ids_x}]".format(**locals()) + " must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "more_ids" in data_keys:
            data_keys.remove("more_ids")
            data__moreids = data["more_ids"]
            if not isinstance(data__moreids, (int)) and not (isinstance(data__moreids, float) and data__moreids.is_integer()) or isinstance(data__moreids, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".more_ids must be integer")
            if isinstance(data__moreids, (int, float, Decimal)) and not isinstance(data__moreids, bool):
                if data__moreids < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".more_ids must be bigger than or equal to 0")
        if "redactions" in data_keys:
            data_keys.remove("redactions")
            data__redactions = data["redactions"]
            if not isinstance(data__redactions, (int)) and not (isinstance(data__redactions, float) and data__redactions.is_integer()) or isinstance(data__redactions, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".redactions must be integer")
            if isinstance(data__redactions, (int, float, Decimal)) and not isinstance(data__redactions, bool):
                if data__redactions < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".redactions must be bigger than or equal to 0")
        if "repairs" in data_keys:
            data_keys.remove("repairs")
            data__repairs = data["repairs"]
            if not isinstance(data__repairs, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs must be array")
            data__repairs_is_list = isinstance(data__repairs, (list, tuple))
            if data__repairs_is_list:
                data__repairs_len = len(data__repairs)
                if data__repairs_len > 50:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs must contain less than or equal to 50 items")
                for data__repairs_x, data__repairs_item in enumerate(data__repairs):
                    if not isinstance(data__repairs_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}]".format(**locals()) + " must be string")
                    if isinstance(data__repairs_item, str):
                        data__repairs_item_len = len(data__repairs_item)
                        if data__repairs_item_len > 1000:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".repairs[{data__repairs_x}]".format(**locals()) + " must be shorter than or equal to 1000 characters")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_audit_entry_schema_json
