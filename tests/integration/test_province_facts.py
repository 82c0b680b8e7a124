"""The write side's province facts (``CampaignState.military["provinces"]``: owner, controller, markers, what
the income lines read) agree with the map view whatever the game master records: changes of owner and of
control, markers placed and removed (refusals append nothing), and corrections of a province's latest change."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import Ledger
from ledger.config import Settings
from ledger.domain import commands as cmd
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import LedgerError
from ledger.sample import GM
from ledger.scenario import import_scenario, load_text
from projections import corrections
from projections import map as map_model
from projections.read import records

PLACES = ("Kent", "Picardie", "Caux", "Manche")
COUNTRIES = ("ENG", "FRA")
MARKERS = ("Revolt", "Pillage+", "Siegework")
slugs = itertools.count()

order = st.one_of(
    st.tuples(st.just("owner"), st.sampled_from(PLACES), st.sampled_from(COUNTRIES)),
    st.tuples(st.just("control"), st.sampled_from(PLACES), st.sampled_from(COUNTRIES)),
    st.tuples(st.just("place"), st.sampled_from(PLACES), st.sampled_from(MARKERS)),
    st.tuples(st.just("remove"), st.sampled_from(PLACES), st.sampled_from(MARKERS)),
    st.tuples(st.just("correct"), st.sampled_from(("", "Revolt", "Pillage-")), st.sampled_from(COUNTRIES)),
)


def command(kind: str, a: str, b: str) -> cmd.Command:
    if kind == "owner":
        return cmd.ChangeOwner(province=a, owner=b)
    if kind == "control":
        return cmd.ChangeControl(province=a, controller=b)
    if kind == "place":
        return cmd.PlaceMarker(province=a, marker=b)
    return cmd.RemoveMarker(province=a, marker=b)


def replacement(kind: str, marker: str, country: str) -> dict | None:
    """A restatement of the latest change (struck when ``marker`` is empty)."""
    if not marker:
        return None
    if kind == "owner":
        return {"owner": country}
    if kind == "control":
        return {"controller": country}
    return {"marker": marker}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(orders=st.lists(order, max_size=12))
def test_the_write_side_holds_every_provinces_owner_controller_and_markers_as_the_map_view_does(tmp_path, orders):
    ledger = Ledger(Settings(env="test", data_dir=tmp_path, store="sqlite"))
    try:
        slug = f"p{next(slugs)}"
        import_scenario(ledger, load_text("sample"), slug=slug, actor=GM)
        cid = campaign_id(slug)
        ledger.open_turn(cid, actor=GM)
        latest: tuple[int, str] | None = None  # the last change, while only its corrections came after it
        for kind, a, b in orders:
            if kind == "correct":
                if latest is not None:
                    try:
                        ledger.handle(cid, cmd.RecordCorrection(corrects=latest[0], reason="disputed",
                                                                replacement=replacement(latest[1], a, b)), actor=GM)
                    except LedgerError:
                        pass
                continue
            try:
                done = ledger.handle(cid, command(kind, a, b), actor=GM)
            except LedgerError:
                continue
            latest = (done.events[-1]["position"], kind) if done.events else None
        doc = map_model.empty()
        for r in records(ledger, cid):
            doc, _ = corrections.apply(map_model, doc, r, lambda n: records(ledger, cid, lte=n))
        places = ledger.campaign(cid).military["provinces"]
        assert set(places) == set(doc["provinces"])
        for name, p in places.items():
            shown = doc["provinces"][name]
            assert p["markers"] == shown["markers"], (name, orders)
            if "income" in p:
                assert (p["owner"], p["controller"]) == (shown["owner"], shown["controller"]), (name, orders)
    finally:
        ledger.close()
