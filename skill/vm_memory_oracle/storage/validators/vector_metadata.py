# Generated from schemas/vector-metadata.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '7041a8e490dd805ca263b968e04db20f9b94b52e8370cacc195ed03237d28acd'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$': re.compile('^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z'),
    '^[0-9a-f]{16}$': re.compile('^[0-9a-f]{16}\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_vector_metadata_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['vector_id', 'fact_id', 'model_id', 'dimension', 'content_hash']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "vector_id" in data_keys:
            data_keys.remove("vector_id")
            data__vectorid = data["vector_id"]
            if not isinstance(data__vectorid, (int)) and not (isinstance(data__vectorid, float) and data__vectorid.is_integer()) or isinstance(data__vectorid, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".vector_id must be integer")
            if isinstance(data__vectorid, (int, float, Decimal)) and not isinstance(data__vectorid, bool):
                if data__vectorid < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".vector_id must be bigger than or equal to 0")
        if "fact_id" in data_keys:
            data_keys.remove("fact_id")
            data__factid = data["fact_id"]
            if not isinstance(data__factid, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact_id must be string")
            if isinstance(data__factid, str):
                if not REGEX_PATTERNS['^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'].search(data__factid):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".fact_id must match pattern ^fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        if "model_id" in data_keys:
            data_keys.remove("model_id")
            data__modelid = data["model_id"]
            if not isinstance(data__modelid, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".model_id must be string")
            if isinstance(data__modelid, str):
                data__modelid_len = len(data__modelid)
                if data__modelid_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".model_id must be longer than or equal to 1 characters")
                if data__modelid_len > 256:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".model_id must be shorter than or equal to 256 characters")
        if "dimension" in data_keys:
            data_keys.remove("dimension")
            data__dimension = data["dimension"]
            if not isinstance(data__dimension, (int)) and not (isinstance(data__dimension, float) and data__dimension.is_integer()) or isinstance(data__dimension, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".dimension must be integer")
            if isinstance(data__dimension, (int, float, Decimal)) and not isinstance(data__dimension, bool):
                if data__dimension < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".dimension must be bigger than or equal to 1")
                if data__dimension > 65536:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".dimension must be smaller than or equal to 65536")
        if "content_hash" in data_keys:
            data_keys.remove("content_hash")
            data__contenthash = data["content_hash"]
            if not isinstance(data__contenthash, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".content_hash must be string")
            if isinstance(data__contenthash, str):
                if not REGEX_PATTERNS['^[0-9a-f]{16}$'].search(data__contenthash):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".content_hash must match pattern ^[0-9a-f]{16}$")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_vector_metadata_schema_json
