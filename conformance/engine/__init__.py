"""The engine: what an exchange is, and the rules that judge it.

Wire items (`wire`), the exchange of requests and responses (`exchange`), the neutral message model
(`neutral`), each API's dialect (`dialects/`), the rules (`rules/`) and what they produce
(`violations`, `outcomes`), provider errors and how they are quoted (`provider_errors`, `quoting`),
id minting (`ids`), conversations (`conversations`), the diff of what was sent (`diffing`), and the
safe description of what an adapter raised (`faults`). Imports `corpus` and `recordings`.
"""
