"""The corpus: case files and what they name.

Loading cases and their cassettes (`loading`), the case files' JSON Schema (`caseschema`), the
official SDKs' checks of case examples (`examples`), where the bundled corpus lives (`paths`),
located problems in input files (`problems`) and corpus snapshots (`snapshot`). Imports only
`conformance.recordings`.
"""
