# Generated from schemas/activation-journal.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '87073675537c0f97ceef8962f2074a9416719ee1b483441cf60ff878adf2abe9'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_activation_journal_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['id', 'activation', 'last_accessed', 'access_count']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "id" in data_keys:
            data_keys.remove("id")
            data__id = data["id"]
            if not isinstance(data__id, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".id must be string")
            if isinstance(data__id, str):
                if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__id):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".id must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "activation" in data_keys:
            data_keys.remove("activation")
            data__activation = data["activation"]
            if not isinstance(data__activation, (int, float, Decimal)) or isinstance(data__activation, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".activation must be number")
            if isinstance(data__activation, (int, float, Decimal)) and not isinstance(data__activation, bool):
                if data__activation < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".activation must be bigger than or equal to 0")
                if data__activation > 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".activation must be smaller than or equal to 1")
        if "last_accessed" in data_keys:
            data_keys.remove("last_accessed")
            data__lastaccessed = data["last_accessed"]
            if not isinstance(data__lastaccessed, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".last_accessed must be string")
            if isinstance(data__lastaccessed, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__lastaccessed):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".last_accessed must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "access_count" in data_keys:
            data_keys.remove("access_count")
            data__accesscount = data["access_count"]
            if not isinstance(data__accesscount, (int)) and not (isinstance(data__accesscount, float) and data__accesscount.is_integer()) or isinstance(data__accesscount, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".access_count must be integer")
            if isinstance(data__accesscount, (int, float, Decimal)) and not isinstance(data__accesscount, bool):
                if data__accesscount < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".access_count must be bigger than or equal to 0")
        if "heard" in data_keys:
            data_keys.remove("heard")
            data__heard = data["heard"]
            if not isinstance(data__heard, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".heard must be array")
            data__heard_is_list = isinstance(data__heard, (list, tuple))
            if data__heard_is_list:
                data__heard_len = len(data__heard)
                if data__heard_len > 20:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".heard must contain less than or equal to 20 items")
                for data__heard_x, data__heard_item in enumerate(data__heard):
                    if not isinstance(data__heard_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".heard[{data__heard_x}]".format(**locals()) + " must be string")
                    if isinstance(data__heard_item, str):
                        data__heard_item_len = len(data__heard_item)
                        if data__heard_item_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".heard[{data__heard_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
                        if data__heard_item_len > 512:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".heard[{data__heard_x}]".format(**locals()) + " must be shorter than or equal to 512 characters")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_activation_journal_schema_json
