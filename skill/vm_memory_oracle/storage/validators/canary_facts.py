# Generated from schemas/canary-facts.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = 'b393f1d2957cf554aa8de2bf0004687b3bd0629a11f8c33385c92cff7e7f4cd3'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$': re.compile('^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_canary_facts_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            if not isinstance(data_item, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be object")
            data_item_is_dict = isinstance(data_item, dict)
            if data_item_is_dict:
                data_item__missing_keys = set(['query', 'expected_contains']) - data_item.keys()
                if data_item__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must contain ")
                data_item_keys = set(data_item.keys())
                if "query" in data_item_keys:
                    data_item_keys.remove("query")
                    data_item__query = data_item["query"]
                    if not isinstance(data_item__query, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}].query".format(**locals()) + " must be string")
                    if isinstance(data_item__query, str):
                        data_item__query_len = len(data_item__query)
                        if data_item__query_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}].query".format(**locals()) + " must be longer than or equal to 1 characters")
                        if data_item__query_len > 2000:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}].query".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data_item__query):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}].query".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if "expected_contains" in data_item_keys:
                    data_item_keys.remove("expected_contains")
                    data_item__expectedcontains = data_item["expected_contains"]
                    if not isinstance(data_item__expectedcontains, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}].expected_contains".format(**locals()) + " must be string")
                    if isinstance(data_item__expectedcontains, str):
                        data_item__expectedcontains_len = len(data_item__expectedcontains)
                        if data_item__expectedcontains_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}].expected_contains".format(**locals()) + " must be longer than or equal to 1 characters")
                        if data_item__expectedcontains_len > 2000:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}].expected_contains".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data_item__expectedcontains):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}].expected_contains".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if data_item_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must not contain "+str(data_item_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_canary_facts_schema_json
