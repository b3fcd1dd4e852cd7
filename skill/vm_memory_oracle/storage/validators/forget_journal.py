# Generated from schemas/forget-journal.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '877bbe2c878cd9b317f650d18bd04152b0e11be2e4af5f5b760a4c915e9b028e'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^fg-[0-9a-f]{16}$': re.compile('^fg-[0-9a-f]{16}\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z'),
    '^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z'),
    '^sessions/[^/:]+\\.jsonl:[0-9]+$': re.compile('^sessions/[^/:]+\\.jsonl:[0-9]+\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_forget_journal_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['forget', 'at', 'selector', 'facts', 'archived', 'turns', 'purge']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "forget" in data_keys:
            data_keys.remove("forget")
            data__forget = data["forget"]
            if not isinstance(data__forget, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".forget must be string")
            if isinstance(data__forget, str):
                if not REGEX_PATTERNS['^fg-[0-9a-f]{16}$'].search(data__forget):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".forget must match pattern ^fg-[0-9a-f]{16}$")
        if "at" in data_keys:
            data_keys.remove("at")
            data__at = data["at"]
            if not isinstance(data__at, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".at must be string")
            if isinstance(data__at, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__at):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".at must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "selector" in data_keys:
            data_keys.remove("selector")
            data__selector = data["selector"]
            if not isinstance(data__selector, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".selector must be string")
            if not (isinstance(data__selector, str) and data__selector == 'id' or isinstance(data__selector, str) and data__selector == 'query' or isinstance(data__selector, str) and data__selector == 'session' or isinstance(data__selector, str) and data__selector == 'sender' or isinstance(data__selector, str) and data__selector == 'time'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".selector must be one of ['id', 'query', 'session', 'sender', 'time']")
        if "reason" in data_keys:
            data_keys.remove("reason")
            data__reason = data["reason"]
            if not isinstance(data__reason, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".reason must be string")
            if isinstance(data__reason, str):
                data__reason_len = len(data__reason)
                if data__reason_len > 512:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".reason must be shorter than or equal to 512 characters")
        if "facts" in data_keys:
            data_keys.remove("facts")
            data__facts = data["facts"]
            if not isinstance(data__facts, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must be array")
            data__facts_is_list = isinstance(data__facts, (list, tuple))
            if data__facts_is_list:
                data__facts_len = len(data__facts)
                for data__facts_x, data__facts_item in enumerate(data__facts):
                    if not isinstance(data__facts_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}]".format(**locals()) + " must be string")
                    if isinstance(data__facts_item, str):
                        if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__facts_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}]".format(**locals()) + " must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "archived" in data_keys:
            data_keys.remove("archived")
            data__archived = data["archived"]
            if not isinstance(data__archived, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".archived must be array")
            data__archived_is_list = isinstance(data__archived, (list, tuple))
            if data__archived_is_list:
                data__archived_len = len(data__archived)
                for data__archived_x, data__archived_item in enumerate(data__archived):
                    if not isinstance(data__archived_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".archived[{data__archived_x}]".format(**locals()) + " must be string")
                    if isinstance(data__archived_item, str):
                        if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__archived_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".archived[{data__archived_x}]".format(**locals()) + " must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "turns" in data_keys:
            data_keys.remove("turns")
            data__turns = data["turns"]
            if not isinstance(data__turns, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".turns must be array")
            data__turns_is_list = isinstance(data__turns, (list, tuple))
            if data__turns_is_list:
                data__turns_len = len(data__turns)
                for data__turns_x, data__turns_item in enumerate(data__turns):
                    if not isinstance(data__turns_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".turns[{data__turns_x}]".format(**locals()) + " must be string")
                    if isinstance(data__turns_item, str):
                        data__turns_item_len = len(data__turns_item)
                        if data__turns_item_len > 512:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".turns[{data__turns_x}]".format(**locals()) + " must be shorter than or equal to 512 characters")
                        if not REGEX_PATTERNS['^sessions/[^/:]+\\.jsonl:[0-9]+$'].search(data__turns_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".turns[{data__turns_x}]".format(**locals()) + " must match pattern ^sessions/[^/:]+\\.jsonl:[0-9]+$")
        if "purge" in data_keys:
            data_keys.remove("purge")
            data__purge = data["purge"]
            if not isinstance(data__purge, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".purge must be array")
            data__purge_is_list = isinstance(data__purge, (list, tuple))
            if data__purge_is_list:
                data__purge_len = len(data__purge)
                for data__purge_x, data__purge_item in enumerate(data__purge):
                    if not isinstance(data__purge_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".purge[{data__purge_x}]".format(**locals()) + " must be string")
                    if isinstance(data__purge_item, str):
                        if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__purge_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".purge[{data__purge_x}]".format(**locals()) + " must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "named" in data_keys:
            data_keys.remove("named")
            data__named = data["named"]
            if not isinstance(data__named, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".named must be string")
            if isinstance(data__named, str):
                data__named_len = len(data__named)
                if data__named_len > 512:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".named must be shorter than or equal to 512 characters")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_forget_journal_schema_json
