"""Generated scenarios: every shape an API's grammar allows, drawn and shrunk by hypothesis.

Needs hypothesis (the `generated` extra); nothing here is imported unless generation is asked for.
"""

DEFAULT_SEED = 0
