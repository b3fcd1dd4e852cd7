"""Validators generated from ../schemas by fastjsonschema; see validation.generated_sources()."""


class JsonSchemaValueException(ValueError):
    """A record does not match its schema (raised by the generated validators)."""

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)
        self.message = message
        self.value = value
        self.name = name
        self.definition = definition
        self.rule = rule


JsonSchemaValuesException = JsonSchemaValueException
