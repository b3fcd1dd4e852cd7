import os
import sys

from .cli import main
from .heap import return_large_blocks

return_large_blocks()
code = main()
# Every write was made durable before main returned, and its locks released; what is left
# is tearing down tens of thousands of objects, which takes a recall longer than its
# search. Flush what was printed and leave.
try:
    sys.stdout.flush()
    sys.stderr.flush()
except BrokenPipeError:
    code = code or 1
os._exit(code)
