"""langchain-tests' cassettes: vcrpy YAML, gzipped (`*.yaml.gz`)."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from conformance.bounds import BoundsError, read_file
from conformance.cassette import Cassette, CassetteError, parse_cassette

# A gzipped cassette that inflates past this is refused rather than read into memory.
_MAX_INFLATED = 256 * 1024 * 1024


def load(path: Path) -> Cassette:
    try:
        data = read_file(path)
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
    try:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        text = inflater.decompress(data, _MAX_INFLATED)
        if inflater.unconsumed_tail:
            raise CassetteError(str(path), f"inflates past {_MAX_INFLATED} bytes")
    except (zlib.error, gzip.BadGzipFile) as exc:
        raise CassetteError(str(path), f"not gzip data: {exc}") from None
    return parse_cassette(text, str(path))
