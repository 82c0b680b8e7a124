"""The projections' view of an event: a plain record decoded straight from the stored bytes.

The read side never builds eventsourcing domain-event objects: a stored row is
canonical JSON, so one ``orjson.loads`` gives every field, and the event type
is the last part of the topic. That keeps a full rebuild close to the speed of
reading the rows at all (see ops/bench_projections.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import Any

import orjson

from ledger.text import holds_nul, storable

@dataclass(slots=True)
class Record:
    campaign: str  # campaign id (uuid as text)
    position: int  # originator_version: 1..N within the campaign
    type: str  # event class name
    data: dict[str, Any]  # every stored field: payload and envelope
    notification_id: int = 0  # place in the global notification log

    @property
    def context(self) -> dict[str, Any]:
        return self.data.get("context") or {}

    @property
    def turn(self) -> int | None:
        return self.context.get("turn")

    # What ``ledger.access.can_see`` reads of an event: a record passes for one, so the one predicate
    # filters records, events and timeline rows alike.
    @property
    def visibility(self) -> dict[str, Any]:
        return self.data.get("visibility") or {}

    @property
    def originator_version(self) -> int:
        return self.position


def type_of(topic: str) -> str:
    return topic.rpartition(":")[2]


def from_row(campaign: Any, position: int, topic: str, state: bytes, notification_id: int = 0,
             decoders: Mapping[str, Callable[[bytes], dict[str, Any]]] | None = None) -> Record:
    """``decoders``: per event type, a decoder of only the fields the caller reads (``ruling_decoder``). A NUL
    in its texts becomes U+FFFD, as the views hold it (``projections.runner._decode``)."""
    kind = type_of(topic)
    decode = decoders.get(kind, orjson.loads) if decoders else orjson.loads
    data = decode(state)
    if holds_nul(state):
        data = storable(data)
    return Record(str(campaign), position, kind, data, notification_id)


def ruling_decoder(fields: frozenset[str]) -> Callable[[bytes], dict[str, Any]]:
    """``orjson.loads`` of a stored ``RulingRecorded`` with only ``fields`` of its ruling ("a.b": field b of
    object a; "a[].b": field b of each object of list a).

    A ruling is two thirds of a 300,000-event campaign's events by bytes, and its ``steps`` alone two thirds of
    a ruling, which no view reads: msgspec skips the fields not asked for without building them (a page of
    rulings decoded in 72% of orjson's CPU; the dice alone, top level and steps', in half). Every other field is
    decoded as orjson does; an event whose shape the narrow types do not fit (a ruling or a field of it not an
    object, a list not of objects) is decoded whole.
    """
    from typing import TypedDict

    import msgspec

    from ledger.domain.events import RulingRecorded

    whole = {f for f in fields if "." not in f}
    parts: dict[str, set[str]] = {}
    for f in fields - whole:
        head, _, rest = f.partition(".")
        if "." in rest:
            raise ValueError(f"ruling field {f!r}: one level of nesting at most")
        if head.removesuffix("[]") not in whole:
            parts.setdefault(head, set()).add(rest)
    ruling: dict[str, Any] = {k: Any for k in whole}
    for head, rest in parts.items():
        name = head.removesuffix("[]")
        shape = TypedDict(f"Ruling_{name}", {k: Any for k in rest}, total=False)  # type: ignore[misc]
        ruling[name] = list[shape] if head.endswith("[]") else shape  # type: ignore[valid-type]
    # The envelope and payload fields, every one: only the ruling is narrowed.
    envelope = {k: Any for cls in RulingRecorded.__mro__ for k in getattr(cls, "__annotations__", {})}
    envelope["ruling"] = TypedDict("Ruling", ruling, total=False)  # type: ignore[misc]
    decode = msgspec.json.Decoder(TypedDict("RulingRecordedRead", envelope, total=False)).decode  # type: ignore[misc]
    loads, invalid = orjson.loads, msgspec.ValidationError

    def narrow(state: bytes) -> dict[str, Any]:
        try:
            return decode(state)
        except invalid:
            return loads(state)
    return narrow


def copy_doc(doc: dict[str, Any], append_only: Iterable[str] = ()) -> dict[str, Any]:
    """A view's document to fold further: ``orjson.loads(orjson.dumps(doc))``, but each ``append_only`` list (a
    model's ``APPEND_ONLY``: the victory's stability log, half a megabyte of the document's 520 KB at 300,000
    events, 6 ms of a copy) is a new list of the same entries. A fold only appends to such a list and never
    changes an entry, so the entries are shared, not copied; everything else is copied deep."""
    shared = [k for k in append_only if k in doc]
    if not shared:
        return orjson.loads(orjson.dumps(doc))
    rest = orjson.loads(orjson.dumps({k: v for k, v in doc.items() if k not in shared}))
    for k in shared:
        rest[k] = list(doc[k])
    return {k: rest[k] for k in doc}  # the document's key order, as the round trip keeps it


#: The key of a checkpoint written between keyframes (``views.KEYFRAME_EVERY``): its keyframe's position.
BASE = "checkpoint_base"


def expand(doc: dict[str, Any], append_only: Iterable[str], keyframe: Callable[[int], bytes]) -> dict[str, Any]:
    """A stored checkpoint's document whole: one written between keyframes holds its append-only lists'
    entries after its keyframe's, which come first (``keyframe``: the stored document at a position)."""
    base = doc.pop(BASE, None)
    if base is not None:
        whole = orjson.loads(keyframe(base))
        for key in append_only:
            doc[key] = whole[key] + doc[key]
    return doc


