# Generated from schemas/relation.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = 'f6f3502068761e34c05be3cd648449e039f9645e0453e757535845bd539baa93'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$': re.compile('^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_relation_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['predicate', 'count']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "predicate" in data_keys:
            data_keys.remove("predicate")
            data__predicate = data["predicate"]
            if not isinstance(data__predicate, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".predicate must be string")
            if isinstance(data__predicate, str):
                data__predicate_len = len(data__predicate)
                if data__predicate_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".predicate must be longer than or equal to 1 characters")
                if data__predicate_len > 128:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".predicate must be shorter than or equal to 128 characters")
                if not REGEX_PATTERNS['^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$'].search(data__predicate):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".predicate must match pattern ^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$")
        if "count" in data_keys:
            data_keys.remove("count")
            data__count = data["count"]
            if not isinstance(data__count, (int)) and not (isinstance(data__count, float) and data__count.is_integer()) or isinstance(data__count, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".count must be integer")
            if isinstance(data__count, (int, float, Decimal)) and not isinstance(data__count, bool):
                if data__count < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".count must be bigger than or equal to 1")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_relation_schema_json
