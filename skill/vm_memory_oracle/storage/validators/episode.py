# Generated from schemas/episode.schema.json by fastjsonschema; do not edit.
# Regenerate: python -m vm_memory_oracle.storage.validation
SCHEMA_SHA256 = '7a43b54b3b5a810f6510a0cab4917f38404a51ef6b278b826aa008d5d14a0d0f'

VERSION = "2.22.3"
from decimal import Decimal
import re
from . import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^ep-[0-9a-f]{16}$': re.compile('^ep-[0-9a-f]{16}\\Z'),
    '^sessions/[^\\u0000-\\u001f\\u007f/]{1,200}:[0-9]{1,12}$': re.compile('^sessions/[^\\u0000-\\u001f\\u007f/]{1,200}:[0-9]{1,12}\\Z'),
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\\Z'),
    '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$': re.compile('^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*\\Z')
}

NoneType = type(None)

def validate_vm_memory_oracle_episode_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['id', 'source', 'part', 'parts', 'ts', 'speaker', 'text']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "id" in data_keys:
            data_keys.remove("id")
            data__id = data["id"]
            if not isinstance(data__id, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".id must be string")
            if isinstance(data__id, str):
                if not REGEX_PATTERNS['^ep-[0-9a-f]{16}$'].search(data__id):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".id must match pattern ^ep-[0-9a-f]{16}$")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
            if isinstance(data__source, str):
                if not REGEX_PATTERNS['^sessions/[^\\u0000-\\u001f\\u007f/]{1,200}:[0-9]{1,12}$'].search(data__source):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must match pattern ^sessions/[^\\u0000-\\u001f\\u007f/]{1,200}:[0-9]{1,12}$")
        if "part" in data_keys:
            data_keys.remove("part")
            data__part = data["part"]
            if not isinstance(data__part, (int)) and not (isinstance(data__part, float) and data__part.is_integer()) or isinstance(data__part, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".part must be integer")
            if isinstance(data__part, (int, float, Decimal)) and not isinstance(data__part, bool):
                if data__part < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".part must be bigger than or equal to 0")
                if data__part > 100000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".part must be smaller than or equal to 100000")
        if "parts" in data_keys:
            data_keys.remove("parts")
            data__parts = data["parts"]
            if not isinstance(data__parts, (int)) and not (isinstance(data__parts, float) and data__parts.is_integer()) or isinstance(data__parts, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".parts must be integer")
            if isinstance(data__parts, (int, float, Decimal)) and not isinstance(data__parts, bool):
                if data__parts < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".parts must be bigger than or equal to 1")
                if data__parts > 100000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".parts must be smaller than or equal to 100000")
        if "ts" in data_keys:
            data_keys.remove("ts")
            data__ts = data["ts"]
            if not isinstance(data__ts, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ts must be string")
            if isinstance(data__ts, str):
                if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'].search(data__ts):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ts must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
        if "speaker" in data_keys:
            data_keys.remove("speaker")
            data__speaker = data["speaker"]
            if not isinstance(data__speaker, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".speaker must be string")
            if isinstance(data__speaker, str):
                data__speaker_len = len(data__speaker)
                if data__speaker_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".speaker must be longer than or equal to 1 characters")
                if data__speaker_len > 256:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".speaker must be shorter than or equal to 256 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__speaker):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".speaker must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
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
        if "facts" in data_keys:
            data_keys.remove("facts")
            data__facts = data["facts"]
            if not isinstance(data__facts, (int)) and not (isinstance(data__facts, float) and data__facts.is_integer()) or isinstance(data__facts, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must be integer")
            if isinstance(data__facts, (int, float, Decimal)) and not isinstance(data__facts, bool):
                if data__facts < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must be bigger than or equal to 0")
                if data__facts > 100000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".facts must be smaller than or equal to 100000")
        if "asked" in data_keys:
            data_keys.remove("asked")
            data__asked = data["asked"]
            if not isinstance(data__asked, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".asked must be string")
            if isinstance(data__asked, str):
                data__asked_len = len(data__asked)
                if data__asked_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".asked must be longer than or equal to 1 characters")
                if data__asked_len > 1000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".asked must be shorter than or equal to 1000 characters")
                if not REGEX_PATTERNS['^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$'].search(data__asked):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".asked must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$")
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
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

validate = validate_vm_memory_oracle_episode_schema_json