def from_event(e: Any) -> Record:
    """A record from a domain event (tests, and the write side's objects)."""
    data = {k: v for k, v in vars(e).items() if k not in ("originator_id", "originator_version")}
    data = orjson.loads(orjson.dumps(data, default=str))
    return Record(str(e.originator_id), e.originator_version, type(e).__name__, data)


def num(value: Any) -> Fraction:
    """An exact number from a ruling amount ("1/3", "2", 2)."""
    if value is None:
        return Fraction(0)
    return Fraction(value) if not isinstance(value, Fraction) else value


def plain(value: Fraction) -> int | str:
    """A whole number as int, otherwise the exact fraction as text ("7/3")."""
    return int(value) if value.denominator == 1 else str(value)


def _ratio(value: Any) -> tuple[int, int] | None:
    """(numerator, denominator > 0) of an int or of a text "7", "-7", "7/2" or "-7/2" written in ASCII digits,
    else None (``num`` reads the rest). Rulings state amounts as texts, and ``Fraction("7/2")`` parses with a
    regular expression: a rebuild of the 300k campaign made 144,000 of them for unit and point sums."""
    if type(value) is int:
        return value, 1
    if type(value) is not str or not value.isascii():
        return None
    top, slash, bottom = value.partition("/")
    digits = top[1:] if top[:1] == "-" else top
    if not digits.isdigit() or (slash and (not bottom.isdigit() or int(bottom) == 0)):
        return None
    return int(top), int(bottom) if slash else 1


def plain_sum(a: Any, b: Any, *, minus: bool = False, floor: int | None = None) -> int | str:
    """``plain(num(a) + num(b))`` (``minus``: ``- num(b)``; ``floor``: at least that), exact, without a
    ``Fraction`` where both are ints or plain number texts (a rebuild adds units and points by the ten thousand)."""
    if type(a) is int and type(b) is int:  # not bool, not a text "2" (plain gives 2 for it)
        value = a - b if minus else a + b
        return value if floor is None or value >= floor else floor
    x, y = _ratio(a), _ratio(b)
    if x is None or y is None:
        exact = num(a) - num(b) if minus else num(a) + num(b)
        return plain(exact if floor is None else max(exact, num(floor)))
    top = x[0] * y[1] - y[0] * x[1] if minus else x[0] * y[1] + y[0] * x[1]
    bottom = x[1] * y[1]
    if floor is not None and top < floor * bottom:
        return floor
    common = gcd(top, bottom)
    top, bottom = top // common, bottom // common
    return top if bottom == 1 else f"{top}/{bottom}"
