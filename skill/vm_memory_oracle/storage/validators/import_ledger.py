# Generated from schemas/import-ledger.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = 'cd5ed49b5519783e24a68320db1832ad581abd8d0be477fcd9bbc469d081b6ef'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_import_ledger_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['sources']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "sources" in data_keys:
            data_keys.remove("sources")
            data__sources = data["sources"]
            if not isinstance(data__sources, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources must be object")
            data__sources_is_dict = isinstance(data__sources, dict)
            if data__sources_is_dict:
                data__sources_keys = set(data__sources.keys())
                for data__sources_key in data__sources_keys:
                    if data__sources_key not in []:
                        data__sources_value = data__sources.get(data__sources_key)
                        if not isinstance(data__sources_value, (dict)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must be object")
                        data__sources_value_is_dict = isinstance(data__sources_value, dict)
                        if data__sources_value_is_dict:
                            data__sources_value__missing_keys = set(['size', 'mtime_ns', 'files']) - data__sources_value.keys()
                            if data__sources_value__missing_keys:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must contain ")
                            data__sources_value_keys = set(data__sources_value.keys())
                            if "size" in data__sources_value_keys:
                                data__sources_value_keys.remove("size")
                                data__sources_value__size = data__sources_value["size"]
                                if not isinstance(data__sources_value__size, (int)) and not (isinstance(data__sources_value__size, float) and data__sources_value__size.is_integer()) or isinstance(data__sources_value__size, bool):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.size".format(**locals()) + " must be integer")
                                if isinstance(data__sources_value__size, (int, float, Decimal)) and not isinstance(data__sources_value__size, bool):
                                    if data__sources_value__size < 0:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.size".format(**locals()) + " must be bigger than or equal to 0")
                            if "mtime_ns" in data__sources_value_keys:
                                data__sources_value_keys.remove("mtime_ns")
                                data__sources_value__mtimens = data__sources_value["mtime_ns"]
                                if not isinstance(data__sources_value__mtimens, (int)) and not (isinstance(data__sources_value__mtimens, float) and data__sources_value__mtimens.is_integer()) or isinstance(data__sources_value__mtimens, bool):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.mtime_ns".format(**locals()) + " must be integer")
                            if "files" in data__sources_value_keys:
                                data__sources_value_keys.remove("files")
                                data__sources_value__files = data__sources_value["files"]
                                if not isinstance(data__sources_value__files, (list, tuple)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files".format(**locals()) + " must be array")
                                data__sources_value__files_is_list = isinstance(data__sources_value__files, (list, tuple))
                                if data__sources_value__files_is_list:
                                    data__sources_value__files_len = len(data__sources_value__files)
                                    for data__sources_value__files_x, data__sources_value__files_item in enumerate(data__sources_value__files):
                                        if not isinstance(data__sources_value__files_item, (str)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files[{data__sources_value__files_x}]".format(**locals()) + " must be string")
                                        if isinstance(data__sources_value__files_item, str):
                                            if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$'].search(data__sources_value__files_item):
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files[{data__sources_value__files_x}]".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$")
                            if data__sources_value_keys:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must not contain "+str(data__sources_value_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data