# Generated from schemas/session-turn.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = 'e06a1f65658ff9c5c0ac0e2fd1cdad6587de39b4775bc01106ca54a8b922f0d1'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z'),
    '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$': re.compile('^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*\\Z'),
    '^[^\\u0000-\\u001f\\u007f]*$': re.compile('^[^\\u0000-\\u001f\\u007f]*\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_session_turn_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['ts', 'role', 'text']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
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
        if "text" in data_keys:
            data_keys.remove("text")
            data__text = data["text"]
            if not isinstance(data__text, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".text must be string")
            if isinstance(data__text, str):
                data__text_len = len(data__text)
                if data__text_len > 100000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".text must be shorter than or equal to 100000 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$'].search(data__text):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".text must match pattern ^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$")
        if "speaker" in data_keys:
            data_keys.remove("speaker")
            data__speaker = data["speaker"]
            if not isinstance(data__speaker, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".speaker must be string")
            if isinstance(data__speaker, str):
                data__speaker_len = len(data__speaker)
                if data__speaker_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".speaker must be longer than or equal to 1 characters")
                if data__speaker_len > 256:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".speaker must be shorter than or equal to 256 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f]*$'].search(data__speaker):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".speaker must match pattern ^[^\\u0000-\\u001f\\u007f]*$")
        if "origin" in data_keys:
            data_keys.remove("origin")
            data__origin = data["origin"]
        if "provenance" in data_keys:
            data_keys.remove("provenance")
            data__provenance = data["provenance"]
    return data

validate = validate_vm_memory_oracle_session_turn_schema_json
