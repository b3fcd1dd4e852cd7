# Generated from schemas/entity.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = 'b74032a67ca161887a5c7830be28fc34ff23b499308d330d59b3d6c25264befa'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$': re.compile('^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*\\Z'),
    '^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_entity_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['name', 'key', 'fact_ids']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "name" in data_keys:
            data_keys.remove("name")
            data__name = data["name"]
            if not isinstance(data__name, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".name must be string")
            if isinstance(data__name, str):
                data__name_len = len(data__name)
                if data__name_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".name must be longer than or equal to 1 characters")
                if data__name_len > 256:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".name must be shorter than or equal to 256 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__name):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".name must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "key" in data_keys:
            data_keys.remove("key")
            data__key = data["key"]
            if not isinstance(data__key, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".key must be string")
            if isinstance(data__key, str):
                data__key_len = len(data__key)
                if data__key_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".key must be longer than or equal to 1 characters")
                if data__key_len > 256:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".key must be shorter than or equal to 256 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__key):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".key must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "fact_ids" in data_keys:
            data_keys.remove("fact_ids")
            data__factids = data["fact_ids"]
            if not isinstance(data__factids, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact_ids must be array")
            data__factids_is_list = isinstance(data__factids, (list, tuple))
            if data__factids_is_list:
                data__factids_len = len(data__factids)
                if data__factids_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact_ids must contain at least 1 items")
                for data__factids_x, data__factids_item in enumerate(data__factids):
                    if not isinstance(data__factids_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact_ids[{data__factids_x}]".format(**locals()) + " must be string")
                    if isinstance(data__factids_item, str):
                        if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__factids_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact_ids[{data__factids_x}]".format(**locals()) + " must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_entity_schema_json
