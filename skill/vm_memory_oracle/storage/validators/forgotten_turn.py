# Generated from schemas/forgotten-turn.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '84483624ff53708be6845158c8f35ed17de5cc740c375b6667c3e4b5b2ca6336'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^fg-[0-9a-f]{16}$': re.compile('^fg-[0-9a-f]{16}\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z'),
    '^sessions/[^/:]+\\.jsonl:[0-9]+$': re.compile('^sessions/[^/:]+\\.jsonl:[0-9]+\\Z'),
    '^[0-9a-f]{32}$': re.compile('^[0-9a-f]{32}\\Z'),
    '^[0-9a-f]{16}$': re.compile('^[0-9a-f]{16}\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_forgotten_turn_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['forget', 'at', 'source', 'ts', 'role', 'digest', 'owner']) - data.keys()
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
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
            if isinstance(data__source, str):
                data__source_len = len(data__source)
                if data__source_len > 512:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be shorter than or equal to 512 characters")
                if not REGEX_PATTERNS['^sessions/[^/:]+\\.jsonl:[0-9]+$'].search(data__source):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must match pattern ^sessions/[^/:]+\\.jsonl:[0-9]+$")
        if "ts" in data_keys:
            data_keys.remove("ts")
            data__ts = data["ts"]
            if not isinstance(data__ts, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ts must be string")
            if isinstance(data__ts, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__ts):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ts must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "role" in data_keys:
            data_keys.remove("role")
            data__role = data["role"]
            if not isinstance(data__role, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".role must be string")
            if not (isinstance(data__role, str) and data__role == 'user' or isinstance(data__role, str) and data__role == 'assistant' or isinstance(data__role, str) and data__role == 'system' or isinstance(data__role, str) and data__role == 'tool'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".role must be one of ['user', 'assistant', 'system', 'tool']")
        if "digest" in data_keys:
            data_keys.remove("digest")
            data__digest = data["digest"]
            if not isinstance(data__digest, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".digest must be string")
            if isinstance(data__digest, str):
                if not REGEX_PATTERNS['^[0-9a-f]{32}$'].search(data__digest):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".digest must match pattern ^[0-9a-f]{32}$")
        if "owner" in data_keys:
            data_keys.remove("owner")
            data__owner = data["owner"]
            if not isinstance(data__owner, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".owner must be boolean")
        if "shingles" in data_keys:
            data_keys.remove("shingles")
            data__shingles = data["shingles"]
            if not isinstance(data__shingles, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".shingles must be array")
            data__shingles_is_list = isinstance(data__shingles, (list, tuple))
            if data__shingles_is_list:
                data__shingles_len = len(data__shingles)
                if data__shingles_len > 400:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".shingles must contain less than or equal to 400 items")
                for data__shingles_x, data__shingles_item in enumerate(data__shingles):
                    if not isinstance(data__shingles_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".shingles[{data__shingles_x}]".format(**locals()) + " must be string")
                    if isinstance(data__shingles_item, str):
                        if not REGEX_PATTERNS['^[0-9a-f]{16}$'].search(data__shingles_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".shingles[{data__shingles_x}]".format(**locals()) + " must match pattern ^[0-9a-f]{16}$")
        if "run" in data_keys:
            data_keys.remove("run")
            data__run = data["run"]
            if not isinstance(data__run, (int)) and not (isinstance(data__run, float) and data__run.is_integer()) or isinstance(data__run, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".run must be integer")
            if isinstance(data__run, (int, float, Decimal)) and not isinstance(data__run, bool):
                if data__run < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".run must be bigger than or equal to 1")
                if data__run > 8:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".run must be smaller than or equal to 8")
        if "origin" in data_keys:
            data_keys.remove("origin")
            data__origin = data["origin"]
            if not isinstance(data__origin, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".origin must be string")
            if isinstance(data__origin, str):
                data__origin_len = len(data__origin)
                if data__origin_len > 512:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".origin must be shorter than or equal to 512 characters")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_forgotten_turn_schema_json
