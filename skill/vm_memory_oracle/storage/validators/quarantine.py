# Generated from schemas/quarantine.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '2c8c2f75d8df42261a0dfff4a8b9432dbd8d07806354b7a0ef2dee19d2fabf12'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$': re.compile('^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_quarantine_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['file', 'line', 'reason', 'raw', 'quarantined_at']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "file" in data_keys:
            data_keys.remove("file")
            data__file = data["file"]
            if not isinstance(data__file, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".file must be string")
            if isinstance(data__file, str):
                data__file_len = len(data__file)
                if data__file_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".file must be longer than or equal to 1 characters")
                if data__file_len > 256:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".file must be shorter than or equal to 256 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__file):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".file must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "line" in data_keys:
            data_keys.remove("line")
            data__line = data["line"]
            if not isinstance(data__line, (int)) and not (isinstance(data__line, float) and data__line.is_integer()) or isinstance(data__line, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".line must be integer")
            if isinstance(data__line, (int, float, Decimal)) and not isinstance(data__line, bool):
                if data__line < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".line must be bigger than or equal to 1")
        if "reason" in data_keys:
            data_keys.remove("reason")
            data__reason = data["reason"]
            if not isinstance(data__reason, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".reason must be string")
            if isinstance(data__reason, str):
                data__reason_len = len(data__reason)
                if data__reason_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".reason must be longer than or equal to 1 characters")
                if data__reason_len > 2000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".reason must be shorter than or equal to 2000 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__reason):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".reason must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "raw" in data_keys:
            data_keys.remove("raw")
            data__raw = data["raw"]
            if not isinstance(data__raw, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".raw must be string")
        if "quarantined_at" in data_keys:
            data_keys.remove("quarantined_at")
            data__quarantinedat = data["quarantined_at"]
            if not isinstance(data__quarantinedat, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".quarantined_at must be string")
            if isinstance(data__quarantinedat, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__quarantinedat):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".quarantined_at must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_quarantine_schema_json
