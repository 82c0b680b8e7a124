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
    # the writes a role may be refused (ledger/access.py WRITES, "_" read as a space: ``refusal``)
    N_("change control"), N_("change establishment"), N_("change fortress"), N_("change mission"),
    N_("change owner"), N_("change settings"), N_("change stack"), N_("change trade centre"),
    N_("change trade fleet"), N_("close phase"), N_("close turn"), N_("confirm income"), N_("create campaign"),
    N_("declare war"), N_("disband stack"), N_("end siege"), N_("issue token"), N_("list tokens"), N_("make peace"),
    N_("merge stacks"), N_("move stack"), N_("open turn"), N_("place marker"), N_("publish sheets"),
    N_("raise stack"), N_("record correction"), N_("record ruling"), N_("record treasury"), N_("remove marker"),
    N_("reveal"), N_("revoke token"), N_("roll"), N_("set country facts"), N_("set leader values"),
    N_("split stack"), N_("start siege"),
    # the kinds of error a page names in its title (ledger/domain/errors.py)
    N_("InvalidInput"), N_("ContradictsBoard"), N_("CampaignNotFound"), N_("EventNotFound"), N_("PlaceNotFound"),
    N_("StateConflict"), N_("OutOfSequence"), N_("IdempotencyConflict"), N_("ConcurrencyExhausted"), N_("Forbidden"),
    N_("Unauthorized"), N_("TokenNotFound"), N_("ChainBroken"), N_("RulesError"),
})


def term(value: object) -> object:
    """``value`` in the reader's language when it is one of the ledger's own words, else as it is."""
    return gettext(value) if isinstance(value, str) and value in TERMS else value
