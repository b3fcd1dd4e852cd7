# Generated from schemas/activation-metadata.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '80d5bcc53d90b04ffc83ac5f10b9121e4a000c168bbdba53bf8d13de29f32486'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z'),
    '^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_activation_metadata_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['facts']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "updated" in data_keys:
            data_keys.remove("updated")
            data__updated = data["updated"]
            if not isinstance(data__updated, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".updated must be string")
            if isinstance(data__updated, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__updated):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".updated must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "facts" in data_keys:
            data_keys.remove("facts")
            data__facts = data["facts"]
            if not isinstance(data__facts, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must be object")
            data__facts_is_dict = isinstance(data__facts, dict)
            if data__facts_is_dict:
                data__facts_keys = set(data__facts.keys())
                for data__facts_key in data__facts_keys:
                    if data__facts_key not in []:
                        data__facts_value = data__facts.get(data__facts_key)
                        if not isinstance(data__facts_value, (dict)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}".format(**locals()) + " must be object")
                        data__facts_value_is_dict = isinstance(data__facts_value, dict)
                        if data__facts_value_is_dict:
                            data__facts_value__missing_keys = set(['activation', 'last_accessed', 'access_count']) - data__facts_value.keys()
                            if data__facts_value__missing_keys:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}".format(**locals()) + " must contain ")
                            data__facts_value_keys = set(data__facts_value.keys())
                            if "activation" in data__facts_value_keys:
                                data__facts_value_keys.remove("activation")
                                data__facts_value__activation = data__facts_value["activation"]
                                if not isinstance(data__facts_value__activation, (int, float, Decimal)) or isinstance(data__facts_value__activation, bool):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.activation".format(**locals()) + " must be number")
                                if isinstance(data__facts_value__activation, (int, float, Decimal)) and not isinstance(data__facts_value__activation, bool):
                                    if data__facts_value__activation < 0:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.activation".format(**locals()) + " must be bigger than or equal to 0")
                                    if data__facts_value__activation > 1:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.activation".format(**locals()) + " must be smaller than or equal to 1")
                            if "last_accessed" in data__facts_value_keys:
                                data__facts_value_keys.remove("last_accessed")
                                data__facts_value__lastaccessed = data__facts_value["last_accessed"]
                                if not isinstance(data__facts_value__lastaccessed, (str)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.last_accessed".format(**locals()) + " must be string")
                                if isinstance(data__facts_value__lastaccessed, str):
                                    if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__facts_value__lastaccessed):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.last_accessed".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
                            if "access_count" in data__facts_value_keys:
                                data__facts_value_keys.remove("access_count")
                                data__facts_value__accesscount = data__facts_value["access_count"]
                                if not isinstance(data__facts_value__accesscount, (int)) and not (isinstance(data__facts_value__accesscount, float) and data__facts_value__accesscount.is_integer()) or isinstance(data__facts_value__accesscount, bool):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.access_count".format(**locals()) + " must be integer")
                                if isinstance(data__facts_value__accesscount, (int, float, Decimal)) and not isinstance(data__facts_value__accesscount, bool):
                                    if data__facts_value__accesscount < 0:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.access_count".format(**locals()) + " must be bigger than or equal to 0")
                            if "heard" in data__facts_value_keys:
                                data__facts_value_keys.remove("heard")
                                data__facts_value__heard = data__facts_value["heard"]
                                if not isinstance(data__facts_value__heard, (list, tuple)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.heard".format(**locals()) + " must be array")
                                data__facts_value__heard_is_list = isinstance(data__facts_value__heard, (list, tuple))
                                if data__facts_value__heard_is_list:
                                    data__facts_value__heard_len = len(data__facts_value__heard)
                                    if data__facts_value__heard_len > 20:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.heard".format(**locals()) + " must contain less than or equal to 20 items")
                                    for data__facts_value__heard_x, data__facts_value__heard_item in enumerate(data__facts_value__heard):
                                        if not isinstance(data__facts_value__heard_item, (str)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.heard[{data__facts_value__heard_x}]".format(**locals()) + " must be string")
                                        if isinstance(data__facts_value__heard_item, str):
                                            data__facts_value__heard_item_len = len(data__facts_value__heard_item)
                                            if data__facts_value__heard_item_len < 1:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.heard[{data__facts_value__heard_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
                                            if data__facts_value__heard_item_len > 512:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}.heard[{data__facts_value__heard_x}]".format(**locals()) + " must be shorter than or equal to 512 characters")
                            if data__facts_value_keys:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts.{data__facts_key}".format(**locals()) + " must not contain "+str(data__facts_value_keys)+" properties")
                data__facts_len = len(data__facts)
                if data__facts_len != 0:
                    data__facts_property_names = True
                    for data__facts_key in data__facts:
                        try:
                            if isinstance(data__facts_key, str):
                                if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__facts_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__facts_property_names = False
                    if not data__facts_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must be named by propertyName definition")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_activation_metadata_schema_json
