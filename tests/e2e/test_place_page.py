"""A place's page (/ui/campaigns/{id}/places/{name}?at=N) and the turn page's clickable map, over HTTP on both
stores: the state as of a position as the caller may see it, the board's facts, and the events that touched the
place, newest first, each linked to the turn page at that event."""

from __future__ import annotations

import re

import pytest

from api.web.turn_view import reader_of
from ledger import tokens
from ledger.application import visibility
from ledger.domain.commands import MoveStack, PlaceMarker, RemoveMarker
from ledger.sample import GM
from projections import replay
from projections.runner import Projector
from tests.e2e.test_web import ADMIN, CID, client, log_in, sample  # noqa: F401  (the sample fixture)


def positions(ledger, kind: str, **fields) -> list[int]:
    return [e.originator_version for e in ledger.history(CID)
            if type(e).__name__ == kind and all(getattr(e, k, None) == v for k, v in fields.items())]


def history_positions(html: str) -> list[int]:
    return [int(p) for p in re.findall(r'class="place-event" data-position="(\d+)"', html)]


@pytest.fixture
def gm_client(settings, sample):  # noqa: F811
    _, gm = tokens.issue_token(sample, CID, role="gm", holder="gina", actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        log_in(c, gm)
        yield c


def assert_pages_are_slices(reader, actor, state, whole, sizes):
    """Each page of Picardie's history (and pages past the last, clamped to it) is the slice of ``whole``, with
    its count and page number, for each page size."""
    for size in sizes:
        last = max((len(whole) + size - 1) // size, 1)
        for page in range(1, len(whole) // size + 3):
            count, shown, rows = reader.place_page(CID, actor, state, "Picardie", state.version, page, size)
            assert (count, shown) == (len(whole), min(page, last))
            assert rows == whole[(shown - 1) * size:shown * size]


def test_picardie_changes_hands_after_the_control_change_and_its_history_lists_it(sample, gm_client):  # noqa: F811
    [control] = positions(sample, "ControlChanged", province="Picardie")
    before = gm_client.get(f"/ui/campaigns/sample/places/Picardie?at={control - 1}")
    assert before.status_code == 200
    assert re.search(r'id="place-controller">FRA<', before.text)
    assert re.search(r'id="place-fortress">\d+<', before.text)
    after = gm_client.get(f"/ui/campaigns/sample/places/Picardie?at={control}")
    assert re.search(r'id="place-controller">ENG<', after.text)
    assert re.search(r'id="place-owner">FRA<', after.text)  # control, not ownership, changed hands
    assert "Pillage-" in after.text  # the marker placed before it

    listed = history_positions(after.text)
    assert listed == sorted(listed, reverse=True) and listed[0] == control  # newest first, up to N
    assert control not in history_positions(before.text)
    moves = [p for p in positions(sample, "StackMoved") if p < control
             and "Picardie" in (sample.history(CID)[p - 1].path or ())]
    assert moves and set(moves) <= set(listed)  # ENG-1's landing into it, FRA-1's retreat out of it
    for p in (control, *moves):
        assert re.search(rf'href="/ui/campaigns/sample/turns/1\?position={p}">#{p}<', after.text)
    # The board's facts: Picardie's neighbours, each a link at the same position.
    assert f'href="/ui/campaigns/sample/places/Caux?at={control}"' in after.text


def test_the_history_of_a_place_lists_rulings_held_there(sample, gm_client):  # noqa: F811
    rulings = positions(sample, "RulingRecorded")
    at_picardie = [p for p in rulings if (sample.history(CID)[p - 1].context or {}).get("where") == "Picardie"]
    listed = history_positions(gm_client.get("/ui/campaigns/sample/places/Picardie").text)
    assert at_picardie and set(at_picardie) <= set(listed)
    assert not set(rulings) - set(at_picardie) & set(listed)  # rulings elsewhere are not listed


def test_a_player_sees_neither_a_hidden_move_in_the_history_nor_the_hidden_stack(settings, sample):  # noqa: F811
    at = sample.campaign(CID).stacks["FRA-1"][0]
    hidden = sample.submit(CID, MoveStack, stack="FRA-1", origin=at, via=["Caux"], destination="Picardie",
                           actor=GM, vis=visibility("countries", ["FRA"])).events[0]["position"]
    _, eng = tokens.issue_token(sample, CID, role="player", country="ENG", holder="alice", actor=GM)
    _, fra = tokens.issue_token(sample, CID, role="player", country="FRA", holder="bruno", actor=GM)
    with client(settings.model_copy(update={"admin_token": ADMIN}), sample) as c:
        log_in(c, eng)
        page = c.get(f"/ui/campaigns/sample/places/Picardie?at={hidden}").text
        assert hidden not in history_positions(page) and 'data-stack="FRA-1"' not in page
        caux = c.get("/ui/campaigns/sample/places/Caux").text
        assert hidden not in history_positions(caux)
        c.cookies.clear()
        log_in(c, fra)
        page = c.get(f"/ui/campaigns/sample/places/Picardie?at={hidden}").text
        assert hidden == history_positions(page)[0] and 'data-stack="FRA-1"' in page


def test_an_unknown_place_is_a_404_naming_it_and_the_closest_names(gm_client):
    r = gm_client.get("/ui/campaigns/sample/places/Picardy")
    assert r.status_code == 404
    assert "Picardy" in r.text and "Picardie" in r.text
    beyond = gm_client.get("/ui/campaigns/sample/places/Picardie?at=100000")
    assert beyond.status_code == 422 and "position 100000 is not in the campaign" in beyond.text


def test_the_turn_pages_map_links_every_province_to_its_page(gm_client):
    page = gm_client.get("/ui/campaigns/sample/turns/1?step=1").text
    n = int(re.search(r'id="position">(\d+)<', page).group(1))
    svg = page[page.index("<svg"):page.index("</svg>")]
    linked = re.findall(r'<a class="place-link" href="/ui/campaigns/sample/places/([^"?]+)\?at=(\d+)">\s*'
                        r'<g class="place[^"]*" data-name="([^"]+)"', svg)
    assert linked and all(int(at) == n and name == drawn for name, at, drawn in linked)
    names = {drawn for _, _, drawn in linked}
    doc_places = set(re.findall(r'data-name="([^"]+)"', svg))
    assert names == doc_places and {"Picardie", "Caux", "Normandie", "Kent"} <= names
    assert f'href="/campaigns/{CID}/map.svg?at={n}">open the picture<' in page
    # The provinces' table under the map links each name to its page too.
    table = page[page.index('id="provinces"'):]
    assert f'<a href="/ui/campaigns/sample/places/Picardie?at={n}">Picardie</a>' in table



def test_the_history_reads_the_same_from_the_index_as_from_events_not_yet_projected(sample):  # noqa: F811
    reader, state = reader_of(sample), sample.campaign(CID)
    assert replay.places(reader.db, CID) == []  # no projector ran: every event is the tail
    from_events = reader.place_history(CID, GM, state, "Picardie", state.version)
    Projector(sample).catch_up()
    assert ("Picardie", from_events[0]["position"]) in replay.places(reader.db, CID)
    from_index = reader.place_history(CID, GM, state, "Picardie", state.version)
    assert [(r["position"], r["summary"]) for r in from_index] == [(r["position"], r["summary"]) for r in from_events]
    assert len(from_index) == 6


def test_a_long_history_is_paged_newest_first_25_a_page(sample, gm_client):  # noqa: F811
    for i in range(15):  # 30 more events at Picardie: 36 in all
        sample.submit(CID, RemoveMarker, province="Picardie", marker="Pillage-", reason=f"foraged out {i}", actor=GM)
        sample.submit(CID, PlaceMarker, province="Picardie", marker="Pillage-", reason=f"foraged {i}", actor=GM)
    head = sample.campaign(CID).version
    first = gm_client.get("/ui/campaigns/sample/places/Picardie").text
    second = gm_client.get(f"/ui/campaigns/sample/places/Picardie?at={head}&page=2").text
    assert history_positions(first) == list(range(head, head - 25, -1))
    assert "Page 1 of 2" in first and f'href="?at={head}&amp;page=2"' in first
    older = history_positions(second)
    # The last 5 of the 30 new events, then the sample turn's 6 (control, marker, retreat, battle, interception,
    # landing), still newest first.
    assert older[:5] == list(range(head - 25, head - 30, -1)) and len(older) == 11 and "Page 2 of 2" in second
    assert older[5:] == sorted(older[5:], reverse=True) and older[5] < head - 29


def test_a_game_masters_page_read_by_count_and_offset_is_the_slice_of_the_whole_history(sample):  # noqa: F811
    for i in range(15):
        sample.submit(CID, RemoveMarker, province="Picardie", marker="Pillage-", reason=f"foraged out {i}", actor=GM)
        sample.submit(CID, PlaceMarker, province="Picardie", marker="Pillage-", reason=f"foraged {i}", actor=GM)
    reader = reader_of(sample)
    Projector(sample).catch_up()
    for i in range(4):  # and some the views have not reached: the tail comes first
        sample.submit(CID, PlaceMarker, province="Picardie", marker="Pillage-", reason=f"late {i}", actor=GM)
    state = sample.campaign(CID)
    whole = reader.place_history(CID, GM, state, "Picardie", state.version)
    assert_pages_are_slices(reader, GM, state, whole, (3, 4, 25))


def test_a_players_page_is_the_slice_of_what_they_may_see_of_the_whole_history(sample):  # noqa: F811
    """A player's page reads which rows they may see from two small columns, then only that page's rows: each page
    equals the slice of their whole history, with the events hidden from them left out of pages and count."""
    from ledger.application import Actor

    fra, eng = Actor("bruno", "player", "FRA"), Actor("alice", "player", "ENG")
    for i in range(12):
        shown_to = {"scope": "countries", "countries": ["ENG"]} if i % 3 else None
        sample.submit(CID, RemoveMarker, province="Picardie", marker="Pillage-", reason=f"foraged out {i}", actor=GM,
                      **({"visibility": shown_to} if shown_to else {}))
        sample.submit(CID, PlaceMarker, province="Picardie", marker="Pillage-", reason=f"foraged {i}", actor=GM)
    reader = reader_of(sample)
    Projector(sample).catch_up()
    sample.submit(CID, PlaceMarker, province="Picardie", marker="Pillage-", reason="late", actor=GM)  # the tail
    state = sample.campaign(CID)
    for actor in (fra, eng):
        whole = reader.place_history(CID, actor, state, "Picardie", state.version)
        everything = reader.place_history(CID, GM, state, "Picardie", state.version)
        hidden = {r["position"] for r in everything if r["visibility"].get("countries") == ["ENG"]}
        assert len(hidden) == 8
        assert whole == [r for r in everything if actor is eng or r["position"] not in hidden]
        assert_pages_are_slices(reader, actor, state, whole, (3, 5, 25))


def test_a_players_pages_stay_the_slice_of_what_they_may_see_after_more_hidden_events_and_a_reveal(sample):  # noqa: F811
    """The rows of a place hidden from someone are kept per campaign and extended with later ones (a player's page
    counts from the index and leaves them out): after more hidden events, and after one of them is revealed, each
    page still equals the slice of the player's whole history."""
    from ledger.application import Actor
    from ledger.domain.commands import RevealEvent

    fra = Actor("bruno", "player", "FRA")
    only_eng = {"scope": "countries", "countries": ["ENG"]}
    reader = reader_of(sample)

    def pages_are_slices() -> int:
        state = sample.campaign(CID)
        whole = reader.place_history(CID, fra, state, "Picardie", state.version)
        assert_pages_are_slices(reader, fra, state, whole, (4,))
        return len(whole)

    def hidden_marker(i: int) -> int:
        return sample.submit(CID, PlaceMarker, province="Picardie", marker="Pillage-", reason=f"secret {i}",
                             actor=GM, visibility=only_eng).events[0]["position"]

    secret = [hidden_marker(i) for i in range(3)]
    Projector(sample).catch_up()
    before = pages_are_slices()
    secret += [hidden_marker(i) for i in range(3, 6)]
    sample.submit(CID, PlaceMarker, province="Picardie", marker="Pillage-", reason="open", actor=GM)
    Projector(sample).catch_up()
    assert pages_are_slices() == before + 1  # the new hidden ones stay out
    sample.submit(CID, RevealEvent, position=secret[4], reason="the raid is known", actor=GM)
    Projector(sample).catch_up()
    state = sample.campaign(CID)
    assert pages_are_slices() == before + 2
    assert secret[4] in {r["position"] for r in reader.place_history(CID, fra, state, "Picardie", state.version)}
