"""Every line worked out from the map equals the sum of its lineage (a line read on a table: its table's
result, its inputs adding nothing), for random maps of the 1492 board: random owners, controllers, markers,
sieges, fortress levels, stacks and country facts. Working it out reads only the state."""

from __future__ import annotations

from uuid import uuid4

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.domain import forces as forcelib
from ledger.domain.campaign import CampaignState
from ledger.economy.board_income import COMPUTED, WORKERS, work_out, work_out_all
from ledger.scenario import load_text, normalise, parse


class ScenarioImported:
    """Stands for the event (the fold reads its type's name and its fields)."""

    def __init__(self, scenario: dict) -> None:
        self.scenario, self.originator_version = scenario, 2


BASE = forcelib.apply(forcelib.empty(), ScenarioImported(normalise(parse(load_text("eu-1492"))[0])))
LAND = sorted(n for n, p in BASE["provinces"].items() if "income" in p)
MAJORS = ("ENG", "FRA", "SPA", "POR", "VEN", "TUR", "POL", "RUS")
SOME = st.sampled_from(LAND[:60] + ["Beira", "Tejo", "Toledo", "Karnten", "Picardie"])

province_change = st.tuples(SOME, st.sampled_from(MAJORS), st.sampled_from(MAJORS),
                            st.lists(st.sampled_from(("Revolt", "Revolt+", "Pillage+", "Pillage-", "Siegework")),
                                     max_size=2), st.integers(10, 99))
stack = st.tuples(st.sampled_from(MAJORS), st.dictionaries(st.sampled_from(("LD", "ND", "NTD", "NGD")),
                                                            st.integers(1, 9), min_size=1, max_size=3))
facts = st.fixed_dictionaries({}, optional={
    "land_technology": st.sampled_from(("MED", "REN", "ARQ")),
    "naval_technology": st.sampled_from(("CAR", "GAL", "VL")),
    "domestic_trade_index": st.integers(1, 5),
    "vassals": st.lists(st.sampled_from(("NAP", "SCO", "GEN", "BUR")), max_size=2, unique=True),
    "manufactures": st.lists(st.fixed_dictionaries({
        "resource": st.sampled_from(("Wine", "Cereals", "Metal")), "province": SOME,
        "level": st.integers(1, 2), "income": st.integers(0, 9)}), max_size=3),
    "mines": st.dictionaries(st.sampled_from(("Cotedor", "Ural")), st.integers(0, 3), max_size=2),
    "depleted_mines": st.lists(st.sampled_from(("Toledo", "Karnten")), max_size=2),
})


def state_of(changes, stacks, country_facts, sieges, fortresses, turn) -> CampaignState:
    provinces = dict(BASE["provinces"])
    for place, owner, controller, markers, position in changes:
        provinces[place] = {**provinces[place], "owner": owner, "controller": controller, "markers": markers,
                            "at": {"owner": position, "controller": position, "markers": position}}
    m = {**BASE, "provinces": provinces,
         "forces": {f"{c}-{i}": {"country": c, "units": u, "leaders": []} for i, (c, u) in enumerate(stacks)},
         "countries": {c: {**f, "at": {k: 5 for k in f}} for c, f in country_facts.items()},
         "sieges": {p: ["X-1"] for p in sieges}, "fortresses": fortresses}
    return CampaignState(id=uuid4(), version=100, ruleset="eu", countries=MAJORS, military=m, turn=turn)


@settings(max_examples=120, deadline=None)
@given(changes=st.lists(province_change, max_size=12), stacks=st.lists(stack, max_size=6),
       country_facts=st.dictionaries(st.sampled_from(MAJORS), facts, max_size=4),
       sieges=st.lists(SOME, max_size=3), fortresses=st.dictionaries(SOME, st.integers(0, 5), max_size=4),
       turn=st.integers(1, 60))
def test_every_proposed_line_is_the_sum_of_its_lineage(changes, stacks, country_facts, sieges, fortresses, turn):
    state = state_of(changes, stacks, country_facts, sieges, fortresses, turn)
    for country, proposal in work_out_all(state).items():
        assert proposal.position == 100
        codes = [x.code for x in proposal.lines] + [c for c, _ in proposal.unresolved]
        assert sorted(codes, key=COMPUTED.index) == list(COMPUTED)  # each line proposed or said unresolved
        for line in proposal.lines:
            if line.lineage and line.lineage[-1].kind == "table":
                assert line.amount == line.lineage[-1].amount
                assert all(s.amount == 0 for s in line.lineage[:-1])
            else:
                assert line.amount == sum(s.amount for s in line.lineage), (country, line)
            assert line.code in WORKERS and line.rule


@settings(max_examples=60, deadline=None)
@given(changes=st.lists(province_change, max_size=12))
def test_provinces_income_and_its_losses_count_each_province_once(changes):
    state = state_of(changes, [], {}, [], {}, 1)
    owned = {c: sum(p["income"] for p in state.military["provinces"].values()
                    if "income" in p and p["owner"] == c) for c in MAJORS}
    for country in MAJORS:
        lines = {x.code: x for x in work_out(state, country).lines}
        assert lines["B1"].amount == owned[country]
        assert 0 <= lines["B3"].amount <= lines["B1"].amount + lines["B2"].amount
        assert len({s.name for s in lines["B3"].lineage}) == len(lines["B3"].lineage)
