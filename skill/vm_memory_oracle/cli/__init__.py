"""The command line (`python -m vm_memory_oracle`): its options (options), what a command
acts on (context), the actions by what they do to the memory (memory, retrieval, upkeep), and
main, which parses, runs one action, prints and maps errors to exit codes."""

from .main import main
from .options import ACTIONS, build_parser, parse_arguments

__all__ = ["ACTIONS", "build_parser", "main", "parse_arguments"]
