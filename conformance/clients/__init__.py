"""Client adapters: real SDKs and frameworks driven through whole tool loops (the client connector).

Each module needs its library installed (`pip install 'toolcall-conformance[<extra>]'`).
"""
