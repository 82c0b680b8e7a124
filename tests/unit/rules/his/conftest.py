"""Shared builders for the his ruleset tests."""

from hypothesis import strategies as st

POWERS = ["Ottoman", "Hapsburg", "England", "France", "Papacy", "Protestant"]
NAMES = ["Suleiman", "Ibrahim", "Charles V", "Ferdinand", "Francis I", "Henry VIII", "Maurice"]


@st.composite
def formations(draw, min_units: int = 0, max_units: int = 8, leaders: bool = True) -> dict:
    units = draw(st.integers(min_units, max_units))
    cavalry = draw(st.integers(0, units))
    chosen = draw(st.lists(st.tuples(st.sampled_from(NAMES), st.integers(0, 3)), max_size=3)) if leaders else []
    if units == 0 and not chosen:
        chosen = [("Ibrahim", 1)]
    return {"land_units": units, "cavalry": cavalry,
            "leaders": [{"name": n, "battle_rating": r} for n, r in chosen]}
