# Generated from schemas/import-ledger.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '23e561fc08bfe0fa90b9139384596f17e03db7a162afa143b1e497d478dcc781'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}\\Z'),
    '^(USER\\.md|memory/[^/\\\\\\u0000-\\u001f\\u007f]{1,251}\\.md)$': re.compile('^(USER\\.md|memory/[^/\\\\\\u0000-\\u001f\\u007f]{1,251}\\.md)\\Z'),
    '^[0-9a-f]{16}$': re.compile('^[0-9a-f]{16}\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_import_ledger_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['sources']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "sources" in data_keys:
            data_keys.remove("sources")
            data__sources = data["sources"]
            if not isinstance(data__sources, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources must be object")
            data__sources_is_dict = isinstance(data__sources, dict)
            if data__sources_is_dict:
                data__sources_keys = set(data__sources.keys())
                for data__sources_key in data__sources_keys:
                    if data__sources_key not in []:
                        data__sources_value = data__sources.get(data__sources_key)
                        data__sources_value_one_of_count1 = 0
                        if data__sources_value_one_of_count1 < 2:
                            try:
                                if not isinstance(data__sources_value, (dict)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must be object")
                                data__sources_value_is_dict = isinstance(data__sources_value, dict)
                                if data__sources_value_is_dict:
                                    data__sources_value__missing_keys = set(['size', 'mtime_ns', 'files']) - data__sources_value.keys()
                                    if data__sources_value__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must contain ")
                                    data__sources_value_keys = set(data__sources_value.keys())
                                    if "size" in data__sources_value_keys:
                                        data__sources_value_keys.remove("size")
                                        data__sources_value__size = data__sources_value["size"]
                                        if not isinstance(data__sources_value__size, (int)) and not (isinstance(data__sources_value__size, float) and data__sources_value__size.is_integer()) or isinstance(data__sources_value__size, bool):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.size".format(**locals()) + " must be integer")
                                        if isinstance(data__sources_value__size, (int, float, Decimal)) and not isinstance(data__sources_value__size, bool):
                                            if data__sources_value__size < 0:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.size".format(**locals()) + " must be bigger than or equal to 0")
                                    if "mtime_ns" in data__sources_value_keys:
                                        data__sources_value_keys.remove("mtime_ns")
                                        data__sources_value__mtimens = data__sources_value["mtime_ns"]
                                        if not isinstance(data__sources_value__mtimens, (int)) and not (isinstance(data__sources_value__mtimens, float) and data__sources_value__mtimens.is_integer()) or isinstance(data__sources_value__mtimens, bool):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.mtime_ns".format(**locals()) + " must be integer")
                                    if "files" in data__sources_value_keys:
                                        data__sources_value_keys.remove("files")
                                        data__sources_value__files = data__sources_value["files"]
                                        if not isinstance(data__sources_value__files, (list, tuple)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files".format(**locals()) + " must be array")
                                        data__sources_value__files_is_list = isinstance(data__sources_value__files, (list, tuple))
                                        if data__sources_value__files_is_list:
                                            data__sources_value__files_len = len(data__sources_value__files)
                                            for data__sources_value__files_x, data__sources_value__files_item in enumerate(data__sources_value__files):
                                                if not isinstance(data__sources_value__files_item, (str)):
                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files[{data__sources_value__files_x}]".format(**locals()) + " must be string")
                                                if isinstance(data__sources_value__files_item, str):
                                                    if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$'].search(data__sources_value__files_item):
                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files[{data__sources_value__files_x}]".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$")
                                    if data__sources_value_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must not contain "+str(data__sources_value_keys)+" properties")
                                data__sources_value_one_of_count1 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if data__sources_value_one_of_count1 < 2:
                            try:
                                if not isinstance(data__sources_value, (dict)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must be object")
                                data__sources_value_is_dict = isinstance(data__sources_value, dict)
                                if data__sources_value_is_dict:
                                    data__sources_value__missing_keys = set(['kind', 'sessions']) - data__sources_value.keys()
                                    if data__sources_value__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must contain ")
                                    data__sources_value_keys = set(data__sources_value.keys())
                                    if "kind" in data__sources_value_keys:
                                        data__sources_value_keys.remove("kind")
                                        data__sources_value__kind = data__sources_value["kind"]
                                        if not (isinstance(data__sources_value__kind, str) and data__sources_value__kind == 'openclaw-transcripts'):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.kind".format(**locals()) + " must be one of ['openclaw-transcripts']")
                                    if "sessions" in data__sources_value_keys:
                                        data__sources_value_keys.remove("sessions")
                                        data__sources_value__sessions = data__sources_value["sessions"]
                                        if not isinstance(data__sources_value__sessions, (dict)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions".format(**locals()) + " must be object")
                                        data__sources_value__sessions_is_dict = isinstance(data__sources_value__sessions, dict)
                                        if data__sources_value__sessions_is_dict:
                                            data__sources_value__sessions_keys = set(data__sources_value__sessions.keys())
                                            for data__sources_value__sessions_key in data__sources_value__sessions_keys:
                                                if data__sources_value__sessions_key not in []:
                                                    data__sources_value__sessions_value = data__sources_value__sessions.get(data__sources_value__sessions_key)
                                                    if not isinstance(data__sources_value__sessions_value, (dict)):
                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}".format(**locals()) + " must be object")
                                                    data__sources_value__sessions_value_is_dict = isinstance(data__sources_value__sessions_value, dict)
                                                    if data__sources_value__sessions_value_is_dict:
                                                        data__sources_value__sessions_value__missing_keys = set(['seq', 'files']) - data__sources_value__sessions_value.keys()
                                                        if data__sources_value__sessions_value__missing_keys:
                                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}".format(**locals()) + " must contain ")
                                                        data__sources_value__sessions_value_keys = set(data__sources_value__sessions_value.keys())
                                                        if "seq" in data__sources_value__sessions_value_keys:
                                                            data__sources_value__sessions_value_keys.remove("seq")
                                                            data__sources_value__sessions_value__seq = data__sources_value__sessions_value["seq"]
                                                            if not isinstance(data__sources_value__sessions_value__seq, (int)) and not (isinstance(data__sources_value__sessions_value__seq, float) and data__sources_value__sessions_value__seq.is_integer()) or isinstance(data__sources_value__sessions_value__seq, bool):
                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.seq".format(**locals()) + " must be integer")
                                                            if isinstance(data__sources_value__sessions_value__seq, (int, float, Decimal)) and not isinstance(data__sources_value__sessions_value__seq, bool):
                                                                if data__sources_value__sessions_value__seq < -1:
                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.seq".format(**locals()) + " must be bigger than or equal to -1")
                                                        if "files" in data__sources_value__sessions_value_keys:
                                                            data__sources_value__sessions_value_keys.remove("files")
                                                            data__sources_value__sessions_value__files = data__sources_value__sessions_value["files"]
                                                            if not isinstance(data__sources_value__sessions_value__files, (dict)):
                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.files".format(**locals()) + " must be object")
                                                            data__sources_value__sessions_value__files_is_dict = isinstance(data__sources_value__sessions_value__files, dict)
                                                            if data__sources_value__sessions_value__files_is_dict:
                                                                data__sources_value__sessions_value__files_keys = set(data__sources_value__sessions_value__files.keys())
                                                                for data__sources_value__sessions_value__files_key in data__sources_value__sessions_value__files_keys:
                                                                    if data__sources_value__sessions_value__files_key not in []:
                                                                        data__sources_value__sessions_value__files_value = data__sources_value__sessions_value__files.get(data__sources_value__sessions_value__files_key)
                                                                        if not isinstance(data__sources_value__sessions_value__files_value, (str)):
                                                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.files.{data__sources_value__sessions_value__files_key}".format(**locals()) + " must be string")
                                                                        if isinstance(data__sources_value__sessions_value__files_value, str):
                                                                            if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$'].search(data__sources_value__sessions_value__files_value):
                                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.files.{data__sources_value__sessions_value__files_key}".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$")
                                                                data__sources_value__sessions_value__files_len = len(data__sources_value__sessions_value__files)
                                                                if data__sources_value__sessions_value__files_len != 0:
                                                                    data__sources_value__sessions_value__files_property_names = True
                                                                    for data__sources_value__sessions_value__files_key in data__sources_value__sessions_value__files:
                                                                        try:
                                                                            if isinstance(data__sources_value__sessions_value__files_key, str):
                                                                                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}$'].search(data__sources_value__sessions_value__files_key):
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.files".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
                                                                        except (JsonSchemaValueException, JsonSchemaValuesException):
                                                                            data__sources_value__sessions_value__files_property_names = False
                                                                    if not data__sources_value__sessions_value__files_property_names:
                                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.files".format(**locals()) + " must be named by propertyName definition")
                                                        if "turn" in data__sources_value__sessions_value_keys:
                                                            data__sources_value__sessions_value_keys.remove("turn")
                                                            data__sources_value__sessions_value__turn = data__sources_value__sessions_value["turn"]
                                                            if not isinstance(data__sources_value__sessions_value__turn, (dict)):
                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn".format(**locals()) + " must be object")
                                                            data__sources_value__sessions_value__turn_is_dict = isinstance(data__sources_value__sessions_value__turn, dict)
                                                            if data__sources_value__sessions_value__turn_is_dict:
                                                                data__sources_value__sessions_value__turn_keys = set(data__sources_value__sessions_value__turn.keys())
                                                                if "provenance" in data__sources_value__sessions_value__turn_keys:
                                                                    data__sources_value__sessions_value__turn_keys.remove("provenance")
                                                                    data__sources_value__sessions_value__turn__provenance = data__sources_value__sessions_value__turn["provenance"]
                                                                    if not isinstance(data__sources_value__sessions_value__turn__provenance, (dict)):
                                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance".format(**locals()) + " must be object")
                                                                    data__sources_value__sessions_value__turn__provenance_is_dict = isinstance(data__sources_value__sessions_value__turn__provenance, dict)
                                                                    if data__sources_value__sessions_value__turn__provenance_is_dict:
                                                                        data__sources_value__sessions_value__turn__provenance__missing_keys = set(['origin']) - data__sources_value__sessions_value__turn__provenance.keys()
                                                                        if data__sources_value__sessions_value__turn__provenance__missing_keys:
                                                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance".format(**locals()) + " must contain ")
                                                                        data__sources_value__sessions_value__turn__provenance_keys = set(data__sources_value__sessions_value__turn__provenance.keys())
                                                                        if "origin" in data__sources_value__sessions_value__turn__provenance_keys:
                                                                            data__sources_value__sessions_value__turn__provenance_keys.remove("origin")
                                                                            data__sources_value__sessions_value__turn__provenance__origin = data__sources_value__sessions_value__turn__provenance["origin"]
                                                                            if not (isinstance(data__sources_value__sessions_value__turn__provenance__origin, str) and data__sources_value__sessions_value__turn__provenance__origin == 'owner' or isinstance(data__sources_value__sessions_value__turn__provenance__origin, str) and data__sources_value__sessions_value__turn__provenance__origin == 'agent' or isinstance(data__sources_value__sessions_value__turn__provenance__origin, str) and data__sources_value__sessions_value__turn__provenance__origin == 'untrusted' or isinstance(data__sources_value__sessions_value__turn__provenance__origin, str) and data__sources_value__sessions_value__turn__provenance__origin == 'system' or isinstance(data__sources_value__sessions_value__turn__provenance__origin, str) and data__sources_value__sessions_value__turn__provenance__origin == 'unknown'):
                                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.origin".format(**locals()) + " must be one of ['owner', 'agent', 'untrusted', 'system', 'unknown']")
                                                                        if "session" in data__sources_value__sessions_value__turn__provenance_keys:
                                                                            data__sources_value__sessions_value__turn__provenance_keys.remove("session")
                                                                            data__sources_value__sessions_value__turn__provenance__session = data__sources_value__sessions_value__turn__provenance["session"]
                                                                            if not (isinstance(data__sources_value__sessions_value__turn__provenance__session, str) and data__sources_value__sessions_value__turn__provenance__session == 'interactive' or isinstance(data__sources_value__sessions_value__turn__provenance__session, str) and data__sources_value__sessions_value__turn__provenance__session == 'heartbeat' or isinstance(data__sources_value__sessions_value__turn__provenance__session, str) and data__sources_value__sessions_value__turn__provenance__session == 'cron' or isinstance(data__sources_value__sessions_value__turn__provenance__session, str) and data__sources_value__sessions_value__turn__provenance__session == 'subagent' or isinstance(data__sources_value__sessions_value__turn__provenance__session, str) and data__sources_value__sessions_value__turn__provenance__session == 'inter_session' or isinstance(data__sources_value__sessions_value__turn__provenance__session, str) and data__sources_value__sessions_value__turn__provenance__session == 'hook'):
                                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.session".format(**locals()) + " must be one of ['interactive', 'heartbeat', 'cron', 'subagent', 'inter_session', 'hook']")
                                                                        if "chat" in data__sources_value__sessions_value__turn__provenance_keys:
                                                                            data__sources_value__sessions_value__turn__provenance_keys.remove("chat")
                                                                            data__sources_value__sessions_value__turn__provenance__chat = data__sources_value__sessions_value__turn__provenance["chat"]
                                                                            if not isinstance(data__sources_value__sessions_value__turn__provenance__chat, (str)):
                                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.chat".format(**locals()) + " must be string")
                                                                            if isinstance(data__sources_value__sessions_value__turn__provenance__chat, str):
                                                                                data__sources_value__sessions_value__turn__provenance__chat_len = len(data__sources_value__sessions_value__turn__provenance__chat)
                                                                                if data__sources_value__sessions_value__turn__provenance__chat_len < 1:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.chat".format(**locals()) + " must be longer than or equal to 1 characters")
                                                                                if data__sources_value__sessions_value__turn__provenance__chat_len > 256:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.chat".format(**locals()) + " must be shorter than or equal to 256 characters")
                                                                        if "channel" in data__sources_value__sessions_value__turn__provenance_keys:
                                                                            data__sources_value__sessions_value__turn__provenance_keys.remove("channel")
                                                                            data__sources_value__sessions_value__turn__provenance__channel = data__sources_value__sessions_value__turn__provenance["channel"]
                                                                            if not isinstance(data__sources_value__sessions_value__turn__provenance__channel, (str)):
                                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.channel".format(**locals()) + " must be string")
                                                                            if isinstance(data__sources_value__sessions_value__turn__provenance__channel, str):
                                                                                data__sources_value__sessions_value__turn__provenance__channel_len = len(data__sources_value__sessions_value__turn__provenance__channel)
                                                                                if data__sources_value__sessions_value__turn__provenance__channel_len < 1:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.channel".format(**locals()) + " must be longer than or equal to 1 characters")
                                                                                if data__sources_value__sessions_value__turn__provenance__channel_len > 256:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.channel".format(**locals()) + " must be shorter than or equal to 256 characters")
                                                                        if "sender" in data__sources_value__sessions_value__turn__provenance_keys:
                                                                            data__sources_value__sessions_value__turn__provenance_keys.remove("sender")
                                                                            data__sources_value__sessions_value__turn__provenance__sender = data__sources_value__sessions_value__turn__provenance["sender"]
                                                                            if not isinstance(data__sources_value__sessions_value__turn__provenance__sender, (str)):
                                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.sender".format(**locals()) + " must be string")
                                                                            if isinstance(data__sources_value__sessions_value__turn__provenance__sender, str):
                                                                                data__sources_value__sessions_value__turn__provenance__sender_len = len(data__sources_value__sessions_value__turn__provenance__sender)
                                                                                if data__sources_value__sessions_value__turn__provenance__sender_len < 1:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.sender".format(**locals()) + " must be longer than or equal to 1 characters")
                                                                                if data__sources_value__sessions_value__turn__provenance__sender_len > 256:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.sender".format(**locals()) + " must be shorter than or equal to 256 characters")
                                                                        if "group" in data__sources_value__sessions_value__turn__provenance_keys:
                                                                            data__sources_value__sessions_value__turn__provenance_keys.remove("group")
                                                                            data__sources_value__sessions_value__turn__provenance__group = data__sources_value__sessions_value__turn__provenance["group"]
                                                                            if not isinstance(data__sources_value__sessions_value__turn__provenance__group, (str)):
                                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.group".format(**locals()) + " must be string")
                                                                            if isinstance(data__sources_value__sessions_value__turn__provenance__group, str):
                                                                                data__sources_value__sessions_value__turn__provenance__group_len = len(data__sources_value__sessions_value__turn__provenance__group)
                                                                                if data__sources_value__sessions_value__turn__provenance__group_len < 1:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.group".format(**locals()) + " must be longer than or equal to 1 characters")
                                                                                if data__sources_value__sessions_value__turn__provenance__group_len > 512:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance.group".format(**locals()) + " must be shorter than or equal to 512 characters")
                                                                        if data__sources_value__sessions_value__turn__provenance_keys:
                                                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.provenance".format(**locals()) + " must not contain "+str(data__sources_value__sessions_value__turn__provenance_keys)+" properties")
                                                                if "tainted" in data__sources_value__sessions_value__turn_keys:
                                                                    data__sources_value__sessions_value__turn_keys.remove("tainted")
                                                                    data__sources_value__sessions_value__turn__tainted = data__sources_value__sessions_value__turn["tainted"]
                                                                    if not isinstance(data__sources_value__sessions_value__turn__tainted, (bool)):
                                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn.tainted".format(**locals()) + " must be boolean")
                                                                if data__sources_value__sessions_value__turn_keys:
                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.turn".format(**locals()) + " must not contain "+str(data__sources_value__sessions_value__turn_keys)+" properties")
                                                        if "excluded" in data__sources_value__sessions_value_keys:
                                                            data__sources_value__sessions_value_keys.remove("excluded")
                                                            data__sources_value__sessions_value__excluded = data__sources_value__sessions_value["excluded"]
                                                            if not isinstance(data__sources_value__sessions_value__excluded, (dict, str)):
                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.excluded".format(**locals()) + " must be object or string")
                                                            if isinstance(data__sources_value__sessions_value__excluded, str):
                                                                data__sources_value__sessions_value__excluded_len = len(data__sources_value__sessions_value__excluded)
                                                                if data__sources_value__sessions_value__excluded_len < 1:
                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.excluded".format(**locals()) + " must be longer than or equal to 1 characters")
                                                                if data__sources_value__sessions_value__excluded_len > 128:
                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.excluded".format(**locals()) + " must be shorter than or equal to 128 characters")
                                                            data__sources_value__sessions_value__excluded_is_dict = isinstance(data__sources_value__sessions_value__excluded, dict)
                                                            if data__sources_value__sessions_value__excluded_is_dict:
                                                                data__sources_value__sessions_value__excluded_keys = set(data__sources_value__sessions_value__excluded.keys())
                                                                for data__sources_value__sessions_value__excluded_key in data__sources_value__sessions_value__excluded_keys:
                                                                    if data__sources_value__sessions_value__excluded_key not in []:
                                                                        data__sources_value__sessions_value__excluded_value = data__sources_value__sessions_value__excluded.get(data__sources_value__sessions_value__excluded_key)
                                                                        if not isinstance(data__sources_value__sessions_value__excluded_value, (int)) and not (isinstance(data__sources_value__sessions_value__excluded_value, float) and data__sources_value__sessions_value__excluded_value.is_integer()) or isinstance(data__sources_value__sessions_value__excluded_value, bool):
                                                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.excluded.{data__sources_value__sessions_value__excluded_key}".format(**locals()) + " must be integer")
                                                                        if isinstance(data__sources_value__sessions_value__excluded_value, (int, float, Decimal)) and not isinstance(data__sources_value__sessions_value__excluded_value, bool):
                                                                            if data__sources_value__sessions_value__excluded_value < 0:
                                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.excluded.{data__sources_value__sessions_value__excluded_key}".format(**locals()) + " must be bigger than or equal to 0")
                                                                data__sources_value__sessions_value__excluded_len = len(data__sources_value__sessions_value__excluded)
                                                                if data__sources_value__sessions_value__excluded_len != 0:
                                                                    data__sources_value__sessions_value__excluded_property_names = True
                                                                    for data__sources_value__sessions_value__excluded_key in data__sources_value__sessions_value__excluded:
                                                                        try:
                                                                            if isinstance(data__sources_value__sessions_value__excluded_key, str):
                                                                                data__sources_value__sessions_value__excluded_key_len = len(data__sources_value__sessions_value__excluded_key)
                                                                                if data__sources_value__sessions_value__excluded_key_len < 1:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.excluded".format(**locals()) + " must be longer than or equal to 1 characters")
                                                                                if data__sources_value__sessions_value__excluded_key_len > 128:
                                                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.excluded".format(**locals()) + " must be shorter than or equal to 128 characters")
                                                                        except (JsonSchemaValueException, JsonSchemaValuesException):
                                                                            data__sources_value__sessions_value__excluded_property_names = False
                                                                    if not data__sources_value__sessions_value__excluded_property_names:
                                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}.excluded".format(**locals()) + " must be named by propertyName definition")
                                                        if data__sources_value__sessions_value_keys:
                                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.sessions.{data__sources_value__sessions_key}".format(**locals()) + " must not contain "+str(data__sources_value__sessions_value_keys)+" properties")
                                    if data__sources_value_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must not contain "+str(data__sources_value_keys)+" properties")
                                data__sources_value_one_of_count1 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if data__sources_value_one_of_count1 < 2:
                            try:
                                if not isinstance(data__sources_value, (dict)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must be object")
                                data__sources_value_is_dict = isinstance(data__sources_value, dict)
                                if data__sources_value_is_dict:
                                    data__sources_value__missing_keys = set(['kind', 'path', 'size', 'mtime_ns', 'files', 'copied']) - data__sources_value.keys()
                                    if data__sources_value__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must contain ")
                                    data__sources_value_keys = set(data__sources_value.keys())
                                    if "kind" in data__sources_value_keys:
                                        data__sources_value_keys.remove("kind")
                                        data__sources_value__kind = data__sources_value["kind"]
                                        if not (isinstance(data__sources_value__kind, str) and data__sources_value__kind == 'workspace-note'):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.kind".format(**locals()) + " must be one of ['workspace-note']")
                                    if "path" in data__sources_value_keys:
                                        data__sources_value_keys.remove("path")
                                        data__sources_value__path = data__sources_value["path"]
                                        if not isinstance(data__sources_value__path, (str)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.path".format(**locals()) + " must be string")
                                        if isinstance(data__sources_value__path, str):
                                            if not REGEX_PATTERNS['^(USER\\.md|memory/[^/\\\\\\u0000-\\u001f\\u007f]{1,251}\\.md)$'].search(data__sources_value__path):
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.path".format(**locals()) + " must match pattern ^(USER\\.md|memory/[^/\\\\\\u0000-\\u001f\\u007f]{1,251}\\.md)$")
                                    if "size" in data__sources_value_keys:
                                        data__sources_value_keys.remove("size")
                                        data__sources_value__size = data__sources_value["size"]
                                        if not isinstance(data__sources_value__size, (int)) and not (isinstance(data__sources_value__size, float) and data__sources_value__size.is_integer()) or isinstance(data__sources_value__size, bool):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.size".format(**locals()) + " must be integer")
                                        if isinstance(data__sources_value__size, (int, float, Decimal)) and not isinstance(data__sources_value__size, bool):
                                            if data__sources_value__size < 0:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.size".format(**locals()) + " must be bigger than or equal to 0")
                                    if "mtime_ns" in data__sources_value_keys:
                                        data__sources_value_keys.remove("mtime_ns")
                                        data__sources_value__mtimens = data__sources_value["mtime_ns"]
                                        if not isinstance(data__sources_value__mtimens, (int)) and not (isinstance(data__sources_value__mtimens, float) and data__sources_value__mtimens.is_integer()) or isinstance(data__sources_value__mtimens, bool):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.mtime_ns".format(**locals()) + " must be integer")
                                    if "files" in data__sources_value_keys:
                                        data__sources_value_keys.remove("files")
                                        data__sources_value__files = data__sources_value["files"]
                                        if not isinstance(data__sources_value__files, (dict)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files".format(**locals()) + " must be object")
                                        data__sources_value__files_is_dict = isinstance(data__sources_value__files, dict)
                                        if data__sources_value__files_is_dict:
                                            data__sources_value__files_keys = set(data__sources_value__files.keys())
                                            for data__sources_value__files_key in data__sources_value__files_keys:
                                                if data__sources_value__files_key not in []:
                                                    data__sources_value__files_value = data__sources_value__files.get(data__sources_value__files_key)
                                                    if not isinstance(data__sources_value__files_value, (str)):
                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files.{data__sources_value__files_key}".format(**locals()) + " must be string")
                                                    if isinstance(data__sources_value__files_value, str):
                                                        if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$'].search(data__sources_value__files_value):
                                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files.{data__sources_value__files_key}".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$")
                                            data__sources_value__files_len = len(data__sources_value__files)
                                            if data__sources_value__files_len != 0:
                                                data__sources_value__files_property_names = True
                                                for data__sources_value__files_key in data__sources_value__files:
                                                    try:
                                                        if isinstance(data__sources_value__files_key, str):
                                                            if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}$'].search(data__sources_value__files_key):
                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
                                                    except (JsonSchemaValueException, JsonSchemaValuesException):
                                                        data__sources_value__files_property_names = False
                                                if not data__sources_value__files_property_names:
                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files".format(**locals()) + " must be named by propertyName definition")
                                    if "copied" in data__sources_value_keys:
                                        data__sources_value_keys.remove("copied")
                                        data__sources_value__copied = data__sources_value["copied"]
                                        if not isinstance(data__sources_value__copied, (list, tuple)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.copied".format(**locals()) + " must be array")
                                        data__sources_value__copied_is_list = isinstance(data__sources_value__copied, (list, tuple))
                                        if data__sources_value__copied_is_list:
                                            data__sources_value__copied_len = len(data__sources_value__copied)
                                            for data__sources_value__copied_x, data__sources_value__copied_item in enumerate(data__sources_value__copied):
                                                if not isinstance(data__sources_value__copied_item, (str)):
                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.copied[{data__sources_value__copied_x}]".format(**locals()) + " must be string")
                                                if isinstance(data__sources_value__copied_item, str):
                                                    if not REGEX_PATTERNS['^[0-9a-f]{16}$'].search(data__sources_value__copied_item):
                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.copied[{data__sources_value__copied_x}]".format(**locals()) + " must match pattern ^[0-9a-f]{16}$")
                                    if data__sources_value_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must not contain "+str(data__sources_value_keys)+" properties")
                                data__sources_value_one_of_count1 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if data__sources_value_one_of_count1 < 2:
                            try:
                                if not isinstance(data__sources_value, (dict)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must be object")
                                data__sources_value_is_dict = isinstance(data__sources_value, dict)
                                if data__sources_value_is_dict:
                                    data__sources_value__missing_keys = set(['kind', 'turns', 'files']) - data__sources_value.keys()
                                    if data__sources_value__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must contain ")
                                    data__sources_value_keys = set(data__sources_value.keys())
                                    if "kind" in data__sources_value_keys:
                                        data__sources_value_keys.remove("kind")
                                        data__sources_value__kind = data__sources_value["kind"]
                                        if not (isinstance(data__sources_value__kind, str) and data__sources_value__kind == 'history'):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.kind".format(**locals()) + " must be one of ['history']")
                                    if "turns" in data__sources_value_keys:
                                        data__sources_value_keys.remove("turns")
                                        data__sources_value__turns = data__sources_value["turns"]
                                        if not isinstance(data__sources_value__turns, (int)) and not (isinstance(data__sources_value__turns, float) and data__sources_value__turns.is_integer()) or isinstance(data__sources_value__turns, bool):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.turns".format(**locals()) + " must be integer")
                                        if isinstance(data__sources_value__turns, (int, float, Decimal)) and not isinstance(data__sources_value__turns, bool):
                                            if data__sources_value__turns < 0:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.turns".format(**locals()) + " must be bigger than or equal to 0")
                                    if "files" in data__sources_value_keys:
                                        data__sources_value_keys.remove("files")
                                        data__sources_value__files = data__sources_value["files"]
                                        if not isinstance(data__sources_value__files, (dict)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files".format(**locals()) + " must be object")
                                        data__sources_value__files_is_dict = isinstance(data__sources_value__files, dict)
                                        if data__sources_value__files_is_dict:
                                            data__sources_value__files_keys = set(data__sources_value__files.keys())
                                            for data__sources_value__files_key in data__sources_value__files_keys:
                                                if data__sources_value__files_key not in []:
                                                    data__sources_value__files_value = data__sources_value__files.get(data__sources_value__files_key)
                                                    if not isinstance(data__sources_value__files_value, (str)):
                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files.{data__sources_value__files_key}".format(**locals()) + " must be string")
                                                    if isinstance(data__sources_value__files_value, str):
                                                        if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$'].search(data__sources_value__files_value):
                                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files.{data__sources_value__files_key}".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}\\.jsonl$")
                                            data__sources_value__files_len = len(data__sources_value__files)
                                            if data__sources_value__files_len != 0:
                                                data__sources_value__files_property_names = True
                                                for data__sources_value__files_key in data__sources_value__files:
                                                    try:
                                                        if isinstance(data__sources_value__files_key, str):
                                                            if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}$'].search(data__sources_value__files_key):
                                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files".format(**locals()) + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
                                                    except (JsonSchemaValueException, JsonSchemaValuesException):
                                                        data__sources_value__files_property_names = False
                                                if not data__sources_value__files_property_names:
                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}.files".format(**locals()) + " must be named by propertyName definition")
                                    if data__sources_value_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must not contain "+str(data__sources_value_keys)+" properties")
                                data__sources_value_one_of_count1 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if data__sources_value_one_of_count1 != 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must be valid exactly by one definition")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_import_ledger_schema_json
