"""Which replacement stands for each corrected event, once corrections (and corrections of corrections) are
folded in order: the one rule the budget (ledger/economy/sheets.py) and the document views
(projections/corrections.py) both read, so they cannot disagree.

A correction of an ordinary event (the *root*) takes a slot of its own: the latest slot stands. A correction
of a correction amends that correction's slot (its replacement restates it) or, without a replacement,
withdraws exactly the correction it names: what that one replaced stands again (the amendment before it,
the correction before it, or the original when none is left).
"""

from __future__ import annotations

from typing import Any


class Standing:
    def __init__(self) -> None:
        self._slot: dict[int, tuple[int, int]] = {}  # correction position -> (root, slot it amends)
        # root -> {slot: [(position, replacement (None strikes)), ...amendments]}, slots in order
        self._slots: dict[int, dict[int, list[tuple[int, Any]]]] = {}
        self._last: dict[int, int] = {}  # root -> position of the latest correction that touched it

    def add(self, position: int, corrects: int, replacement: Any) -> int:
        """Fold one correction; returns the root event whose standing replacement may have changed."""
        if corrects in self._slot:
            root, slot = self._slot[corrects]
            slots = self._slots[root]
            if replacement is not None:
                slots.setdefault(slot, []).append((position, replacement))
            elif corrects == slot:  # the correction itself withdrawn, with its amendments
                slots.pop(slot, None)
            elif slot in slots:  # one amendment withdrawn: the one before it stands again
                slots[slot] = [x for x in slots[slot] if x[0] != corrects]
        else:
            root, slot = corrects, position
            self._slots.setdefault(root, {})[slot] = [(position, replacement)]
        self._slot[position] = (root, slot)
        self._last[root] = position
        return root

    def root(self, corrects: int) -> int:
        """The ordinary event a correction at ``corrects`` finally concerns (``corrects`` itself otherwise)."""
        return self._slot[corrects][0] if corrects in self._slot else corrects

    def is_correction(self, position: int) -> bool:
        return position in self._slot

    def standing(self, root: int) -> tuple[int, Any] | None:
        """(latest correction position, the replacement that stands) or None when the original stands."""
        slots = self._slots.get(root)
        if not slots:
            return None
        return self._last[root], next(reversed(slots.values()))[-1][1]

    def fixes(self) -> dict[int, tuple[int, Any]]:
        """Every corrected root -> (latest correction position, standing replacement)."""
        return {root: s for root in self._slots if (s := self.standing(root)) is not None}

    @classmethod
    def of(cls, corrections: list[tuple[int, int, Any]]) -> Standing:
        """From (position, corrects, replacement) in order."""
        s = cls()
        for position, corrects, replacement in corrections:
            s.add(position, corrects, replacement)
        return s


def replaced(data: dict[str, Any], replacement: Any) -> dict[str, Any] | None:
    """An event's payload as a standing replacement says it should have been; None when struck.

    Top-level fields are replaced; a ``ruling`` is merged one level deep (restated ``effects`` keep the
    recorded dice and outcome), unless the ruling was resolved again (``rework``): then it is replaced whole.
    """
    if replacement is None:
        return None
    if not isinstance(replacement, dict):
        return data  # not a replacement anyone can read: the original stands
    out = dict(data)
    whole = "rework" in replacement
    for k, v in replacement.items():
        if k == "ruling" and isinstance(v, dict) and isinstance(out.get("ruling"), dict) and not whole:
            out["ruling"] = {**out["ruling"], **v}
        else:
            out[k] = v
    return out
