"""The tracked views: each applies records in memory and writes what changed in the batch's transaction.

A document view (map, victory) keeps one JSON document per campaign, rewritten
once per batch, plus a checkpoint of the document at every ``TurnOpened`` and
every ``CHECKPOINT_EVERY`` events within a turn (what state-as-of-N starts
from). The victory view also writes one row per award; the timeline view one
row per event; the budget view one row per ERS line (projections.budget_view). ``reset`` empties a view for a rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from projections import budget_public, budget_view, corrections
from projections import map as map_model
from projections import timeline as timeline_model
from projections import victory as victory_model
from ledger.economy.sheets import RELEVANT
from projections.records import BASE, Record
from projections.store import POSITION_ONLY, ViewDB, insert_rows
from projections.turn_groups import TurnGroupsView
from projections.outbox import OutboxView


_dumps = orjson.dumps
_PUBLIC = {"scope": "public"}
_PUBLIC_TEXT = _dumps(_PUBLIC).decode()  # most events' visibility: serialised once


def empty_table(db: ViewDB, cur: Any, table: str) -> None:
    """Empty a table only this view writes (a rebuild's reset).

    TRUNCATE on PostgreSQL: a DELETE of every row left as many dead tuples
    and index entries behind, and the rebuild's COPY then wrote into the
    bloated table (the server's time dominated a rebuild's writes). TRUNCATE is
    transactional there, so the reset stays one transaction with the
    tracking rows; it locks the table until that transaction commits.
    """
    cur.execute(f"TRUNCATE {table}" if db.postgres else f"DELETE FROM {table}")


#: A document view also checkpoints its document once this many events have passed since its last checkpoint,
#: so that state as of N (projections.replay) folds at most this many events after one: a turn of a big
#: campaign runs to a thousand events, and a fold of a whole turn took state-at-N's p95 past 50 ms. Deterministic
#: (the last checkpoint is the table's latest), so a rebuild writes the same checkpoints.
CHECKPOINT_EVERY = 250

#: A view with append-only lists (victory: its stability log, half a megabyte at 300,000 events) writes them
#: whole in one checkpoint of this many (a keyframe); a checkpoint between keyframes writes only their entries
#: after its keyframe's, and names it (``records.BASE``): 287 MB of the 300k campaign's victory checkpoints were
#: the same log again and again, written by a rebuild and read back by state as of N. A checkpoint is a keyframe
#: too whenever a list no longer begins with its keyframe's (a correction folded the document again). The choice
#: depends on the checkpoints alone, so a rebuild, interrupted or not, writes the same rows.
KEYFRAME_EVERY = 16


@dataclass
class _Keyframe:
    position: int
    lists: dict[str, list[Any]]  # its append-only lists (the entries shared with the document's)
    since: int = 0  # checkpoints written after it

    def begins(self, lists: dict[str, list[Any]]) -> bool:
        """Whether each of a document's lists begins with the keyframe's (entries shared: compared by identity
        first, so the common case costs a pass over pointers)."""
        return lists.keys() == self.lists.keys() and all(
            items[:len(self.lists[name])] == self.lists[name] for name, items in lists.items())


class View:
    name: str
    model: Any
    checkpoint_every = 0  # document views (View.handle): CHECKPOINT_EVERY
    #: The event types whose fields the view reads; of the others it reads the type and position only, so a
    #: projector whose views all say (one process of ``rebuild --jobs``) decodes no other event. None: every type.
    reads: frozenset[str] | None = None
    #: The fields of a ruling (``RulingRecorded.ruling``) the view reads ("a.b": a field of a field): a projector
    #: decodes only the union of its views' (projections/runner.py). None: the whole ruling.
    ruling_reads: frozenset[str] | None = None
    #: Lists of the document that only ever grow by appending (until a correction folds it again): ``dump``
    #: serialises only their new entries.
    append_only: tuple[str, ...] = ()
    #: Whether a long catch-up ends the view's pages before a turn opens (``runner.turn_cut``): a view that
    #: computes a turn's state again whenever an event of that turn comes, at each page's end.
    whole_turns = False

    def __init__(self, db: ViewDB):
        self.db = db
        self.docs: dict[str, dict[str, Any]] = {}
        # Per (campaign, key): the append-only list last serialised, how many entries, and their JSON text.
        self._lists: dict[tuple[str, str], tuple[list[Any], int, bytearray]] = {}
        self.last_checkpoint: dict[str, int] = {}  # per campaign, in step with self.docs
        self.keyframes: dict[str, _Keyframe | None] = {}  # per campaign (append_only views), in step with docs
        self.dirty: set[str] = set()
        self.checkpoints: list[tuple[str, int | None, int, bytes]] = []
        self.rows: list[tuple] = []

    # -- documents, cached across batches while this runner owns the tracking row
    def doc(self, cur: Any, campaign: str) -> dict[str, Any]:
        doc = self.docs.get(campaign)
        if doc is None:
            cur.execute(self.db.sql("SELECT doc FROM {proj_docs} WHERE view = ? AND campaign = ?"),
                        (self.name, campaign))
            row = cur.fetchone()
            doc = orjson.loads(bytes(row["doc"])) if row else self.model.empty()
            self.docs[campaign] = doc
            if self.checkpoint_every:
                cur.execute(self.db.sql("SELECT MAX(position) AS p FROM {proj_checkpoints} WHERE view = ? "
                                        "AND campaign = ?"), (self.name, campaign))
                row = cur.fetchone()
                self.last_checkpoint[campaign] = int(row["p"]) if row and row["p"] is not None else 0
                if self.append_only:
                    self.keyframes[campaign] = self._stored_keyframe(cur, campaign, self.last_checkpoint[campaign])
        return doc

    def _stored_keyframe(self, cur: Any, campaign: str, last: int) -> _Keyframe | None:
        """The keyframe the latest stored checkpoint (at ``last``) is or names, and how many came after it."""
        if not last:
            return None
        latest = orjson.loads(self.db.checkpoint_doc(cur, self.name, campaign, last))
        base = latest.get(BASE)
        if base is None:
            return _Keyframe(last, self._lists_of(latest))
        cur.execute(self.db.sql("SELECT COUNT(*) AS n FROM {proj_checkpoints} WHERE view = ? AND campaign = ? "
                                "AND position > ?"), (self.name, campaign, base))
        since = int(cur.fetchone()["n"])
        keyframe = orjson.loads(self.db.checkpoint_doc(cur, self.name, campaign, base))
        return _Keyframe(base, self._lists_of(keyframe), since)

    def _lists_of(self, doc: dict[str, Any]) -> dict[str, list[Any]]:
        return {key: doc[key] for key in self.append_only if isinstance(doc.get(key), list)}

    def checkpoint(self, campaign: str, turn: int | None, position: int, doc: dict[str, Any]) -> None:
        """A checkpoint of ``doc`` at ``position``: whole, or its append-only lists after its keyframe's
        (``KEYFRAME_EVERY``)."""
        self.last_checkpoint[campaign] = position
        if not self.append_only:
            self.checkpoints.append((campaign, turn, position, self.dump(campaign, doc)))
            return
        lists, key = self._lists_of(doc), self.keyframes.get(campaign)
        if key is None or key.since + 1 >= KEYFRAME_EVERY or not key.begins(lists):
            self.keyframes[campaign] = _Keyframe(position, {name: list(items) for name, items in lists.items()})
            self.checkpoints.append((campaign, turn, position, self.dump(campaign, doc)))
            return
        key.since += 1
        between = {**doc, BASE: key.position, **{name: items[len(key.lists[name]):] for name, items in lists.items()}}
        self.checkpoints.append((campaign, turn, position, orjson.dumps(between)))

    def skips(self, kind: str) -> bool:
        """Whether the view reads nothing of an event of this type but its position: a rebuild (the runner's
        ``_apply``) then hands it none of them and says where they reached instead (``passed``)."""
        return False

    def passed(self, cur: Any, campaign: str, position: int) -> None:
        """Events the view skips went by, up to ``position``: the document is at it, with the checkpoints
        that fell due on the way (the document was the same at each of them but for its position)."""
        doc = self.docs.get(campaign) or self.doc(cur, campaign)
        if position <= doc["position"]:
            return
        every = self.checkpoint_every
        if every:
            last = self.last_checkpoint[campaign]
            while position - last >= every:  # as handle: at every ``every`` events since the last one
                last += every
                doc["position"] = last
                self.checkpoint(campaign, None, last, doc)
        doc["position"] = position
        self.dirty.add(campaign)

    def handle(self, cur: Any, r: Record) -> None:
        doc = self.docs.get(r.campaign) or self.doc(cur, r.campaign)  # cached: no call per event
        if r.position - doc["position"] > 1:  # skipped events before this one (``skips``)
            self.passed(cur, r.campaign, r.position - 1)
        if r.type == "CorrectionRecorded":  # fold the campaign again, the corrected events replaced
            doc, awards = corrections.apply(self.model, doc, r, lambda n: self.db.read_campaign(cur, r.campaign, n))
            self.docs[r.campaign] = doc
            self.refolded(r.campaign, awards or [])
        else:
            self.apply(doc, r)
        self.dirty.add(r.campaign)
        if r.type == "TurnOpened":
            self.checkpoint(r.campaign, r.data.get("turn"), r.position, doc)
        elif self.checkpoint_every and r.position - self.last_checkpoint[r.campaign] >= self.checkpoint_every:
            # Within a long turn: no turn of its own (head.Reader.turn_start finds turn openings by it).
            self.checkpoint(r.campaign, None, r.position, doc)

    def dump(self, campaign: str, doc: dict[str, Any]) -> bytes:
        """``orjson.dumps(doc)``, the same bytes, with each ``append_only`` list's entries serialised once.

        The victory document's stability log grows with the campaign (half a megabyte at 300,000 events), and
        every checkpoint serialises the whole document: a rebuild serialised 275 MB, 0.9 s of its 7 s of CPU.
        The list's text is kept and extended by its new entries; the rest of the document is serialised with
        a placeholder in its place, then the placeholder replaced. A list that is not the one serialised last
        (a correction folded the document again, a document read back) or is shorter is serialised afresh.
        """
        if not self.append_only:
            return orjson.dumps(doc)
        shallow, texts = dict(doc), []
        for key in self.append_only:
            items = doc.get(key)
            if not isinstance(items, list):
                continue
            known = self._lists.get((campaign, key))
            if known is None or known[0] is not items or known[1] > len(items):
                known = (items, 0, bytearray())
            text = known[2]
            if len(items) > known[1]:
                if known[1]:
                    text += b","
                text += orjson.dumps(items[known[1]:])[1:-1]
            self._lists[(campaign, key)] = (items, len(items), text)
            shallow[key], hole = _hole(key)
            texts.append((hole, text))
        out = orjson.dumps(shallow)
        if any(out.count(hole) != 1 for hole, _ in texts):
            return orjson.dumps(doc)  # the placeholder's text is in the document itself (never seen)
        for hole, text in texts:
            at = out.index(hole)
            out = b"".join((out[:at], b"[", text, b"]", out[at + len(hole):]))
        return out

    def apply(self, doc: dict[str, Any], r: Record) -> None:
        self.model.apply(doc, r)

    def refolded(self, campaign: str, awards: corrections.Awards) -> None:
        """After a correction: the rows this view keeps besides the document, for the whole campaign."""

    def flush(self, cur: Any) -> None:
        if self.dirty:
            self.db.put_docs(cur, [(self.name, c, self.docs[c]["position"], self.dump(c, self.docs[c]))
                                   for c in sorted(self.dirty)])
        if self.checkpoints:
            cur.executemany(
                self.db.sql("INSERT INTO {proj_checkpoints} (view, campaign, turn, position, doc) "
                            "VALUES (?, ?, ?, ?, ?)"),
                [(self.name, *cp) for cp in self.checkpoints],
            )
        self.flush_rows(cur)

    def flush_rows(self, cur: Any) -> None:
        pass

    def committed(self) -> None:
        self.dirty.clear()
        self.checkpoints.clear()
        self.rows.clear()

    def forget(self) -> None:
        """After a rollback: the cached documents may hold uncommitted changes."""
        self.docs.clear()
        self.last_checkpoint.clear()
        self.keyframes.clear()
        self._lists.clear()
        self.committed()

    def reset(self, cur: Any) -> None:
        for table in ("proj_docs", "proj_checkpoints"):
            cur.execute(self.db.sql(f"DELETE FROM {{{table}}} WHERE view = ?"), (self.name,))
        self.forget()


_HOLES: dict[str, tuple[str, bytes]] = {}


def _hole(key: str) -> tuple[str, bytes]:
    """``View.dump``'s placeholder for a key: a string no document holds (NULs), and its JSON text."""
    hole = _HOLES.get(key)
    if hole is None:
        text = f"\0append-only {key}\0"
        hole = _HOLES[key] = (text, orjson.dumps(text))
    return hole


class MapView(View):
    name = "map"
    model = map_model
    checkpoint_every = CHECKPOINT_EVERY
    ruling_reads = map_model.RULING_READS

    def skips(self, kind: str) -> bool:
        return kind in POSITION_ONLY  # map.apply: no branch of its own


class VictoryView(View):
    name = "victory"
    model = victory_model
    checkpoint_every = CHECKPOINT_EVERY
    reads = victory_model.READS | {"CorrectionRecorded"}  # a correction folds the campaign again
    ruling_reads = victory_model.RULING_READS
    append_only = victory_model.APPEND_ONLY

    def skips(self, kind: str) -> bool:
        return kind not in self.reads  # type: ignore[operator]  # victory.apply: no branch of its own

    def __init__(self, db: ViewDB):
        super().__init__(db)
        self.cleared: set[str] = set()  # campaigns whose award rows are all written again (a correction)

    def apply(self, doc: dict[str, Any], r: Record) -> None:
        for a in victory_model.apply(doc, r):
            self.rows.append(self._row(r.campaign, r.position, a))

    @staticmethod
    def _row(campaign: str, position: int, a: dict[str, Any]) -> tuple:
        return (campaign, position, a["effect"], a["country"], a["turn"], str(a["points"]), a["reason"],
                a.get("hash"))

    def refolded(self, campaign: str, awards: corrections.Awards) -> None:
        self.rows = [row for row in self.rows if row[0] != campaign] + [
            self._row(campaign, pos, a) for pos, a in awards]
        self.cleared.add(campaign)

    def flush_rows(self, cur: Any) -> None:
        if self.cleared:
            cur.executemany(self.db.sql("DELETE FROM {proj_awards} WHERE campaign = ?"),
                            [(c,) for c in sorted(self.cleared)])
        columns = ("campaign", "position", "effect", "country", "turn", "points", "reason", "hash")
        if self.db.award_hashes:
            insert_rows(self.db, cur, self.db.t("proj_awards"), columns, self.rows)
        else:  # an older release's table, not migrated yet (store.ViewDB._add_award_hashes)
            insert_rows(self.db, cur, self.db.t("proj_awards"), columns[:-1], [r[:-1] for r in self.rows])

    def committed(self) -> None:
        self.cleared.clear()
        super().committed()

    def reset(self, cur: Any) -> None:
        super().reset(cur)
        empty_table(self.db, cur, self.db.t("proj_awards"))


class TimelineView(View):
    name = "timeline"
    model = timeline_model
    ruling_reads = timeline_model.RULING_READS

    def __init__(self, db: ViewDB):
        super().__init__(db)
        self.places: list[tuple[str, str, int]] = []  # proj_places rows: (campaign, place, position)

    def handle(self, cur: Any, r: Record) -> None:
        # timeline_model.row without its intermediate dict (a rebuild makes one row per event): same fields.
        campaign, t, data = r.campaign, r.type, r.data
        doc = self.docs.get(campaign) or self.doc(cur, campaign)
        if t == "ScenarioImported":
            doc["stacks"] = {s["id"]: s["country"] for s in data["scenario"]["stacks"]}
            self.dirty.add(campaign)  # the stack owners: the only state this view keeps
        elif t == "StackSplit":  # as timeline_model.row: the new stack's owner, to name it in an interception
            doc.setdefault("stacks", {})[data["new_stack"]] = data["country"]
            self.dirty.add(campaign)
        doc["position"] = r.position
        ctx = data.get("context") or {}
        vis = data.get("visibility")
        self.rows.append((campaign, r.position, ctx.get("turn"), t, timeline_model.summary(doc, r, ctx),
                          _dumps(ctx).decode(), _PUBLIC_TEXT if not vis or vis == _PUBLIC else _dumps(vis).decode()))
        places = timeline_model.places(r, ctx)
        if places:  # a treasury entry, a turn opened or closed: none (a comprehension per event cost a call)
            self.places += [(campaign, place, r.position) for place in places]

    def flush_rows(self, cur: Any) -> None:
        insert_rows(self.db, cur, self.db.t("proj_timeline"),
                    ("campaign", "position", "turn", "type", "summary", "context", "visibility"), self.rows)
        insert_rows(self.db, cur, self.db.t("proj_places"), ("campaign", "place", "position"), self.places)

    def committed(self) -> None:
        super().committed()
        self.places.clear()

    def reset(self, cur: Any) -> None:
        super().reset(cur)
        empty_table(self.db, cur, self.db.t("proj_timeline"))
        empty_table(self.db, cur, self.db.t("proj_places"))


class BudgetView(View):
    name = budget_view.NAME
    model = budget_view  # the document: the position only (handle keeps it, not model.apply)
    reads = RELEVANT
    ruling_reads = frozenset()  # no ruling is relevant to the budget
    whole_turns = True  # its sheets

    def __init__(self, db: ViewDB):
        super().__init__(db)
        budget_view.create_tables(db)
        self.lines_table, self.sheets_table = db.t("proj_budget"), db.t("proj_budget_sheets")
        self.sheets: dict[str, dict[tuple[str, int], bytes]] = {}  # the stored answer's digests, per campaign
        self.changed: set[str] = set()  # campaigns whose relevant events changed in this batch
        # Written, not yet committed: the digests of the sheets computed again, and whether that was every one.
        self._pending: dict[str, tuple[dict[tuple[str, int], bytes], bool]] = {}
        self.caches: dict[str, budget_view.Cache] = {}  # per campaign, in step with self.docs

    def doc(self, cur: Any, campaign: str) -> dict[str, Any]:
        cached = campaign in self.docs
        doc = super().doc(cur, campaign)
        if not cached:
            # What the stored rows hold: the budget of the events up to the document's position (written in
            # the same transactions), read again from the events.
            self.caches[campaign] = budget_view.Cache(
                budget_view.relevant_events(self.db, cur, campaign, doc["position"]) if doc["position"] else [])
            doc.pop("events", None)  # older documents kept the events themselves
            self.sheets[campaign] = self.caches[campaign].sheets()[0]
        return doc

    def skips(self, kind: str) -> bool:
        return kind not in RELEVANT

    def handle(self, cur: Any, r: Record) -> None:
        campaign = r.campaign
        doc = self.docs.get(campaign) or self.doc(cur, campaign)  # cached: no call per event
        doc["position"] = r.position
        self.dirty.add(campaign)
        if r.type in RELEVANT:
            self.caches[campaign].add(r.type, r.position, budget_view.trim(r))
            self.changed.add(campaign)

    def flush(self, cur: Any) -> None:
        super().flush(cur)  # the documents (no checkpoints: the budget is cheap to recompute)
        ph = self.db.ph
        for campaign in sorted(self.changed):
            old = self.sheets.get(campaign, {})
            cache = self.caches[campaign]
            new, every = cache.sheets()  # the sheets computed again (every one: a sheet not in it is gone)
            # Only the sheets whose answer changed are rewritten (an entry changes its turn and the later ones).
            # A changed digest means the sheet was computed again by this call: its JSON is in cache.computed.
            stale = [k for k in (old if every else new) if old.get(k) is not None and old[k] != new.get(k)]
            fresh = [k for k in new if old.get(k) != new[k]]
            for table in (self.lines_table, self.sheets_table) if stale else ():
                cur.executemany(f"DELETE FROM {table} WHERE campaign = {ph} AND country = {ph} AND turn = {ph}",
                                [(campaign, c, t) for c, t in stale])
            lines, sheets = [], []
            for key in fresh:
                sheet, rows = cache.computed[key]  # serialised once, by Cache.sheets
                sheets.append((campaign, *key, sheet))
                lines.extend((campaign, *key, *row) for row in rows)
            insert_rows(self.db, cur, self.lines_table, ("campaign", "country", "turn", "seq", "line", "amount",
                                                         "kind", "events", "sources", "detail"), lines)
            insert_rows(self.db, cur, self.sheets_table, ("campaign", "country", "turn", "sheet"), sheets)
            self._pending[campaign] = (new, every)

    def committed(self) -> None:
        for campaign, (new, every) in self._pending.items():
            if every or campaign not in self.sheets:
                self.sheets[campaign] = new
            else:  # in place: the campaign's other sheets did not change
                self.sheets[campaign].update(new)
        self._pending.clear()
        self.changed.clear()
        super().committed()

    def forget(self) -> None:
        self.caches.clear()  # they may hold uncommitted events, like the documents
        self.sheets.clear()
        self._pending.clear()
        self.changed.clear()
        super().forget()

    def reset(self, cur: Any) -> None:
        super().reset(cur)
        empty_table(self.db, cur, self.lines_table)
        empty_table(self.db, cur, self.sheets_table)


class PublicBudgetView(View):
    """The ERS as everyone sees it, per sheet (``projections.budget_public``): the document says who may use it."""

    name = budget_public.NAME
    model = budget_view  # an empty document is the position only
    reads = budget_public.READS
    ruling_reads = frozenset()
    whole_turns = True  # its sheets' amounts

    def __init__(self, db: ViewDB):
        super().__init__(db)
        budget_public.create_tables(db)
        self.folds: dict[str, budget_public.Fold] = {}  # per campaign, in step with self.docs
        self.changed: set[str] = set()

    def doc(self, cur: Any, campaign: str) -> dict[str, Any]:
        cached = campaign in self.docs
        doc = super().doc(cur, campaign)
        if not cached:  # what the stored rows hold, gathered again from the events
            fold = self.folds[campaign] = budget_public.gather(self.db, cur, campaign, doc["position"])
            fold.sheets()
        return doc

    def skips(self, kind: str) -> bool:
        # Of the other events the document keeps the position only (``View.passed``): handed every event, the
        # view cost a call per event for nine in ten of them.
        return kind not in budget_public.READS

    def handle(self, cur: Any, r: Record) -> None:
        campaign = r.campaign
        doc = self.docs.get(campaign) or self.doc(cur, campaign)
        doc["position"] = r.position
        self.dirty.add(campaign)
        if r.type in budget_public.READS:
            fold = self.folds[campaign]
            if not fold.add(r.type, r.position, budget_public.trim(r), r.visibility):
                digests = fold.digests  # a hidden event revealed: gathered again, in order
                fold = self.folds[campaign] = budget_public.gather(self.db, cur, campaign, r.position)
                fold.digests = digests
            self.changed.add(campaign)

    def flush(self, cur: Any) -> None:
        for campaign in sorted(self.changed):
            fold = self.folds[campaign]
            budget_public.write(self.db, cur, campaign, fold.sheets())
            self.docs[campaign] = {**self.docs[campaign], **fold.doc(self.docs[campaign]["position"])}
        super().flush(cur)

    def committed(self) -> None:
        self.changed.clear()
        super().committed()

    def forget(self) -> None:
        self.folds.clear()  # they may hold uncommitted events, like the documents
        self.changed.clear()
        super().forget()

    def reset(self, cur: Any) -> None:
        super().reset(cur)
        empty_table(self.db, cur, self.db.t(budget_public.TABLE))


VIEW_CLASSES: dict[str, Any] = {v.name: v for v in (MapView, VictoryView, TimelineView, BudgetView,
                                                           PublicBudgetView, TurnGroupsView, OutboxView)}
