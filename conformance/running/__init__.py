"""Running: cases through adapters, and what becomes of them.

The runner (`runner`), adapters isolated in a worker process under a supervisor (`isolation`,
`worker`, `supervisor`), per-case time limits (`timeouts`), bug cases as expected failures
(`known_bugs`) and the results document a run writes (`results`). Imports every layer below:
`connectors`, `replay`, `engine`, `corpus`, `recordings`.
"""
