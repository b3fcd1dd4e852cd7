"""Pipeline steps, one module each: a function of its inputs to its outputs."""
