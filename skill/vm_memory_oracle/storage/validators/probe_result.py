# Generated from schemas/probe-result.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '86d987248bb0d06247d99d0ea71dbdce4b6f89870c5a73c6961e901d965c0f63'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_probe_result_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['at', 'total', 'passed', 'accuracy']) - data.keys()
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
        if "total" in data_keys:
            data_keys.remove("total")
            data__total = data["total"]
            if not isinstance(data__total, (int)) and not (isinstance(data__total, float) and data__total.is_integer()) or isinstance(data__total, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".total must be integer")
            if isinstance(data__total, (int, float, Decimal)) and not isinstance(data__total, bool):
                if data__total < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".total must be bigger than or equal to 0")
        if "passed" in data_keys:
            data_keys.remove("passed")
            data__passed = data["passed"]
            if not isinstance(data__passed, (int)) and not (isinstance(data__passed, float) and data__passed.is_integer()) or isinstance(data__passed, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".passed must be integer")
            if isinstance(data__passed, (int, float, Decimal)) and not isinstance(data__passed, bool):
                if data__passed < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".passed must be bigger than or equal to 0")
        if "accuracy" in data_keys:
            data_keys.remove("accuracy")
            data__accuracy = data["accuracy"]
            if not isinstance(data__accuracy, (int, float, Decimal, NoneType)) or isinstance(data__accuracy, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".accuracy must be number or null")
            if isinstance(data__accuracy, (int, float, Decimal)) and not isinstance(data__accuracy, bool):
                if data__accuracy < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".accuracy must be bigger than or equal to 0")
                if data__accuracy > 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".accuracy must be smaller than or equal to 1")
        if "k" in data_keys:
            data_keys.remove("k")
            data__k = data["k"]
            if not isinstance(data__k, (int)) and not (isinstance(data__k, float) and data__k.is_integer()) or isinstance(data__k, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".k must be integer")
            if isinstance(data__k, (int, float, Decimal)) and not isinstance(data__k, bool):
                if data__k < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".k must be bigger than or equal to 1")
        if "embedder" in data_keys:
            data_keys.remove("embedder")
            data__embedder = data["embedder"]
            if not isinstance(data__embedder, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".embedder must be string")
            if isinstance(data__embedder, str):
                data__embedder_len = len(data__embedder)
                if data__embedder_len > 300:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".embedder must be shorter than or equal to 300 characters")
        if "failures" in data_keys:
            data_keys.remove("failures")
            data__failures = data["failures"]
            if not isinstance(data__failures, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures must be array")
            data__failures_is_list = isinstance(data__failures, (list, tuple))
            if data__failures_is_list:
                data__failures_len = len(data__failures)
                for data__failures_x, data__failures_item in enumerate(data__failures):
                    if not isinstance(data__failures_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}]".format(**locals()) + " must be object")
                    data__failures_item_is_dict = isinstance(data__failures_item, dict)
                    if data__failures_item_is_dict:
                        data__failures_item__missing_keys = set(['query', 'expected_contains']) - data__failures_item.keys()
                        if data__failures_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}]".format(**locals()) + " must contain ")
                        data__failures_item_keys = set(data__failures_item.keys())
                        if "query" in data__failures_item_keys:
                            data__failures_item_keys.remove("query")
                            data__failures_item__query = data__failures_item["query"]
                            if not isinstance(data__failures_item__query, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}].query".format(**locals()) + " must be string")
                            if isinstance(data__failures_item__query, str):
                                data__failures_item__query_len = len(data__failures_item__query)
                                if data__failures_item__query_len > 2000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}].query".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if "expected_contains" in data__failures_item_keys:
                            data__failures_item_keys.remove("expected_contains")
                            data__failures_item__expectedcontains = data__failures_item["expected_contains"]
                            if not isinstance(data__failures_item__expectedcontains, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}].expected_contains".format(**locals()) + " must be string")
                            if isinstance(data__failures_item__expectedcontains, str):
                                data__failures_item__expectedcontains_len = len(data__failures_item__expectedcontains)
                                if data__failures_item__expectedcontains_len > 2000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}].expected_contains".format(**locals()) + " must be shorter than or equal to 2000 characters")
                        if "top" in data__failures_item_keys:
                            data__failures_item_keys.remove("top")
                            data__failures_item__top = data__failures_item["top"]
                            if not isinstance(data__failures_item__top, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}].top".format(**locals()) + " must be array")
                            data__failures_item__top_is_list = isinstance(data__failures_item__top, (list, tuple))
                            if data__failures_item__top_is_list:
                                data__failures_item__top_len = len(data__failures_item__top)
                                for data__failures_item__top_x, data__failures_item__top_item in enumerate(data__failures_item__top):
                                    if not isinstance(data__failures_item__top_item, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}].top[{data__failures_item__top_x}]".format(**locals()) + " must be string")
                                    if isinstance(data__failures_item__top_item, str):
                                        data__failures_item__top_item_len = len(data__failures_item__top_item)
                                        if data__failures_item__top_item_len > 4000:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}].top[{data__failures_item__top_x}]".format(**locals()) + " must be shorter than or equal to 4000 characters")
                        if data__failures_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".failures[{data__failures_x}]".format(**locals()) + " must not contain "+str(data__failures_item_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_probe_result_schema_json
