"""Reports: what a person reads.

A failed case as text (`textreport`), the wire-types report (`wiretypes_report`, written out by
`wiretypes_render`) and the compatibility matrix (`matrix/`). Imports `running` and the layers below it.
"""
