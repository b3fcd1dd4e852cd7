# Generated from schemas/summarize-ledger.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = 'e01a96c22142c6b99c99ff8a58d8737417798f5db36acc896a4241e55d67b34b'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9a-f]{64}$': re.compile('^[0-9a-f]{64}\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_summarize_ledger_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['files']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "files" in data_keys:
            data_keys.remove("files")
            data__files = data["files"]
            if not isinstance(data__files, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".files must be object")
            data__files_is_dict = isinstance(data__files, dict)
            if data__files_is_dict:
                data__files_keys = set(data__files.keys())
                for data__files_key in data__files_keys:
                    if data__files_key not in []:
                        data__files_value = data__files.get(data__files_key)
                        if not isinstance(data__files_value, (dict)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}".format(**locals()) + " must be object")
                        data__files_value_is_dict = isinstance(data__files_value, dict)
                        if data__files_value_is_dict:
                            data__files_value__missing_keys = set(['lines', 'bytes', 'sha256']) - data__files_value.keys()
                            if data__files_value__missing_keys:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}".format(**locals()) + " must contain ")
                            data__files_value_keys = set(data__files_value.keys())
                            if "lines" in data__files_value_keys:
                                data__files_value_keys.remove("lines")
                                data__files_value__lines = data__files_value["lines"]
                                if not isinstance(data__files_value__lines, (int)) and not (isinstance(data__files_value__lines, float) and data__files_value__lines.is_integer()) or isinstance(data__files_value__lines, bool):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}.lines".format(**locals()) + " must be integer")
                                if isinstance(data__files_value__lines, (int, float, Decimal)) and not isinstance(data__files_value__lines, bool):
                                    if data__files_value__lines < 0:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}.lines".format(**locals()) + " must be bigger than or equal to 0")
                            if "bytes" in data__files_value_keys:
                                data__files_value_keys.remove("bytes")
                                data__files_value__bytes = data__files_value["bytes"]
                                if not isinstance(data__files_value__bytes, (int)) and not (isinstance(data__files_value__bytes, float) and data__files_value__bytes.is_integer()) or isinstance(data__files_value__bytes, bool):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}.bytes".format(**locals()) + " must be integer")
                                if isinstance(data__files_value__bytes, (int, float, Decimal)) and not isinstance(data__files_value__bytes, bool):
                                    if data__files_value__bytes < 0:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}.bytes".format(**locals()) + " must be bigger than or equal to 0")
                            if "sha256" in data__files_value_keys:
                                data__files_value_keys.remove("sha256")
                                data__files_value__sha256 = data__files_value["sha256"]
                                if not isinstance(data__files_value__sha256, (str)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}.sha256".format(**locals()) + " must be string")
                                if isinstance(data__files_value__sha256, str):
                                    if not REGEX_PATTERNS['^[0-9a-f]{64}$'].search(data__files_value__sha256):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}.sha256".format(**locals()) + " must match pattern ^[0-9a-f]{64}$")
                            if "summarized_at" in data__files_value_keys:
                                data__files_value_keys.remove("summarized_at")
                                data__files_value__summarizedat = data__files_value["summarized_at"]
                                if not isinstance(data__files_value__summarizedat, (str)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}.summarized_at".format(**locals()) + " must be string")
                                if isinstance(data__files_value__summarizedat, str):
                                    if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__files_value__summarizedat):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}.summarized_at".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
                            if data__files_value_keys:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".files.{data__files_key}".format(**locals()) + " must not contain "+str(data__files_value_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_summarize_ledger_schema_json
