"""Recordings: provider traffic as it is stored and read.

Cassettes (vcrpy YAML), their bounded YAML reader, server-sent events and AWS event streams, the
size and depth bounds every input is read within, and recording with vcrpy (its settings and the
one credential scrubber every path that writes uses). The lowest layer: it imports no other.
"""
