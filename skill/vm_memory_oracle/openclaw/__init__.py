"""OpenClaw as the memory meets it: its state directory and set-up (state.py), its agents'
transcript databases (transcripts.py), the copies of their turns in sessions/ (imports.py)
and the notes of its workspaces learned as they change (notes.py)."""
