# Generated from schemas/archived-fact.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = 'd9c103def0378f186e1044bb02f9b42c7866c58b8ae2326e95f9e06ae0d63e2b'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z'),
    '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$': re.compile('^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*\\Z'),
    '^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$': re.compile('^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_archived_fact_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['id', 'subject', 'predicate', 'object', 'source', 'created', 'activation', 'archived_at', 'archive_reason']) - data.keys()
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
        if "subject" in data_keys:
            data_keys.remove("subject")
            data__subject = data["subject"]
            if not isinstance(data__subject, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".subject must be string")
            if isinstance(data__subject, str):
                data__subject_len = len(data__subject)
                if data__subject_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".subject must be longer than or equal to 1 characters")
                if data__subject_len > 256:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".subject must be shorter than or equal to 256 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__subject):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".subject must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
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
        if "object" in data_keys:
            data_keys.remove("object")
            data__object = data["object"]
            if not isinstance(data__object, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".object must be string")
            if isinstance(data__object, str):
                data__object_len = len(data__object)
                if data__object_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".object must be longer than or equal to 1 characters")
                if data__object_len > 2000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".object must be shorter than or equal to 2000 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__object):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".object must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
            if isinstance(data__source, str):
                data__source_len = len(data__source)
                if data__source_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be longer than or equal to 1 characters")
                if data__source_len > 512:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be shorter than or equal to 512 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__source):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "sources" in data_keys:
            data_keys.remove("sources")
            data__sources = data["sources"]
            if not isinstance(data__sources, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources must be array")
            data__sources_is_list = isinstance(data__sources, (list, tuple))
            if data__sources_is_list:
                data__sources_len = len(data__sources)
                if data__sources_len > 20:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources must contain less than or equal to 20 items")
                for data__sources_x, data__sources_item in enumerate(data__sources):
                    if not isinstance(data__sources_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources[{data__sources_x}]".format(**locals()) + " must be string")
                    if isinstance(data__sources_item, str):
                        data__sources_item_len = len(data__sources_item)
                        if data__sources_item_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources[{data__sources_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
                        if data__sources_item_len > 512:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources[{data__sources_x}]".format(**locals()) + " must be shorter than or equal to 512 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__sources_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources[{data__sources_x}]".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "created" in data_keys:
            data_keys.remove("created")
            data__created = data["created"]
            if not isinstance(data__created, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".created must be string")
            if isinstance(data__created, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__created):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".created must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
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
        if "text" in data_keys:
            data_keys.remove("text")
            data__text = data["text"]
            if not isinstance(data__text, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".text must be string")
            if isinstance(data__text, str):
                data__text_len = len(data__text)
                if data__text_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".text must be longer than or equal to 1 characters")
                if data__text_len > 2000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".text must be shorter than or equal to 2000 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__text):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".text must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "context" in data_keys:
            data_keys.remove("context")
            data__context = data["context"]
            if not isinstance(data__context, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".context must be string")
            if isinstance(data__context, str):
                data__context_len = len(data__context)
                if data__context_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".context must be longer than or equal to 1 characters")
                if data__context_len > 2000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".context must be shorter than or equal to 2000 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__context):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".context must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "category" in data_keys:
            data_keys.remove("category")
            data__category = data["category"]
            if not isinstance(data__category, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".category must be string")
            if not (isinstance(data__category, str) and data__category == 'identity' or isinstance(data__category, str) and data__category == 'health' or isinstance(data__category, str) and data__category == 'preference' or isinstance(data__category, str) and data__category == 'relationship' or isinstance(data__category, str) and data__category == 'state' or isinstance(data__category, str) and data__category == 'decision' or isinstance(data__category, str) and data__category == 'action' or isinstance(data__category, str) and data__category == 'fact' or isinstance(data__category, str) and data__category == 'temporary'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".category must be one of ['identity', 'health', 'preference', 'relationship', 'state', 'decision', 'action', 'fact', 'temporary']")
        if "importance" in data_keys:
            data_keys.remove("importance")
            data__importance = data["importance"]
            if not isinstance(data__importance, (int, float, Decimal)) or isinstance(data__importance, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".importance must be number")
            if isinstance(data__importance, (int, float, Decimal)) and not isinstance(data__importance, bool):
                if data__importance < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".importance must be bigger than or equal to 0")
                if data__importance > 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".importance must be smaller than or equal to 1")
        if "salience" in data_keys:
            data_keys.remove("salience")
            data__salience = data["salience"]
            if not isinstance(data__salience, (int, float, Decimal)) or isinstance(data__salience, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".salience must be number")
            if isinstance(data__salience, (int, float, Decimal)) and not isinstance(data__salience, bool):
                if data__salience < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".salience must be bigger than or equal to 0")
                if data__salience > 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".salience must be smaller than or equal to 1")
        if "pinned" in data_keys:
            data_keys.remove("pinned")
            data__pinned = data["pinned"]
            if not isinstance(data__pinned, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".pinned must be boolean")
        if "entities" in data_keys:
            data_keys.remove("entities")
            data__entities = data["entities"]
            if not isinstance(data__entities, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".entities must be array")
            data__entities_is_list = isinstance(data__entities, (list, tuple))
            if data__entities_is_list:
                data__entities_len = len(data__entities)
                if data__entities_len > 50:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".entities must contain less than or equal to 50 items")
                for data__entities_x, data__entities_item in enumerate(data__entities):
                    if not isinstance(data__entities_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".entities[{data__entities_x}]".format(**locals()) + " must be string")
                    if isinstance(data__entities_item, str):
                        data__entities_item_len = len(data__entities_item)
                        if data__entities_item_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".entities[{data__entities_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
                        if data__entities_item_len > 256:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".entities[{data__entities_x}]".format(**locals()) + " must be shorter than or equal to 256 characters")
                        if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__entities_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".entities[{data__entities_x}]".format(**locals()) + " must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "valid_from" in data_keys:
            data_keys.remove("valid_from")
            data__validfrom = data["valid_from"]
            if not isinstance(data__validfrom, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".valid_from must be string")
            if isinstance(data__validfrom, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$'].search(data__validfrom):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".valid_from must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))?$")
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
        if "supersedes" in data_keys:
            data_keys.remove("supersedes")
            data__supersedes = data["supersedes"]
            if not isinstance(data__supersedes, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".supersedes must be string")
            if isinstance(data__supersedes, str):
                if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__supersedes):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".supersedes must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "superseded_by" in data_keys:
            data_keys.remove("superseded_by")
            data__supersededby = data["superseded_by"]
            if not isinstance(data__supersededby, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".superseded_by must be string")
            if isinstance(data__supersededby, str):
                if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__supersededby):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".superseded_by must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "superseded_at" in data_keys:
            data_keys.remove("superseded_at")
            data__supersededat = data["superseded_at"]
            if not isinstance(data__supersededat, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".superseded_at must be string")
            if isinstance(data__supersededat, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__supersededat):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".superseded_at must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "archived_at" in data_keys:
            data_keys.remove("archived_at")
            data__archivedat = data["archived_at"]
            if not isinstance(data__archivedat, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".archived_at must be string")
            if isinstance(data__archivedat, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__archivedat):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".archived_at must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "archive_reason" in data_keys:
            data_keys.remove("archive_reason")
            data__archivereason = data["archive_reason"]
            if not isinstance(data__archivereason, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_reason must be string")
            if isinstance(data__archivereason, str):
                data__archivereason_len = len(data__archivereason)
                if data__archivereason_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_reason must be longer than or equal to 1 characters")
                if data__archivereason_len > 512:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_reason must be shorter than or equal to 512 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__archivereason):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_reason must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
        if "final_activation" in data_keys:
            data_keys.remove("final_activation")
            data__finalactivation = data["final_activation"]
            if not isinstance(data__finalactivation, (int, float, Decimal)) or isinstance(data__finalactivation, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".final_activation must be number")
            if isinstance(data__finalactivation, (int, float, Decimal)) and not isinstance(data__finalactivation, bool):
                if data__finalactivation < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".final_activation must be bigger than or equal to 0")
                if data__finalactivation > 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".final_activation must be smaller than or equal to 1")
        if "merged_into" in data_keys:
            data_keys.remove("merged_into")
            data__mergedinto = data["merged_into"]
            if not isinstance(data__mergedinto, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".merged_into must be string")
            if isinstance(data__mergedinto, str):
                if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__mergedinto):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".merged_into must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "archive_cause" in data_keys:
            data_keys.remove("archive_cause")
            data__archivecause = data["archive_cause"]
            if not isinstance(data__archivecause, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_cause must be object")
            data__archivecause_is_dict = isinstance(data__archivecause, dict)
            if data__archivecause_is_dict:
                data__archivecause__missing_keys = set(['code', 'detail']) - data__archivecause.keys()
                if data__archivecause__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_cause must contain ")
                data__archivecause_keys = set(data__archivecause.keys())
                if "code" in data__archivecause_keys:
                    data__archivecause_keys.remove("code")
                    data__archivecause__code = data__archivecause["code"]
                    if not (isinstance(data__archivecause__code, str) and data__archivecause__code == 'superseded' or isinstance(data__archivecause__code, str) and data__archivecause__code == 'merged' or isinstance(data__archivecause__code, str) and data__archivecause__code == 'pruned' or isinstance(data__archivecause__code, str) and data__archivecause__code == 'stale' or isinstance(data__archivecause__code, str) and data__archivecause__code == 'forgotten' or isinstance(data__archivecause__code, str) and data__archivecause__code == 'other'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_cause.code must be one of ['superseded', 'merged', 'pruned', 'stale', 'forgotten', 'other']")
                if "detail" in data__archivecause_keys:
                    data__archivecause_keys.remove("detail")
                    data__archivecause__detail = data__archivecause["detail"]
                    if not isinstance(data__archivecause__detail, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_cause.detail must be string")
                    if isinstance(data__archivecause__detail, str):
                        data__archivecause__detail_len = len(data__archivecause__detail)
                        if data__archivecause__detail_len > 512:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_cause.detail must be shorter than or equal to 512 characters")
                if data__archivecause_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".archive_cause must not contain "+str(data__archivecause_keys)+" properties")
        if "provenance" in data_keys:
            data_keys.remove("provenance")
            data__provenance = data["provenance"]
            if not isinstance(data__provenance, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance must be object")
            data__provenance_is_dict = isinstance(data__provenance, dict)
            if data__provenance_is_dict:
                data__provenance__missing_keys = set(['origin']) - data__provenance.keys()
                if data__provenance__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance must contain ")
                data__provenance_keys = set(data__provenance.keys())
                if "origin" in data__provenance_keys:
                    data__provenance_keys.remove("origin")
                    data__provenance__origin = data__provenance["origin"]
                    if not (isinstance(data__provenance__origin, str) and data__provenance__origin == 'owner' or isinstance(data__provenance__origin, str) and data__provenance__origin == 'agent' or isinstance(data__provenance__origin, str) and data__provenance__origin == 'untrusted' or isinstance(data__provenance__origin, str) and data__provenance__origin == 'system' or isinstance(data__provenance__origin, str) and data__provenance__origin == 'unknown'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.origin must be one of ['owner', 'agent', 'untrusted', 'system', 'unknown']")
                if "session" in data__provenance_keys:
                    data__provenance_keys.remove("session")
                    data__provenance__session = data__provenance["session"]
                    if not (isinstance(data__provenance__session, str) and data__provenance__session == 'interactive' or isinstance(data__provenance__session, str) and data__provenance__session == 'heartbeat' or isinstance(data__provenance__session, str) and data__provenance__session == 'cron' or isinstance(data__provenance__session, str) and data__provenance__session == 'subagent' or isinstance(data__provenance__session, str) and data__provenance__session == 'inter_session' or isinstance(data__provenance__session, str) and data__provenance__session == 'hook'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.session must be one of ['interactive', 'heartbeat', 'cron', 'subagent', 'inter_session', 'hook']")
                if "chat" in data__provenance_keys:
                    data__provenance_keys.remove("chat")
                    data__provenance__chat = data__provenance["chat"]
                    if not isinstance(data__provenance__chat, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.chat must be string")
                    if isinstance(data__provenance__chat, str):
                        data__provenance__chat_len = len(data__provenance__chat)
                        if data__provenance__chat_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.chat must be longer than or equal to 1 characters")
                        if data__provenance__chat_len > 256:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.chat must be shorter than or equal to 256 characters")
                if "channel" in data__provenance_keys:
                    data__provenance_keys.remove("channel")
                    data__provenance__channel = data__provenance["channel"]
                    if not isinstance(data__provenance__channel, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.channel must be string")
                    if isinstance(data__provenance__channel, str):
                        data__provenance__channel_len = len(data__provenance__channel)
                        if data__provenance__channel_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.channel must be longer than or equal to 1 characters")
                        if data__provenance__channel_len > 256:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.channel must be shorter than or equal to 256 characters")
                if "sender" in data__provenance_keys:
                    data__provenance_keys.remove("sender")
                    data__provenance__sender = data__provenance["sender"]
                    if not isinstance(data__provenance__sender, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.sender must be string")
                    if isinstance(data__provenance__sender, str):
                        data__provenance__sender_len = len(data__provenance__sender)
                        if data__provenance__sender_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.sender must be longer than or equal to 1 characters")
                        if data__provenance__sender_len > 256:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.sender must be shorter than or equal to 256 characters")
                if "group" in data__provenance_keys:
                    data__provenance_keys.remove("group")
                    data__provenance__group = data__provenance["group"]
                    if not isinstance(data__provenance__group, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.group must be string")
                    if isinstance(data__provenance__group, str):
                        data__provenance__group_len = len(data__provenance__group)
                        if data__provenance__group_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.group must be longer than or equal to 1 characters")
                        if data__provenance__group_len > 512:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance.group must be shorter than or equal to 512 characters")
                if data__provenance_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".provenance must not contain "+str(data__provenance_keys)+" properties")
        if "purged" in data_keys:
            data_keys.remove("purged")
            data__purged = data["purged"]
            if not isinstance(data__purged, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".purged must be boolean")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_archived_fact_schema_json
