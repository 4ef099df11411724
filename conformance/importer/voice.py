"""The project's own words for a recorded text: deterministic, of the same length, in the same shape.

`voice(text)` replaces every run of letters by a word of the project's vocabulary of the same
length (case kept letter by letter), and keeps everything else where it stands: spaces, line
breaks, punctuation, digits, emoji. The choice is seeded by the text's SHA-256, so one text always
gets one voice (a tool output quoted again in the next request, a final answer carried in the
history) and two texts almost never share one. The same length matters for streams: a text cut
into deltas is voiced whole and cut again at the same offsets (`importer.revoice`).

`voice_json(text)` does the same inside a JSON text without breaking it: keys, numbers, `true`,
`false`, `null` and escapes are kept, string values are voiced (a JSON text inside a string value
recursively); values under keys that name facts (ids, urls, names) are kept.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

# Words of the project's domain, by length, so that every run of letters can be matched exactly.
_VOCABULARY = """
a o i u e y
an at by in is of on to up we go so do no or as
act add arc bay box cab cue den dot elk fig gap hub ink jar key kit log map net oak pad pin
ray row set tag tip van web yam zip
beam bolt cask clip deck dial echo fern flag gate grid hook iris jolt knot lamp lens loom mesh
node oven pier quay reed ring rope sail seed slot tide toll vane wick yard
amber anvil birch cable cedar chalk crane delta ember fable forge glade haven heron ingot
jetty kiosk lever maple nexus orbit plank quill relay ridge sable slate spoke tally umber vault
wharf
anchor barrel beacon canopy cobalt drover ember filter gadget hamlet island jigsaw kettle
lantern ledger marble nickel oyster pebble quartz ribbon saddle signal tunnel vessel willow
zephyr
archive balcony cascade compass cutlass dynamo eyelet furnace gallery harbour journal kestrel
lattice mariner nebula orchard pendant quarry rampart sextant tillage trellis uplands
voltage warship
almanack baritone calendar corridor dovetail evergreen fathomer gossamer headland
inventory keystone lighthouse millpond nocturne overture paddock quadrant register
spindle tapestry underpass windmill
aerodrome bannister cartridge chronicle distiller esplanade floodgate gatehouse
harmonica incubator jackknife lamplight meridians notebooks ordinance parchment
quicksand roundabout sandstone telescope undertow vineyards waterfall
""".split()  # noqa: SIM905 - one word list, read as text

_BY_LENGTH: dict[int, list[str]] = {}
for _entry in _VOCABULARY:
    _BY_LENGTH.setdefault(len(_entry), []).append(_entry)
_LONGEST = max(_BY_LENGTH)

# A run of letters: any script's (accented, CJK), not digits or the underscore.
_LETTERS = re.compile(r"[^\W\d_]+")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://\S+$", re.I)


def _word(length: int, rng: random.Random, avoid: str) -> str:
    if length <= _LONGEST:
        choices = _BY_LENGTH[length]
        word = rng.choice(choices)
        if word == avoid and len(choices) > 1:
            word = choices[(choices.index(word) + 1) % len(choices)]
        return word
    # Longer runs (a CJK sentence, a glued identifier) are filled with words end to end.
    parts: list[str] = []
    left = length
    while left > _LONGEST:
        piece = rng.randint(4, _LONGEST)
        if left - piece < 1:
            piece = left - 1
        parts.append(rng.choice(_BY_LENGTH[piece]))
        left -= piece
    parts.append(rng.choice(_BY_LENGTH[left]))
    return "".join(parts)


def _cased_like(original: str, word: str) -> str:
    return "".join(w.upper() if o.isupper() else w for o, w in zip(original, word, strict=True))


def voice(text: str) -> str:
    """The text in the project's words: same length, letters replaced run by run, the rest kept."""
    if not _LETTERS.search(text):
        return text
    rng = random.Random(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())

    def replace(match: re.Match[str]) -> str:
        original = match.group()
        return _cased_like(original, _word(len(original), rng, original.lower()))

    return _LETTERS.sub(replace, text)


def is_url(text: str) -> bool:
    return _URL.match(text.strip()) is not None


def words(text: str) -> int:
    return sum(1 for token in text.split() if _LETTERS.search(token))


def json_container(text: str) -> bool:
    """Whether a string holds a JSON object or array (a tool's JSON output, a structured answer)."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "[") or stripped[-1:] not in ("}", "]"):
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


# --- JSON text, token by token -------------------------------------------------------------------

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+|\s+', re.S)

Path = tuple[str | int, ...]


def string_tokens(text: str) -> Iterator[tuple[re.Match[str], Path, bool]]:
    """Each string token of a JSON text, with the path of the value it is or names, and whether it is
    a key. The text must be valid JSON (callers parse it first)."""
    stack: list[list[Any]] = []  # [kind, key or index, expecting a key]
    for match in _TOKEN.finditer(text):
        token = match.group()
        head = token[0]
        if head == "{":
            stack.append(["o", None, True])
        elif head == "[":
            stack.append(["a", 0, False])
        elif head in "}]":
            stack.pop()
        elif head == ":":
            stack[-1][2] = False
        elif head == ",":
            if stack[-1][0] == "o":
                stack[-1][2] = True
            else:
                stack[-1][1] = int(stack[-1][1]) + 1
        elif head == '"':
            if stack and stack[-1][0] == "o" and stack[-1][2]:
                stack[-1][1] = json.loads(token)
                yield match, tuple(frame[1] for frame in stack), True
            else:
                yield match, tuple(frame[1] for frame in stack), False


def encode_like(value: str, original_token: str) -> str:
    """A string as a JSON token escaped the way the original token was (\\u escapes or raw UTF-8)."""
    return json.dumps(value, ensure_ascii="\\u" in original_token)


def rewrite(text: str, replace: Callable[[Path, str], str | None]) -> str:
    """The JSON text with the string values `replace` gives a new value for; all else byte for byte."""
    out: list[str] = []
    last = 0
    for match, path, is_key in string_tokens(text):
        if is_key:
            continue
        new = replace(path, json.loads(match.group()))
        if new is None:
            continue
        out.append(text[last : match.start()])
        out.append(encode_like(new, match.group()))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def voice_json(text: str, keep: Callable[[str], bool]) -> str:
    """A JSON text with its string values voiced (recursively where a value is JSON itself), except the
    values under keys `keep` says are facts, and URLs."""

    def replace(path: Path, value: str) -> str | None:
        key = next((p for p in reversed(path) if isinstance(p, str)), None)
        if key is not None and keep(key):
            return None
        return voice_value(value, keep)

    return rewrite(text, replace)


def voice_value(value: str, keep: Callable[[str], bool]) -> str | None:
    """A string value voiced, or None when it stays (a URL, no letters)."""
    if is_url(value) or not _LETTERS.search(value):
        return None
    if json_container(value):
        return voice_json(value, keep)
    return voice(value)
