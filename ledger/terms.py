"""The ledger's own words that appear as data (a role, a phase, a visibility), as a reader of the current language
says them: ``term("military")`` is "militaire" in French (the seed's « phase militaire »). A value not listed is
shown as it is (a country, a place: names stay as the board gives them)."""

from __future__ import annotations

from ledger.i18n import N_, gettext

TERMS = frozenset({
    # roles (ledger/access.py ROLES and the all-seeing ones)
    N_("gm"), N_("player"), N_("observer"), N_("admin"), N_("system"),
    # the phases of a turn, in the sequence of play (ledger/domain/commands.py PHASES)
    N_("events"), N_("diplomacy"), N_("incomes"), N_("military"), N_("redeployment"), N_("exchequer"),
    N_("peace"), N_("interphase"),
    # who may see an event (ledger/application.py visibility)
    N_("public"), N_("countries"),
    # a place on the board (ledger/board.py): its kind, terrain and borders, "_" read as a space
    N_("province"), N_("sea zone"), N_("sea"), N_("plain"), N_("dense forest"), N_("sparse forest"), N_("desert"),
    N_("mountain"), N_("swamp"), N_("pass"), N_("river"), N_("strait"), N_("bering strait"),
    # the charts and the downloads (api/routes/web.py CHART_KINDS, EXPORT_TABLES)
    N_("treasury"), N_("income"), N_("inflation"), N_("victory"), N_("ers"), N_("ers-wide"), N_("entries"),
    N_("stability"),
    # the map's markers (ledger/domain/commands.py MARKERS): the French seed's « sape » is the siegework
    N_("Pillage+"), N_("Pillage-"), N_("Revolt"), N_("Revolt+"), N_("Siegework"), N_("Siegework+"), N_("Foraging"),
    N_("Unrest"),
    # leaders: their kinds and the values printed on their counters (« feu », « choc », « manœuvre » in the seed)
    N_("general"), N_("admiral"), N_("explorer"), N_("conquistador"), N_("governor"), N_("monarch"), N_("fire"),
    N_("shock"), N_("manoeuvre"), N_("siege"),
})


def term(value: object) -> object:
    """``value`` in the reader's language when it is one of the ledger's own words, else as it is."""
    return gettext(value) if isinstance(value, str) and value in TERMS else value
