# Generated from schemas/extractor-output.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '2fdef0b0c4929df46068acfe4858535c5450b5a98edd87dc0b93c15270e285cf'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$': re.compile('^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_extractor_output_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['facts']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "facts" in data_keys:
            data_keys.remove("facts")
            data__facts = data["facts"]
            if not isinstance(data__facts, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must be array")
            data__facts_is_list = isinstance(data__facts, (list, tuple))
            if data__facts_is_list:
                data__facts_len = len(data__facts)
                if data__facts_len > 100000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must contain less than or equal to 100000 items")
                for data__facts_x, data__facts_item in enumerate(data__facts):
                    if not isinstance(data__facts_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}]".format(**locals()) + " must be object")
                    data__facts_item_is_dict = isinstance(data__facts_item, dict)
                    if data__facts_item_is_dict:
                        data__facts_item__missing_keys = set(['subject', 'predicate', 'object', 'source']) - data__facts_item.keys()
                        if data__facts_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}]".format(**locals()) + " must contain ")
                        data__facts_item_keys = set(data__facts_item.keys())
                        if "subject" in data__facts_item_keys:
                            data__facts_item_keys.remove("subject")
                            data__facts_item__subject = data__facts_item["subject"]
                            if not isinstance(data__facts_item__subject, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].subject".format(**locals()) + " must be string")
                            if isinstance(data__facts_item__subject, str):
                                data__facts_item__subject_len = len(data__facts_item__subject)
                                if data__facts_item__subject_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].subject".format(**locals()) + " must be longer than or equal to 1 characters")
                                if data__facts_item__subject_len > 256:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].subject".format(**locals()) + " must be shorter than or equal to 256 characters")
                                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__facts_item__subject):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].subject".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                        if "predicate" in data__facts_item_keys:
                            data__facts_item_keys.remove("predicate")
                            data__facts_item__predicate = data__facts_item["predicate"]
                            if not isinstance(data__facts_item__predicate, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].predicate".format(**locals()) + " must be string")
                            if isinstance(data__facts_item__predicate, str):
                                data__facts_item__predicate_len = len(data__facts_item__predicate)
                                if data__facts_item__predicate_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].predicate".format(**locals()) + " must be longer than or equal to 1 characters")
                                if data__facts_item__predicate_len > 128:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].predicate".format(**locals()) + " must be shorter than or equal to 128 characters")
                                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__facts_item__predicate):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].predicate".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                        if "object" in data__facts_item_keys:
                            data__facts_item_keys.remove("object")
                            data__facts_item__object = data__facts_item["object"]
                            if not isinstance(data__facts_item__object, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].object".format(**locals()) + " must be string")
                            if isinstance(data__facts_item__object, str):
                                data__facts_item__object_len = len(data__facts_item__object)
                                if data__facts_item__object_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].object".format(**locals()) + " must be longer than or equal to 1 characters")
                                if data__facts_item__object_len > 2000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].object".format(**locals()) + " must be shorter than or equal to 2000 characters")
                                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__facts_item__object):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].object".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                        if "source" in data__facts_item_keys:
                            data__facts_item_keys.remove("source")
                            data__facts_item__source = data__facts_item["source"]
                            if not isinstance(data__facts_item__source, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].source".format(**locals()) + " must be string")
                            if isinstance(data__facts_item__source, str):
                                data__facts_item__source_len = len(data__facts_item__source)
                                if data__facts_item__source_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].source".format(**locals()) + " must be longer than or equal to 1 characters")
                                if data__facts_item__source_len > 512:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].source".format(**locals()) + " must be shorter than or equal to 512 characters")
                                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__facts_item__source):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].source".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                        if "text" in data__facts_item_keys:
                            data__facts_item_keys.remove("text")
                            data__facts_item__text = data__facts_item["text"]
                            if not isinstance(data__facts_item__text, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].text".format(**locals()) + " must be string")
                            if isinstance(data__facts_item__text, str):
                                data__facts_item__text_len = len(data__facts_item__text)
                                if data__facts_item__text_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].text".format(**locals()) + " must be longer than or equal to 1 characters")
                                if data__facts_item__text_len > 2000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].text".format(**locals()) + " must be shorter than or equal to 2000 characters")
                                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__facts_item__text):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].text".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                        if "context" in data__facts_item_keys:
                            data__facts_item_keys.remove("context")
                            data__facts_item__context = data__facts_item["context"]
                            if not isinstance(data__facts_item__context, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].context".format(**locals()) + " must be string")
                            if isinstance(data__facts_item__context, str):
                                data__facts_item__context_len = len(data__facts_item__context)
                                if data__facts_item__context_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].context".format(**locals()) + " must be longer than or equal to 1 characters")
                                if data__facts_item__context_len > 2000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].context".format(**locals()) + " must be shorter than or equal to 2000 characters")
                                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__facts_item__context):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].context".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                        if "category" in data__facts_item_keys:
                            data__facts_item_keys.remove("category")
                            data__facts_item__category = data__facts_item["category"]
                            if not isinstance(data__facts_item__category, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].category".format(**locals()) + " must be string")
                            if not (isinstance(data__facts_item__category, str) and data__facts_item__category == 'identity' or isinstance(data__facts_item__category, str) and data__facts_item__category == 'health' or isinstance(data__facts_item__category, str) and data__facts_item__category == 'preference' or isinstance(data__facts_item__category, str) and data__facts_item__category == 'relationship' or isinstance(data__facts_item__category, str) and data__facts_item__category == 'state' or isinstance(data__facts_item__category, str) and data__facts_item__category == 'decision' or isinstance(data__facts_item__category, str) and data__facts_item__category == 'action' or isinstance(data__facts_item__category, str) and data__facts_item__category == 'fact' or isinstance(data__facts_item__category, str) and data__facts_item__category == 'temporary'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].category".format(**locals()) + " must be one of ['identity', 'health', 'preference', 'relationship', 'state', 'decision', 'action', 'fact', 'temporary']")
                        if "importance" in data__facts_item_keys:
                            data__facts_item_keys.remove("importance")
                            data__facts_item__importance = data__facts_item["importance"]
                            if not isinstance(data__facts_item__importance, (int, float, Decimal)) or isinstance(data__facts_item__importance, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].importance".format(**locals()) + " must be number")
                            if isinstance(data__facts_item__importance, (int, float, Decimal)) and not isinstance(data__facts_item__importance, bool):
                                if data__facts_item__importance < 0:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].importance".format(**locals()) + " must be bigger than or equal to 0")
                                if data__facts_item__importance > 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].importance".format(**locals()) + " must be smaller than or equal to 1")
                        if "pinned" in data__facts_item_keys:
                            data__facts_item_keys.remove("pinned")
                            data__facts_item__pinned = data__facts_item["pinned"]
                            if not isinstance(data__facts_item__pinned, (bool)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].pinned".format(**locals()) + " must be boolean")
                        if "entities" in data__facts_item_keys:
                            data__facts_item_keys.remove("entities")
                            data__facts_item__entities = data__facts_item["entities"]
                            if not isinstance(data__facts_item__entities, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].entities".format(**locals()) + " must be array")
                            data__facts_item__entities_is_list = isinstance(data__facts_item__entities, (list, tuple))
                            if data__facts_item__entities_is_list:
                                data__facts_item__entities_len = len(data__facts_item__entities)
                                if data__facts_item__entities_len > 50:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].entities".format(**locals()) + " must contain less than or equal to 50 items")
                                for data__facts_item__entities_x, data__facts_item__entities_item in enumerate(data__facts_item__entities):
                                    if not isinstance(data__facts_item__entities_item, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].entities[{data__facts_item__entities_x}]".format(**locals()) + " must be string")
                                    if isinstance(data__facts_item__entities_item, str):
                                        data__facts_item__entities_item_len = len(data__facts_item__entities_item)
                                        if data__facts_item__entities_item_len < 1:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].entities[{data__facts_item__entities_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
                                        if data__facts_item__entities_item_len > 256:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].entities[{data__facts_item__entities_x}]".format(**locals()) + " must be shorter than or equal to 256 characters")
                                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__facts_item__entities_item):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].entities[{data__facts_item__entities_x}]".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                        if "valid_from" in data__facts_item_keys:
                            data__facts_item_keys.remove("valid_from")
                            data__facts_item__validfrom = data__facts_item["valid_from"]
                            if not isinstance(data__facts_item__validfrom, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].valid_from".format(**locals()) + " must be string")
                            if isinstance(data__facts_item__validfrom, str):
                                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$'].search(data__facts_item__validfrom):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].valid_from".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$")
                        if "confidence" in data__facts_item_keys:
                            data__facts_item_keys.remove("confidence")
                            data__facts_item__confidence = data__facts_item["confidence"]
                            if not isinstance(data__facts_item__confidence, (int, float, Decimal)) or isinstance(data__facts_item__confidence, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].confidence".format(**locals()) + " must be number")
                            if isinstance(data__facts_item__confidence, (int, float, Decimal)) and not isinstance(data__facts_item__confidence, bool):
                                if data__facts_item__confidence < 0:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].confidence".format(**locals()) + " must be bigger than or equal to 0")
                                if data__facts_item__confidence > 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}].confidence".format(**locals()) + " must be smaller than or equal to 1")
                        if data__facts_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts[{data__facts_x}]".format(**locals()) + " must not contain "+str(data__facts_item_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_extractor_output_schema_json
