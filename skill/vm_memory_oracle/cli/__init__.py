"""The command line (`python -m vm_memory_oracle`): its options (options), the memory a
command opens through the front door and what an action gives back (context), the actions by
what they do to the memory (memory, retrieval, upkeep), and main, which parses, runs one
action, prints and maps errors to exit codes. Nothing here assembles the library."""

from .main import main
from .options import ACTIONS, build_parser, parse_arguments

__all__ = ["ACTIONS", "build_parser", "main", "parse_arguments"]
