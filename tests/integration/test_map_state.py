"""The write side's forces (what the map commands check: ``CampaignState.military``) agree with the map view,
whatever sequence of raises, splits, merges and unit changes a game master records, refused ones included
(a refusal appends nothing), and the corrections of a stack's latest change. On SQLite: hypothesis runs many sequences; the PostgreSQL store is exercised by
the HTTP tests of the same commands."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import Ledger
from ledger.config import Settings
from ledger.domain import commands as cmd
from ledger.domain.errors import LedgerError
from ledger.domain.forces import LEADER_VALUES, names
from ledger.sample import GM
from ledger.scenario import import_scenario, load_text
from ledger.domain.campaign import campaign_id
from projections import map as map_model
from projections.read import records

STACKS = ("ENG-1", "ENG-2", "ENG-3")
slugs = itertools.count()

order = st.one_of(
    st.tuples(st.just("split"), st.sampled_from(STACKS), st.sampled_from(STACKS), st.integers(1, 7)),
    st.tuples(st.just("merge"), st.sampled_from(STACKS), st.sampled_from(STACKS), st.just(0)),
    st.tuples(st.just("change"), st.sampled_from(STACKS), st.sampled_from(STACKS), st.integers(-7, 7)),
    st.tuples(st.just("raise"), st.sampled_from(STACKS), st.sampled_from(STACKS), st.integers(1, 3)),
)


def command(kind: str, a: str, b: str, n: int) -> cmd.Command:
    if kind == "split":
        return cmd.SplitStack(stack=a, new_stack=b, units={"LD": n}) if a != b else cmd.OpenTurn()
    if kind == "merge":
        return cmd.MergeStacks(stack=a, merged=b) if a != b else cmd.OpenTurn()
    if kind == "change":
        return cmd.ChangeStack(stack=a, units={"LD": n}, reason="r") if n else cmd.OpenTurn()
    return cmd.RaiseStack(stack=a, country="ENG", location="Kent", units={"LD": n})


def started(ledger: Ledger):
    """A new campaign of the sample scenario, its first turn open (a new slug for each example)."""
    slug = f"c{next(slugs)}"
    import_scenario(ledger, load_text("sample"), slug=slug, actor=GM)
    cid = campaign_id(slug)
    ledger.open_turn(cid, actor=GM)
    return cid


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(orders=st.lists(order, max_size=10))
def test_the_write_side_counts_every_stack_as_the_map_view_does(tmp_path, orders):
    ledger = Ledger(Settings(env="test", data_dir=tmp_path, store="sqlite"))
    try:
        cid = started(ledger)
        for kind, a, b, n in orders:
            try:  # an open turn refused (the OpenTurn stand-in) or a refused order: nothing appended
                ledger.handle(cid, command(kind, a, b, n), actor=GM)
            except LedgerError:
                pass
        doc = map_model.empty()
        for r in records(ledger, cid):
            map_model.apply(doc, r)
        forces = ledger.campaign(cid).military["forces"]
        assert set(forces) == set(doc["stacks"])
        for sid, force in forces.items():
            shown = {u: n for u, n in doc["stacks"][sid]["units"].items() if n}
            assert force["units"] == shown, (sid, orders)
            assert names(force) == doc["stacks"][sid]["leaders"]
            for ld in force["leaders"]:  # the values the board checks of a ruling read, as the map shows them
                assert {k: ld[k] for k in LEADER_VALUES} == doc["leaders"][ld["name"]]["values"]
    finally:
        ledger.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(orders=st.lists(st.one_of(order, st.tuples(st.just("correct"), st.just(""), st.just(""),
                                                  st.integers(-7, 7))), max_size=10))
def test_a_correction_of_a_stacks_latest_change_is_followed_by_the_write_side_as_by_the_map_view(tmp_path, orders):
    """A units change corrected (restated with another count, or struck: 0) while it is still the latest
    event: the write side puts the stack back and applies the change as restated, as the map view, folding
    the history again with the correction, shows it."""
    from projections import corrections

    ledger = Ledger(Settings(env="test", data_dir=tmp_path, store="sqlite"))
    try:
        cid = started(ledger)
        latest = None  # the last units change, while nothing but its corrections came after it
        for kind, a, b, n in orders:
            if kind == "correct":
                if latest is not None:
                    ledger.handle(cid, cmd.RecordCorrection(corrects=latest, reason="disputed",
                                                            replacement={"units": {"LD": n}} if n else None), actor=GM)
                continue
            try:
                done = ledger.handle(cid, command(kind, a, b, n), actor=GM)
            except LedgerError:
                continue
            latest = done.events[-1]["position"] if kind == "change" and done.events else None
        doc = map_model.empty()
        for r in records(ledger, cid):
            doc, _ = corrections.apply(map_model, doc, r, lambda n: records(ledger, cid, lte=n))
        forces = ledger.campaign(cid).military["forces"]
        assert set(forces) == set(doc["stacks"])
        for sid, force in forces.items():
            assert force["units"] == {u: n for u, n in doc["stacks"][sid]["units"].items() if n}, (sid, orders)
    finally:
        ledger.close()
