"""Other assistants' histories brought into the memory: a reader per format (chatgpt.py,
claude_code.py, codex.py), each giving the same conversations of turns (said.py), and the
import that learns them (history.py)."""

# Read by the command line's parser too, which must not import the readers to start.
FORMATS = ("chatgpt", "claude-code", "codex")
