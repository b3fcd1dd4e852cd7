# Generated from schemas/pending-memory.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '8061b4574ea5b0b8d84b64f5697ac30ffd423d80a59e2bcc4ea176d6807a612a'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^proposal-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^proposal-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z'),
    '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$': re.compile('^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z'),
    '^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z'),
    '^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$': re.compile('^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_pending_memory_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['id', 'proposer', 'confidence', 'proposed_at', 'fact']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "id" in data_keys:
            data_keys.remove("id")
            data__id = data["id"]
            if not isinstance(data__id, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".id must be string")
            if isinstance(data__id, str):
                if not REGEX_PATTERNS['^proposal-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__id):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".id must match pattern ^proposal-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "proposer" in data_keys:
            data_keys.remove("proposer")
            data__proposer = data["proposer"]
            if not isinstance(data__proposer, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".proposer must be string")
            if isinstance(data__proposer, str):
                data__proposer_len = len(data__proposer)
                if data__proposer_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".proposer must be longer than or equal to 1 characters")
                if data__proposer_len > 48:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".proposer must be shorter than or equal to 48 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__proposer):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".proposer must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "confidence" in data_keys:
            data_keys.remove("confidence")
            data__confidence = data["confidence"]
            if not isinstance(data__confidence, (int, float, Decimal)) or isinstance(data__confidence, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".confidence must be number")
            if isinstance(data__confidence, (int, float, Decimal)) and not isinstance(data__confidence, bool):
                if data__confidence < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".confidence must be bigger than or equal to 0")
                if data__confidence > 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".confidence must be smaller than or equal to 1")
        if "proposed_at" in data_keys:
            data_keys.remove("proposed_at")
            data__proposedat = data["proposed_at"]
            if not isinstance(data__proposedat, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".proposed_at must be string")
            if isinstance(data__proposedat, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__proposedat):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".proposed_at must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "fact" in data_keys:
            data_keys.remove("fact")
            data__fact = data["fact"]
            if not isinstance(data__fact, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact must be object")
            data__fact_is_dict = isinstance(data__fact, dict)
            if data__fact_is_dict:
                data__fact__missing_keys = set(['id', 'subject', 'predicate', 'object', 'source', 'created', 'activation']) - data__fact.keys()
                if data__fact__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact must contain ")
                data__fact_keys = set(data__fact.keys())
                if "id" in data__fact_keys:
                    data__fact_keys.remove("id")
                    data__fact__id = data__fact["id"]
                    if not isinstance(data__fact__id, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.id must be string")
                    if isinstance(data__fact__id, str):
                        if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__fact__id):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.id must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
                if "subject" in data__fact_keys:
                    data__fact_keys.remove("subject")
                    data__fact__subject = data__fact["subject"]
                    if not isinstance(data__fact__subject, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.subject must be string")
                    if isinstance(data__fact__subject, str):
                        data__fact__subject_len = len(data__fact__subject)
                        if data__fact__subject_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.subject must be longer than or equal to 1 characters")
                        if data__fact__subject_len > 256:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.subject must be shorter than or equal to 256 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__fact__subject):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.subject must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if "predicate" in data__fact_keys:
                    data__fact_keys.remove("predicate")
                    data__fact__predicate = data__fact["predicate"]
                    if not isinstance(data__fact__predicate, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.predicate must be string")
                    if isinstance(data__fact__predicate, str):
                        data__fact__predicate_len = len(data__fact__predicate)
                        if data__fact__predicate_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.predicate must be longer than or equal to 1 characters")
                        if data__fact__predicate_len > 128:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.predicate must be shorter than or equal to 128 characters")
                        if not REGEX_PATTERNS['^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$'].search(data__fact__predicate):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.predicate must match pattern ^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$")
                if "object" in data__fact_keys:
                    data__fact_keys.remove("object")
                    data__fact__object = data__fact["object"]
                    if not isinstance(data__fact__object, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.object must be string")
                    if isinstance(data__fact__object, str):
                        data__fact__object_len = len(data__fact__object)
                        if data__fact__object_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.object must be longer than or equal to 1 characters")
                        if data__fact__object_len > 2000:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.object must be shorter than or equal to 2000 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__fact__object):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.object must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if "source" in data__fact_keys:
                    data__fact_keys.remove("source")
                    data__fact__source = data__fact["source"]
                    if not isinstance(data__fact__source, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.source must be string")
                    if isinstance(data__fact__source, str):
                        data__fact__source_len = len(data__fact__source)
                        if data__fact__source_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.source must be longer than or equal to 1 characters")
                        if data__fact__source_len > 512:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.source must be shorter than or equal to 512 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__fact__source):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.source must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if "sources" in data__fact_keys:
                    data__fact_keys.remove("sources")
                    data__fact__sources = data__fact["sources"]
                    if not isinstance(data__fact__sources, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.sources must be array")
                    data__fact__sources_is_list = isinstance(data__fact__sources, (list, tuple))
                    if data__fact__sources_is_list:
                        data__fact__sources_len = len(data__fact__sources)
                        if data__fact__sources_len > 20:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.sources must contain less than or equal to 20 items")
                        for data__fact__sources_x, data__fact__sources_item in enumerate(data__fact__sources):
                            if not isinstance(data__fact__sources_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.sources[{data__fact__sources_x}]".format(**locals()) + " must be string")
                            if isinstance(data__fact__sources_item, str):
                                data__fact__sources_item_len = len(data__fact__sources_item)
                                if data__fact__sources_item_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.sources[{data__fact__sources_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
                                if data__fact__sources_item_len > 512:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.sources[{data__fact__sources_x}]".format(**locals()) + " must be shorter than or equal to 512 characters")
                                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__fact__sources_item):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.sources[{data__fact__sources_x}]".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if "created" in data__fact_keys:
                    data__fact_keys.remove("created")
                    data__fact__created = data__fact["created"]
                    if not isinstance(data__fact__created, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.created must be string")
                    if isinstance(data__fact__created, str):
                        if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__fact__created):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.created must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
                if "activation" in data__fact_keys:
                    data__fact_keys.remove("activation")
                    data__fact__activation = data__fact["activation"]
                    if not isinstance(data__fact__activation, (int, float, Decimal)) or isinstance(data__fact__activation, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.activation must be number")
                    if isinstance(data__fact__activation, (int, float, Decimal)) and not isinstance(data__fact__activation, bool):
                        if data__fact__activation < 0:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.activation must be bigger than or equal to 0")
                        if data__fact__activation > 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.activation must be smaller than or equal to 1")
                if "text" in data__fact_keys:
                    data__fact_keys.remove("text")
                    data__fact__text = data__fact["text"]
                    if not isinstance(data__fact__text, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.text must be string")
                    if isinstance(data__fact__text, str):
                        data__fact__text_len = len(data__fact__text)
                        if data__fact__text_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.text must be longer than or equal to 1 characters")
                        if data__fact__text_len > 2000:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.text must be shorter than or equal to 2000 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__fact__text):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.text must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if "context" in data__fact_keys:
                    data__fact_keys.remove("context")
                    data__fact__context = data__fact["context"]
                    if not isinstance(data__fact__context, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.context must be string")
                    if isinstance(data__fact__context, str):
                        data__fact__context_len = len(data__fact__context)
                        if data__fact__context_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.context must be longer than or equal to 1 characters")
                        if data__fact__context_len > 2000:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.context must be shorter than or equal to 2000 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__fact__context):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.context must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if "category" in data__fact_keys:
                    data__fact_keys.remove("category")
                    data__fact__category = data__fact["category"]
                    if not isinstance(data__fact__category, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.category must be string")
                    if not (isinstance(data__fact__category, str) and data__fact__category == 'identity' or isinstance(data__fact__category, str) and data__fact__category == 'health' or isinstance(data__fact__category, str) and data__fact__category == 'preference' or isinstance(data__fact__category, str) and data__fact__category == 'relationship' or isinstance(data__fact__category, str) and data__fact__category == 'state' or isinstance(data__fact__category, str) and data__fact__category == 'decision' or isinstance(data__fact__category, str) and data__fact__category == 'action' or isinstance(data__fact__category, str) and data__fact__category == 'fact' or isinstance(data__fact__category, str) and data__fact__category == 'temporary'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.category must be one of ['identity', 'health', 'preference', 'relationship', 'state', 'decision', 'action', 'fact', 'temporary']")
                if "importance" in data__fact_keys:
                    data__fact_keys.remove("importance")
                    data__fact__importance = data__fact["importance"]
                    if not isinstance(data__fact__importance, (int, float, Decimal)) or isinstance(data__fact__importance, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.importance must be number")
                    if isinstance(data__fact__importance, (int, float, Decimal)) and not isinstance(data__fact__importance, bool):
                        if data__fact__importance < 0:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.importance must be bigger than or equal to 0")
                        if data__fact__importance > 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.importance must be smaller than or equal to 1")
                if "salience" in data__fact_keys:
                    data__fact_keys.remove("salience")
                    data__fact__salience = data__fact["salience"]
                    if not isinstance(data__fact__salience, (int, float, Decimal)) or isinstance(data__fact__salience, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.salience must be number")
                    if isinstance(data__fact__salience, (int, float, Decimal)) and not isinstance(data__fact__salience, bool):
                        if data__fact__salience < 0:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.salience must be bigger than or equal to 0")
                        if data__fact__salience > 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.salience must be smaller than or equal to 1")
                if "pinned" in data__fact_keys:
                    data__fact_keys.remove("pinned")
                    data__fact__pinned = data__fact["pinned"]
                    if not isinstance(data__fact__pinned, (bool)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.pinned must be boolean")
                if "entities" in data__fact_keys:
                    data__fact_keys.remove("entities")
                    data__fact__entities = data__fact["entities"]
                    if not isinstance(data__fact__entities, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.entities must be array")
                    data__fact__entities_is_list = isinstance(data__fact__entities, (list, tuple))
                    if data__fact__entities_is_list:
                        data__fact__entities_len = len(data__fact__entities)
                        if data__fact__entities_len > 50:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.entities must contain less than or equal to 50 items")
                        for data__fact__entities_x, data__fact__entities_item in enumerate(data__fact__entities):
                            if not isinstance(data__fact__entities_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.entities[{data__fact__entities_x}]".format(**locals()) + " must be string")
                            if isinstance(data__fact__entities_item, str):
                                data__fact__entities_item_len = len(data__fact__entities_item)
                                if data__fact__entities_item_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.entities[{data__fact__entities_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
                                if data__fact__entities_item_len > 256:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.entities[{data__fact__entities_x}]".format(**locals()) + " must be shorter than or equal to 256 characters")
                                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__fact__entities_item):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.entities[{data__fact__entities_x}]".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
                if "valid_from" in data__fact_keys:
                    data__fact_keys.remove("valid_from")
                    data__fact__validfrom = data__fact["valid_from"]
                    if not isinstance(data__fact__validfrom, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.valid_from must be string")
                    if isinstance(data__fact__validfrom, str):
                        if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$'].search(data__fact__validfrom):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.valid_from must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$")
                if "confidence" in data__fact_keys:
                    data__fact_keys.remove("confidence")
                    data__fact__confidence = data__fact["confidence"]
                    if not isinstance(data__fact__confidence, (int, float, Decimal)) or isinstance(data__fact__confidence, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.confidence must be number")
                    if isinstance(data__fact__confidence, (int, float, Decimal)) and not isinstance(data__fact__confidence, bool):
                        if data__fact__confidence < 0:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.confidence must be bigger than or equal to 0")
                        if data__fact__confidence > 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.confidence must be smaller than or equal to 1")
                if "supersedes" in data__fact_keys:
                    data__fact_keys.remove("supersedes")
                    data__fact__supersedes = data__fact["supersedes"]
                    if not isinstance(data__fact__supersedes, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.supersedes must be string")
                    if isinstance(data__fact__supersedes, str):
                        if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__fact__supersedes):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.supersedes must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
                if "superseded_by" in data__fact_keys:
                    data__fact_keys.remove("superseded_by")
                    data__fact__supersededby = data__fact["superseded_by"]
                    if not isinstance(data__fact__supersededby, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.superseded_by must be string")
                    if isinstance(data__fact__supersededby, str):
                        if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__fact__supersededby):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.superseded_by must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
                if "superseded_at" in data__fact_keys:
                    data__fact_keys.remove("superseded_at")
                    data__fact__supersededat = data__fact["superseded_at"]
                    if not isinstance(data__fact__supersededat, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.superseded_at must be string")
                    if isinstance(data__fact__supersededat, str):
                        if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__fact__supersededat):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.superseded_at must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
                if "provenance" in data__fact_keys:
                    data__fact_keys.remove("provenance")
                    data__fact__provenance = data__fact["provenance"]
                    if not isinstance(data__fact__provenance, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance must be object")
                    data__fact__provenance_is_dict = isinstance(data__fact__provenance, dict)
                    if data__fact__provenance_is_dict:
                        data__fact__provenance__missing_keys = set(['origin']) - data__fact__provenance.keys()
                        if data__fact__provenance__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance must contain ")
                        data__fact__provenance_keys = set(data__fact__provenance.keys())
                        if "origin" in data__fact__provenance_keys:
                            data__fact__provenance_keys.remove("origin")
                            data__fact__provenance__origin = data__fact__provenance["origin"]
                            if not (isinstance(data__fact__provenance__origin, str) and data__fact__provenance__origin == 'owner' or isinstance(data__fact__provenance__origin, str) and data__fact__provenance__origin == 'agent' or isinstance(data__fact__provenance__origin, str) and data__fact__provenance__origin == 'untrusted' or isinstance(data__fact__provenance__origin, str) and data__fact__provenance__origin == 'system' or isinstance(data__fact__provenance__origin, str) and data__fact__provenance__origin == 'unknown'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.origin must be one of ['owner', 'agent', 'untrusted', 'system', 'unknown']")
                        if "session" in data__fact__provenance_keys:
                            data__fact__provenance_keys.remove("session")
                            data__fact__provenance__session = data__fact__provenance["session"]
                            if not (isinstance(data__fact__provenance__session, str) and data__fact__provenance__session == 'interactive' or isinstance(data__fact__provenance__session, str) and data__fact__provenance__session == 'heartbeat' or isinstance(data__fact__provenance__session, str) and data__fact__provenance__session == 'cron' or isinstance(data__fact__provenance__session, str) and data__fact__provenance__session == 'subagent' or isinstance(data__fact__provenance__session, str) and data__fact__provenance__session == 'inter_session' or isinstance(data__fact__provenance__session, str) and data__fact__provenance__session == 'hook'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.session must be one of ['interactive', 'heartbeat', 'cron', 'subagent', 'inter_session', 'hook']")
                        if "chat" in data__fact__provenance_keys:
                            data__fact__provenance_keys.remove("chat")
                            data__fact__provenance__chat = data__fact__provenance["chat"]
                            if not isinstance(data__fact__provenance__chat, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.chat must be string")
                            if isinstance(data__fact__provenance__chat, str):
                                data__fact__provenance__chat_len = len(data__fact__provenance__chat)
                                if data__fact__provenance__chat_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.chat must be longer than or equal to 1 characters")
                                if data__fact__provenance__chat_len > 256:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.chat must be shorter than or equal to 256 characters")
                        if "channel" in data__fact__provenance_keys:
                            data__fact__provenance_keys.remove("channel")
                            data__fact__provenance__channel = data__fact__provenance["channel"]
                            if not isinstance(data__fact__provenance__channel, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.channel must be string")
                            if isinstance(data__fact__provenance__channel, str):
                                data__fact__provenance__channel_len = len(data__fact__provenance__channel)
                                if data__fact__provenance__channel_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.channel must be longer than or equal to 1 characters")
                                if data__fact__provenance__channel_len > 256:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.channel must be shorter than or equal to 256 characters")
                        if "sender" in data__fact__provenance_keys:
                            data__fact__provenance_keys.remove("sender")
                            data__fact__provenance__sender = data__fact__provenance["sender"]
                            if not isinstance(data__fact__provenance__sender, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.sender must be string")
                            if isinstance(data__fact__provenance__sender, str):
                                data__fact__provenance__sender_len = len(data__fact__provenance__sender)
                                if data__fact__provenance__sender_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.sender must be longer than or equal to 1 characters")
                                if data__fact__provenance__sender_len > 256:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.sender must be shorter than or equal to 256 characters")
                        if "group" in data__fact__provenance_keys:
                            data__fact__provenance_keys.remove("group")
                            data__fact__provenance__group = data__fact__provenance["group"]
                            if not isinstance(data__fact__provenance__group, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.group must be string")
                            if isinstance(data__fact__provenance__group, str):
                                data__fact__provenance__group_len = len(data__fact__provenance__group)
                                if data__fact__provenance__group_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.group must be longer than or equal to 1 characters")
                                if data__fact__provenance__group_len > 512:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance.group must be shorter than or equal to 512 characters")
                        if data__fact__provenance_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact.provenance must not contain "+str(data__fact__provenance_keys)+" properties")
                if data__fact_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact must not contain "+str(data__fact_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_pending_memory_schema_json
