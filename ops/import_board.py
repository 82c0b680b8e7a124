"""Import the published Europa Universalis board into the ledger's own board files.

    python ops/import_board.py --source ../shared/board/eu --out ledger/rules/eu/board \
        [--scenarios ledger/scenarios]

Reads ``referential.json`` (the board's tables) and ``europe.geo.json`` (its
polygons) and writes compact, sorted, deterministic JSON into ``--out``:
provinces, rest-of-the-world provinces and regions, sea zones, trade zones
(presence and monopoly values), borders (each once), countries with their
ledger codes, and the simplified polygons. The raw
files are never shipped; the output is, with the source's MIT notice.

With ``--scenarios`` it also writes the 1492 start and the real-corner sample,
built from the board files it has just written (so they can be rebuilt from
the shipped board alone, see ``write_scenarios``).

Nothing is matched silently: a table name without a polygon, a polygon nobody
claims, a printed owner without a ledger code, a name claimed twice, all stop
the import with the list of what did not match.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

# ----------------------------------------------------------------- data: the mapping tables

# Ledger code and English label of each of the 119 countries of R_COUNTRY, keyed by the
# table's French short name. Codes are 2-4 capital letters (ledger.domain.campaign.COUNTRY_RE).
# Majors use the codes the project and the seeds already use (ENG as in ledger/scenarios,
# SPA/TUR/POL/RUS as the seeds' macros \SPA, \TUR...); SWE for suede; the seeds' \HAB means
# "Spain or Austria" (eu-redeployment-peace-interphase.tex: "\HAB (\SPA or \AUS)"), so the
# country `habsbourg` is AUS. The table's own prefixes are kept as a letter: the Habsburg
# holdings `H...` (type HAB) get H + 3 letters, the revolt countries `V...` get V + 3 letters
# (VHOL beside the minormajor HOL). Three-letter codes otherwise, from the English name,
# with a fourth-choice letter where the obvious one was taken (HSA Hanse beside HAN Hanover,
# PRM Parma beside PRL Parliament).
COUNTRIES: dict[str, tuple[str, str]] = {
    # MAJOR
    "angleterre": ("ENG", "England"),
    "espagne": ("SPA", "Spain"),
    "france": ("FRA", "France"),
    "prusse": ("PRU", "Prussia"),
    "russie": ("RUS", "Russia"),
    "turquie": ("TUR", "Turkey"),
    # MINORMAJOR
    "habsbourg": ("AUS", "Habsburg Austria"),
    "hollande": ("HOL", "Holland"),
    "pologne": ("POL", "Poland"),
    "portugal": ("POR", "Portugal"),
    "suede": ("SWE", "Sweden"),
    "venise": ("VEN", "Venice"),
    # HAB: the Habsburg-held versions of four minors
    "Hboheme": ("HBOH", "Habsburg Bohemia"),
    "Hhongrie": ("HHUN", "Habsburg Hungary"),
    "Hmilan": ("HMIL", "Habsburg Milan"),
    "Hnaples": ("HNAP", "Habsburg Naples"),
    # MINOR
    "algerie": ("ALG", "Algiers"),
    "alsace": ("ALS", "Alsace"),
    "arabie": ("ARA", "Arabia"),
    "astrakhan": ("AST", "Astrakhan"),
    "bade": ("BAD", "Baden"),
    "baviere": ("BAV", "Bavaria"),
    "berg": ("BRG", "Berg"),
    "boheme": ("BOH", "Bohemia"),
    "bourgogne": ("BUR", "Burgundy"),
    "brandebourg": ("BRA", "Brandenburg"),
    "brunswick": ("BRU", "Brunswick"),
    "chevaliers": ("KNI", "Knights of St John"),
    "cologne": ("KLN", "Cologne"),
    "cosaquesdon": ("DON", "Don Cossacks"),
    "crimee": ("CRI", "Crimea"),
    "cyrenaique": ("CYR", "Cyrenaica"),
    "damas": ("DAM", "Damascus"),
    "danemark": ("DEN", "Denmark"),
    "ecosse": ("SCO", "Scotland"),
    "genes": ("GEN", "Genoa"),
    "georgie": ("GEO", "Georgia"),
    "hanovre": ("HAN", "Hanover"),
    "hanse": ("HSA", "Hanse"),
    "hesse": ("HES", "Hesse"),
    "hongrie": ("HUN", "Hungary"),
    "irak": ("IRQ", "Iraq"),
    "kazan": ("KAZ", "Kazan"),
    "liege": ("LIE", "Liège"),
    "lorraine": ("LOR", "Lorraine"),
    "lucca": ("LUC", "Lucca"),
    "mamelouks": ("MAM", "Mamluks"),
    "maroc": ("MOR", "Morocco"),
    "mayence": ("MAI", "Mainz"),
    "mazovie": ("MAZ", "Mazovia"),
    "milan": ("MIL", "Milan"),
    "modene": ("MOD", "Modena"),
    "moldavie": ("MOL", "Moldavia"),
    "montferrat": ("MON", "Montferrat"),
    "naples": ("NAP", "Naples"),
    "oldenburg": ("OLD", "Oldenburg"),
    "palatinat": ("PAL", "Palatinate"),
    "papaute": ("PAP", "Papal States"),
    "parme": ("PRM", "Parma"),
    "perse": ("PER", "Persia"),
    "provincesne": ("UNI", "United Provinces"),
    "pskov": ("PSK", "Pskov"),
    "ryazan": ("RYA", "Ryazan"),
    "savoie": ("SAV", "Savoy"),
    "saxe": ("SAX", "Saxony"),
    "steppes": ("STE", "Steppes"),
    "suisse": ("SWI", "Switzerland"),
    "teutoniques1": ("TEU", "Teutonic Order (Livonia)"),  # its provinces: Livonija, Kurland, Estland, Memel
    "teutoniques2": ("TEP", "Teutonic Order (Prussia)"),  # Preussen, Hinterpommern, Vorpommern
    "thuringe": ("THU", "Thuringia"),
    "toscane": ("TUS", "Tuscany"),
    "treves": ("TRI", "Trier"),
    "tripoli": ("TRP", "Tripoli"),
    "tunisie": ("TUN", "Tunis"),
    "ukraine": ("UKR", "Ukraine"),
    "usa": ("USA", "United States"),
    "valachie": ("WAL", "Wallachia"),
    "wurtemberg": ("WUR", "Württemberg"),
    # ROTW
    "aceh": ("ACE", "Aceh"),
    "aden": ("ADE", "Aden"),
    "afghans": ("AFG", "Afghans"),
    "azteque": ("AZT", "Aztecs"),
    "chine": ("CHI", "China"),
    "gujarat": ("GUJ", "Gujarat"),
    "hyderabad": ("HYD", "Hyderabad"),
    "inca": ("INC", "Incas"),
    "iroquois": ("IRO", "Iroquois"),
    "japon": ("JAP", "Japan"),
    "mogol": ("MUG", "Mughals"),
    "mysore": ("MYS", "Mysore"),
    "oman": ("OMA", "Oman"),
    "ormus": ("ORM", "Hormuz"),
    "siberie": ("SIB", "Siberia"),
    "soudan": ("SUD", "Sudan"),
    "vijayanagar": ("VIJ", "Vijayanagar"),
    # REVOLT
    "Vbelgique": ("VBEL", "Belgium (revolt)"),
    "Vcatalogne": ("VCAT", "Catalonia (revolt)"),
    "Veastprussia": ("VEPR", "East Prussia (revolt)"),
    "Vfinlande": ("VFIN", "Finland (revolt)"),
    "Vhollande": ("VHOL", "Holland (revolt)"),
    "Virlande": ("VIRL", "Ireland (revolt)"),
    "Vliflandie": ("VLIV", "Livonia (revolt)"),
    "Vlithuanie": ("VLIT", "Lithuania (revolt)"),
    "Vnorvege": ("VNOR", "Norway (revolt)"),
    "Vpommeranie": ("VPOM", "Pomerania (revolt)"),
    "Vukraine": ("VUKR", "Ukraine (revolt)"),
    "corse": ("COR", "Corsica"),
    "courlande": ("CUR", "Courland"),
    "grenade": ("GRA", "Granada"),
    "transylvanie": ("TRA", "Transylvania"),
    # VIRTUAL
    "german-empire": ("GER", "German Empire"),
    "huguenots": ("HUG", "Huguenots"),
    "natives": ("NAT", "Natives"),
    "parliament": ("PRL", "Parliament"),
    "pirates": ("PIR", "Pirates"),
    "rebelles": ("REB", "Rebels"),
    "royalistes": ("ROY", "Royalists"),
    "saint-empire": ("HRE", "Holy Roman Empire"),
    "sainte-ligue": ("LIG", "Holy League"),
}

# Polygon id -> table name, where the 2015 polygons and the 2020 tables differ. The sea
# zones are spelled out in the polygons; each pairing below was checked against R_BORDER:
# the polygon touches exactly the provinces the table says the zone borders (so
# "Mer d'Irlande" is the table's Celtic Sea and "Île de Man" its Irish Sea, whatever the
# polygon names say).
POLYGON_ALIASES: dict[str, str] = {
    # sea zones
    "Adriatique": "sAdriatique",
    "Baie de Botnie": "sBotnie",
    "Baie d’Alger": "sAlger",
    "Baltique": "sBaltique",
    "Banc d’Arguin": "sArguin",
    "Golfe Persique": "sPersique",
    "Golfe de Cadix": "sCadix",
    "Golfe de Gascogne": "sGascogne",
    "Golfe de Syrte": "sGabes",
    "Golfe du Lion": "sLion",
    "Manche": "sManche",
    "Marmara": "sMarmara",
    "Mer Caspienne": "sCaspienne",
    "Mer Ionienne": "sIonienne",
    "Mer Noire occidentale": "sNoire W",
    "Mer Noire orientale": "sNoire E",
    "Mer Rouge": "sRouge",
    "Mer Tyrrhénienne": "sThyrrenienne",
    "Mer de Norvège": "sNorvege",
    "Mer du Nord": "sNord",
    "Mer d’Irlande": "sCeltique",
    "Mer Égée": "sEgee",
    "Méditerrannée occidentale": "sAlboran",
    "Méditerrannée orientale": "sLevantin",
    "Western Approaches": "sRockall",
    "Île de Man": "sIrlande",
    "Øresund": "sOresund",
    # European provinces whose polygon name is neither the table name nor a METADATA name
    "Île-de-France": "eIle-de-France",
    "Mişr": "eEgypte",
    "Deltā": "eDelta",
    "Kyklades": "eCyclades",
    "al-Jaza’ir": "eAlgerie",
    "Wahrān": "eOran",
    "Neva": "eIngria",
    "Kranj": "eCarniola",
    "Luxembourg": "eLuxemburg",
    # METADATA names that match two polygons: the one bordering what R_BORDER says wins
    "Eşfahān": "eIsfahan",
    "Sjælland": "eSjaelland",
    "an-Nafūd": "eNefud",  # borders Nedj E, as eNefud does; "Nefud" is the desert north of it
    # rest-of-the-world provinces at the map's edge
    "Aral E": "rAral~E",
    "Aral N": "rAral~N",
    "Aral S": "rAral~S",
    "Aral W": "rAral~W",
    "Sibérie NW": "rSiberie~NW",
    "Sibérie S": "rSiberie~S",
    "Sibérie W": "rSiberie~W",
    "Nedj E": "rNedj~E",
    "Oman E": "rOman~E",
    "Mauritanie N": "rMauritanie~N",
}

# Small extra pieces drawn as polygons of their own, named after the province they belong to:
# they become extra parts of that province's MultiPolygon.
POLYGON_PARTS: dict[str, str] = {
    "Sjaelland": "eSjaelland",  # a 22-point island east of Sjælland, touching only the Baltic
    "Isfahan": "eIsfahan",  # a 10-point island off Eşfahān's coast in the Persian Gulf
}

# Polygons that are not places of the tables.
POLYGONS_IGNORED: dict[str, str] = {
    **{f"MR_{box}": "the rounds display drawn on the map" for box in
       ("End", "S1", "S2", "S3", "S4", "S5", "W0", "W1", "W2", "W3", "W4", "W5")},
    "Nefud": "a desert between Sūriyah, al-Ā’urdunn and al-‛Irāq; no province of the tables",
    "Mer d’Aral": "the Aral Sea; no sea zone of the tables",
}

# European provinces the 2015 map does not draw (islands off its western edge, x < 1.2).
NOT_DRAWN: dict[str, str] = {
    "eAcores": "the Azores lie west of the map's edge",
    "eIslas Canarias": "the Canaries lie west of the map's edge",
}

# The scenario format's Terrain literal (ledger/scenario.py) has no dense/sparse forest:
# both read as "forest" there; the board files keep the printed terrain.
SCENARIO_TERRAIN = {
    "plain": "plain", "dense_forest": "forest", "sparse_forest": "forest", "mountain": "mountain",
    "desert": "desert", "swamp": "swamp", "sea": "sea",
}

# Two sea zones share their short name with a European province (eAcores/sAcores,
# eArabie/sArabie); the ledger names a place once, so these sea zones get their French
# long name. Every other place is its table id without the prefix.
SEA_RENAMES = {"sAcores": "Mer des Acores", "sArabie": "Mer d'Arabie"}

BORDER_TYPES = {None: "plain", "RIVER": "river", "PASS": "pass", "STRAIT": "strait", "BERING_STRAIT": "bering_strait"}

# Douglas-Peucker tolerance in board units (the map is ~13 wide): about 1/3000 of its width,
# which keeps coasts and rivers recognisable and cuts the file ~6x. Coordinates keep 3 decimals.
TOLERANCE = 0.005
DECIMALS = 3


class BoardImportError(Exception):
    """The raw files do not match the tables above: the message lists every mismatch."""


# ----------------------------------------------------------------- helpers


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _fail_if(problems: list[str], what: str) -> None:
    if problems:
        raise BoardImportError(f"{what} ({len(problems)}):\n  " + "\n  ".join(sorted(problems)))


def _metadata(raw: str | None, table_id: str) -> tuple[list[str], str | None]:
    """Other names (sorted, without the table id, 'null' or the printed symbol) and the symbol."""
    names, symbol = set(), None
    for item in (raw or "").split(";;"):
        item = item.strip()
        if item in ("", "null", table_id):
            continue
        if item.startswith("{") and item.endswith("}"):
            symbol = item[1:-1]  # {1} / {½}: a printed symbol, not a name
            continue
        names.add(item)
    names.discard(table_id[1:])
    return sorted(names), symbol


def _simplify(ring: list[list[float]], tol: float) -> list[list[float]] | None:
    """Douglas-Peucker on a ring, closed first; None for a ring of fewer than 3 distinct points.

    A ring that simplification would bring below 4 points is kept whole (small islands).
    """
    pts = [(p[0], p[1]) for p in ring]
    if len(set(pts)) < 3:
        return None  # a stray point or segment in the source: no area, and it fakes a contact
    if pts[0] != pts[-1]:
        pts.append(pts[0])  # a third of the source's rings are left open; GeoJSON rings are closed
    keep = [False] * len(pts)
    keep[0] = keep[-1] = True
    # the ring is closed (first == last): split it at its farthest point from the start
    far = max(range(len(pts)), key=lambda i: math.dist(pts[0], pts[i]))
    keep[far] = True
    stack = [(0, far), (far, len(pts) - 1)]
    while stack:
        a, b = stack.pop()
        (ax, ay), (bx, by) = pts[a], pts[b]
        seg = math.hypot(bx - ax, by - ay)
        best, idx = -1.0, -1
        for i in range(a + 1, b):
            px, py = pts[i]
            d = (abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / seg) if seg else math.dist(pts[a], pts[i])
            if d > best:
                best, idx = d, i
        if idx >= 0 and best > tol:
            keep[idx] = True
            stack += [(a, idx), (idx, b)]
    out = [pts[i] for i in range(len(pts)) if keep[i]]
    if len(out) < 4:
        out = pts
    return [[round(x, DECIMALS), round(y, DECIMALS)] for x, y in out]


def _polygons(geometry: dict) -> list:
    """Every geometry as MultiPolygon coordinates: [polygon [ring [x, y]]]."""
    coords = geometry["coordinates"]
    return coords if geometry["type"] == "MultiPolygon" else [coords]


def _simplified(polys: list) -> list:
    """Each polygon simplified; one whose outer ring is degenerate is dropped, holes with it."""
    out = []
    for poly in polys:
        rings = [_simplify(ring, TOLERANCE) for ring in poly]
        if rings[0] is not None:
            out.append([r for r in rings if r is not None])
    return out


# ----------------------------------------------------------------- the import


def place_name(table_id: str) -> str:
    """The printed name: the table id without its e/r/s prefix (SEA_RENAMES aside)."""
    return SEA_RENAMES.get(table_id, table_id[1:])


def build(source: Path) -> dict[str, Any]:
    """The board files' contents, from the raw files; raises BoardImportError listing any mismatch."""
    ref = json.loads((source / "referential.json").read_text(encoding="utf-8"))
    geo = json.loads((source / "europe.geo.json").read_text(encoding="utf-8"))

    # countries first: every printed owner and national province needs a code
    _fail_if([f"{c['NAME']!r} (type {c['TYPE']})" for c in ref["R_COUNTRY"] if c["NAME"] not in COUNTRIES],
             "countries of R_COUNTRY without a ledger code in COUNTRIES")
    _fail_if([n for n in COUNTRIES if n not in {c["NAME"] for c in ref["R_COUNTRY"]}],
             "COUNTRIES entries that R_COUNTRY does not have")
    codes = [code for code, _ in COUNTRIES.values()]
    _fail_if([c for c in set(codes) if codes.count(c) > 1], "ledger codes given twice in COUNTRIES")
    code_of = {name: code for name, (code, _) in COUNTRIES.items()}

    terrain = {p["NAME"]: p["TERRAIN"] for p in ref["R_PROVINCE"]}
    gold = {g["R_PROVINCE"]: int(g["VALUE"]) for g in ref["R_GOLD"]}

    name = place_name

    provinces = {}
    for p in ref["R_PROVINCE_EU"]:
        other, symbol = _metadata(p["METADATA"], p["ID"])
        provinces[name(p["ID"])] = {
            "terrain": terrain[p["ID"]].lower(),
            "income": int(p["INCOME"]),
            "fortress": int(p["FORTRESS"]),
            "owner": code_of[p["R_COUNTRY"]] if p["R_COUNTRY"] else None,
            "capital": bool(p["CAPITAL"]),
            "port": bool(p["PORT"]),
            "arsenal": bool(p["ARSENAL"]),
            "praesidiable": bool(p["PRAESIDIABLE"]),
            "salt": _int(p.get("SALT")),
            "gold": gold.get(p["ID"]),
            "symbol": symbol,
            "other_names": other,
        }

    resources = defaultdict(dict)
    for r in ref["R_RESOURCES"]:
        resources[r["ID_R_REGION"]][r["TYPE"].lower()] = int(r["NUMBER"])
    regions = {
        r["NAME"]: {
            "income": _int(r["INCOME"]), "difficulty": _int(r["DIFFICULTY"]), "tolerance": _int(r["TOLERANCE"]),
            "natives_number": _int(r["NATIVES_NUMBER"]), "natives_type": r["NATIVES_TYPE"],
            "cold_area": _int(r["COLD_AREA"]), "resources": dict(sorted(resources[r["NAME"]].items())),
        }
        for r in ref["R_REGION"]
    }
    _fail_if([r for r in resources if r not in regions], "R_RESOURCES regions missing from R_REGION")
    rotw = {}
    for p in ref["R_PROVINCE_ROTW"]:
        other, _ = _metadata(p["METADATA"], p["ID"])
        rotw[name(p["ID"])] = {"region": p["REGION"], "terrain": terrain[p["ID"]].lower(),
                               "fortress": _int(p["FORTRESS"]), "gold": gold.get(p["ID"]), "other_names": other}
    _fail_if([f"{n} (region {p['region']!r})" for n, p in rotw.items() if p["region"] not in regions],
             "rest-of-the-world provinces whose region R_REGION lacks")

    seas = {name(s["ID"]): {"difficulty": int(s["DIFFICULTY"]), "penalty": int(s["PENALTY"])}
            for s in ref["R_PROVINCE_SEA"]}

    places = {}  # table id -> kind
    for kind, rows in (("province", ref["R_PROVINCE_EU"]), ("rotw", ref["R_PROVINCE_ROTW"]),
                       ("sea", ref["R_PROVINCE_SEA"])):
        for row in rows:
            places[row["ID"]] = kind
    _fail_if([f"{n}" for n in {name(i) for i in places}
              if sum(1 for i in places if name(i) == n) > 1], "names shared by two places once prefixes are dropped")
    _fail_if([g["R_PROVINCE"] for g in ref["R_GOLD"] if g["R_PROVINCE"] not in places], "R_GOLD places unknown")

    # borders: listed both ways in R_BORDER with the same type; kept once, as a sorted pair
    listed = {(b["ID_R_PROVINCE_FROM"], b["ID_R_PROVINCE_TO"]): b["TYPE"] for b in ref["R_BORDER"]}
    _fail_if([f"{a} -> {b}" for a, b in listed if a not in places or b not in places],
             "R_BORDER rows naming an unknown place")
    _fail_if([f"{a} -> {b} ({t})" for (a, b), t in listed.items() if listed.get((b, a), "absent") != t],
             "R_BORDER rows without the same row the other way")
    _fail_if([f"{t}" for t in set(listed.values()) if t not in BORDER_TYPES], "unknown border types")
    borders = sorted({(*sorted((name(a), name(b))), BORDER_TYPES[t]) for (a, b), t in listed.items()})

    # countries, with their national provinces and capitals
    national, capitals = defaultdict(list), defaultdict(list)
    for row in ref["R_COUNTRY_PROVINCE_EU"]:
        national[row["ID_R_COUNTRY"]].append(name(row["ID_R_PROVINCE_EU"]))
    for row in ref["R_COUNTRY_PROVINCE_EU_CAPITALS"]:
        capitals[row["ID_R_COUNTRY"]].append(name(row["ID_R_PROVINCE_EU"]))
    for table, rows in (("R_COUNTRY_PROVINCE_EU", national), ("R_COUNTRY_PROVINCE_EU_CAPITALS", capitals)):
        _fail_if([f"{c}: {p}" for c, ps in rows.items() for p in ps if p not in provinces]
                 + [c for c in rows if c not in COUNTRIES], f"{table} rows naming an unknown province or country")
    countries = {}
    for c in ref["R_COUNTRY"]:
        code, label = COUNTRIES[c["NAME"]]
        countries[code] = {
            "name": c["NAME"], "label": label, "type": c["TYPE"].lower(), "culture": c["CULTURE"],
            "religion": c["RELIGION"], "army_class": c["ARMY_CLASS"], "hre": bool(c["HRE"]),
            "elector": bool(c["ELECTOR"]),
            "national_provinces": sorted(national[c["NAME"]]), "capitals": sorted(capitals[c["NAME"]]),
        }

    # trade zones: R_PROVINCE_TZ, type ZM (a sea trade zone, STZ) or ZP (a country's trade zone, CTZ), the
    # sea zone it lies in, the country whose CTZ it is, the presence value (the small print on the map) and the
    # monopoly value (the large print): keyed by the table's id, which tables/trade_centres.toml names
    trade_zones = {}
    for z in ref["R_PROVINCE_TZ"]:
        trade_zones[z["ID"]] = {
            "type": {"ZM": "STZ", "ZP": "CTZ"}[z["TYPE"]], "sea": name(z["R_PROVINCE"]),
            "country": code_of[z["R_COUNTRY"]] if z["R_COUNTRY"] else None,
            "presence": int(z["PRESENCE"]), "monopoly": int(z["MONOPOLY"]),
        }
    _fail_if([f"{i} ({z['sea']})" for i, z in trade_zones.items() if z["sea"] not in seas],
             "R_PROVINCE_TZ rows naming an unknown sea zone")

    geometry = _match_polygons(geo, ref, places)
    return {
        "provinces": provinces, "rotw": {"provinces": rotw, "regions": regions}, "seas": seas,
        "borders": borders, "countries": countries, "geometry": geometry, "trade_zones": trade_zones,
    }


def _match_polygons(geo: dict, ref: dict, places: dict[str, str]) -> dict[str, Any]:
    """Each polygon to its place: the alias table, else the province's name or one METADATA name."""
    features = {f["id"]: f for f in geo["features"]}
    problems = [f"alias {k!r}: no such polygon" for k in [*POLYGON_ALIASES, *POLYGON_PARTS, *POLYGONS_IGNORED]
                if k not in features]
    problems += [f"alias {k!r} -> {v!r}: no such place" for k, v in {**POLYGON_ALIASES, **POLYGON_PARTS}.items()
                 if v not in places]
    owner: dict[str, str] = {}  # polygon id -> table id
    for poly, table_id in POLYGON_ALIASES.items():
        owner[poly] = table_id
    aliased = set(POLYGON_ALIASES.values())
    for p in ref["R_PROVINCE_EU"]:
        if p["ID"] in aliased or p["ID"] in NOT_DRAWN:
            continue
        other, _ = _metadata(p["METADATA"], p["ID"])
        hits = sorted({n for n in [p["ID"][1:], *other] if n in features})
        if len(hits) == 1:
            owner.setdefault(hits[0], p["ID"])
            if owner[hits[0]] != p["ID"]:
                problems.append(f"polygon {hits[0]!r} claimed by {owner[hits[0]]} and {p['ID']}")
        elif not hits:
            problems.append(f"{p['ID']}: no polygon by its name or METADATA names {other}")
        else:
            problems.append(f"{p['ID']}: several polygons {hits}; settle it in POLYGON_ALIASES")
    claimed = defaultdict(list)
    for poly, table_id in owner.items():
        claimed[table_id].append(poly)
    problems += [f"{t} has polygons {ps}" for t, ps in claimed.items() if len(ps) > 1]
    problems += [f"{t} is in NOT_DRAWN but has polygon {claimed[t]}" for t in NOT_DRAWN if t in claimed]
    accounted = set(owner) | set(POLYGON_PARTS) | set(POLYGONS_IGNORED)
    problems += [f"polygon {f!r}: no place claims it" for f in features if f not in accounted]
    _fail_if(problems, "polygons and places that do not match")

    out: dict[str, dict] = {"provinces": {}, "rotw": {}, "seas": {}}
    section = {"province": "provinces", "rotw": "rotw", "sea": "seas"}
    for poly, table_id in sorted(owner.items()):
        parts = _polygons(features[poly]["geometry"])
        parts += [q for extra, t in sorted(POLYGON_PARTS.items()) if t == table_id
                  for q in _polygons(features[extra]["geometry"])]
        shape = _simplified(parts)
        if not shape:
            problems.append(f"polygon {poly!r} of {table_id}: nothing left once degenerate rings are dropped")
        out[section[places[table_id]]][place_name(table_id)] = shape
    _fail_if(problems, "polygons without an area")
    return {
        "axes": "x grows eastwards, y grows northwards (as latitude): flip y to draw in SVG",
        "tolerance": TOLERANCE,
        "not_drawn": sorted(place_name(t) for t in NOT_DRAWN),
        **out,
    }


# ----------------------------------------------------------------- writing


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _lines(value: Any, depth: int) -> str:
    """Sorted JSON, one entry per line down to ``depth`` levels: compact yet readable in a diff."""
    if depth == 0 or not isinstance(value, (dict, list)) or not value:
        return _dumps(value)
    if isinstance(value, dict):
        items = [f"{_dumps(k)}:{_lines(v, depth - 1)}" for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(items) + "\n}"
    return "[\n" + ",\n".join(_lines(v, depth - 1) for v in value) + "\n]"


FILES = {  # file -> (key of build()'s result, line depth)
    "provinces.json": ("provinces", 1),
    "rotw.json": ("rotw", 2),
    "seas.json": ("seas", 1),
    "borders.json": ("borders", 1),
    "countries.json": ("countries", 1),
    "geometry.json": ("geometry", 2),
    "trade_zones.json": ("trade_zones", 1),
}


def write(board: dict[str, Any], out: Path, source: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for file, (key, depth) in FILES.items():
        (out / file).write_text(_lines(board[key], depth) + "\n", encoding="utf-8")
    (out / "LICENSE").write_bytes((source / "LICENSE").read_bytes())
    source_md = (source / "SOURCE.md").read_text(encoding="utf-8")
    # the shared SOURCE.md's rows name the commits; "the tables below" are not copied here
    commits = [line.replace("| the tables below |", "| the board's tables (R_PROVINCE, R_BORDER, R_COUNTRY...) |")
               for line in source_md.splitlines() if line.startswith("| `")]
    (out / "SOURCE.md").write_text(SOURCE_MD.format(rows="\n".join(commits)), encoding="utf-8")


SOURCE_MD = """\
# The Europa Universalis board: where these files come from

Written by `ops/import_board.py` (do not edit by hand: change the importer and re-run it).
The facts (provinces, sea zones, trade zones, borders, countries) and the polygons are those of the public
repository BAMGames/europa-universalis-implementation, MIT license: its notice is `LICENSE` beside
this file and goes with every copy. Data only; no code of that repository is here.

| raw file | from | what it holds |
|---|---|---|
{rows}

The importer's own decisions (country codes, the polygon aliases, the two islands the map does not
draw, the terrain mapping for scenarios) are data in `ops/import_board.py` and are summarised in
`ledger/rules/eu/DECISIONS.md`, "Board import".
"""


# ----------------------------------------------------------------- scenarios from the shipped board

# The eight major powers in 1492 (period I) of the 8-player game: the countries with a period I
# value in BOTH administrative tables of eu8-fast-combat-and-tables.fr.txt (annex E): "Limite
# d'achat par tour, et max. de DN par période" (ANG ESP FRA POL RUS TUR VEN POR) and "Recrutement
# maximum en DT" (the same eight plus Hollande, which owns no province on the 1492 board).
MAJORS_1492 = ("ENG", "FRA", "SPA", "POR", "VEN", "TUR", "POL", "RUS")

# The real corner around Picardie: Caux between it and Normandie, Paris behind, the
# Burgundian Netherlands to the north-east, Kent and Wessex across the Channel.
CORNER = ("Kent", "Wessex", "Normandie", "Caux", "Picardie", "Ile-de-France", "Orleanais", "Champagne",
          "Artois", "Flandre", "Hainaut", "Vlaanderen", "Manche", "Nord")


def _read_board(board_dir: Path) -> dict[str, Any]:
    return {key: json.loads((board_dir / file).read_text(encoding="utf-8")) for file, (key, _) in FILES.items()
            if key != "geometry"}


def _scenario_doc(board: dict[str, Any], places: set[str] | None) -> dict[str, Any]:
    """Scenario on the board (every place, or only ``places``), with the printed owners and fortresses."""
    def wanted(n: str) -> bool:
        return places is None or n in places

    seas_touching = defaultdict(bool)
    for a, b, _ in board["borders"]:
        if a in board["seas"]:
            seas_touching[b] = True
        if b in board["seas"]:
            seas_touching[a] = True
    provinces = []
    for n, p in sorted(board["provinces"].items()):
        if wanted(n):
            provinces.append({"name": n, "terrain": SCENARIO_TERRAIN[p["terrain"]], "owner": p["owner"],
                              "income": p["income"], "fortress": p["fortress"], "coastal": seas_touching[n]})
    for n, p in sorted(board["rotw"]["provinces"].items()):
        if wanted(n):
            provinces.append({"name": n, "terrain": SCENARIO_TERRAIN[p["terrain"]], "owner": None,
                              "fortress": p["fortress"] or 0, "coastal": seas_touching[n], "area": p["region"]})
    seas = [{"name": n} for n in sorted(board["seas"]) if wanted(n)]
    owners = {p["owner"] for p in provinces if p["owner"]}
    majors = [c for c in MAJORS_1492 if places is None or c in owners]
    codes = majors + sorted(owners - set(majors))
    countries = board["countries"]
    # A capital: the country's own R_COUNTRY_PROVINCE_EU_CAPITALS entry, else the province printed as a capital
    # it owns (the majors have no entry in that table; their capitals are printed: Ile-de-France, Moskva...).
    printed = defaultdict(list)
    for p in provinces:
        if p["owner"] and board["provinces"].get(p["name"], {}).get("capital"):
            printed[p["owner"]].append(p["name"])

    def country(c: str) -> dict[str, Any]:
        listed = [n for n in countries[c]["capitals"] if wanted(n)] or printed[c]
        return {"code": c, "name": countries[c]["label"], "treasury": 0, "stability": 0,
                "capitals": listed or None,
                "national_provinces": [n for n in countries[c]["national_provinces"] if wanted(n)] or None}

    return {
        "countries": [country(c) for c in codes],
        "provinces": provinces,
        "sea_zones": seas,
        "adjacency": [[a, b] for a, b, _ in board["borders"] if wanted(a) and wanted(b)],
    }


def _yaml(header: str, top: dict[str, Any], doc: dict[str, Any]) -> str:
    """Block YAML with one flow mapping per line (as ledger/scenarios/sample.yaml is written)."""
    def flow(d: dict) -> str:
        return "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in d.items() if v is not None) + "}"

    out = [header.rstrip()]
    out += [f"{k}: {_scalar(v)}" for k, v in top.items()]
    for key in ("countries", "provinces", "sea_zones"):
        out.append(f"{key}:")
        out += [f"  - {flow(item)}" for item in doc[key]]
    out.append("adjacency:")
    out += [f"  - [{_scalar(a)}, {_scalar(b)}]" for a, b in doc["adjacency"]]
    return "\n".join(out) + "\n"


def _scalar(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid YAML flow scalar


HEADER_1492 = """\
# Europa Universalis, 1492: the whole board with its printed owners, fortresses and incomes.
# Generated by ops/import_board.py from ledger/rules/eu/board (do not edit by hand).
# The eight major powers of the 8-player game come first: ENG FRA SPA POR VEN TUR POL RUS, the
# countries with a period I figure in both of eu8-fast-combat-and-tables.fr.txt's annex E tables
# "Limite d'achat par tour, et max. de DN par période" and "Recrutement maximum en DT".
# Capitals: R_COUNTRY_PROVINCE_EU_CAPITALS, else the province printed as a capital the country owns (the
# majors); national provinces: R_COUNTRY_PROVINCE_EU (none listed for the majors).
# Not on the board, so not here: treasuries and stabilities (0 until the game master sets them),
# the inflation box, players, stacks and wars.
# start: the economic facts of the placement in 1492 (engGreatCampaign.tex: domestic trade, vassals, trade
# fleets and centres, colonies, trading posts, missions), ledger/rules/eu/tables/start_1492.toml, recorded
# as events when a campaign is set up (ledger/usecases/start.py).
"""

HEADER_CORNER = """\
# The Channel and Picardie, 1492: a corner of the real board with its printed facts.
# Generated by ops/import_board.py from ledger/rules/eu/board (do not edit by hand).
# Picardie (fortress 2, income 8) does not border Normandie: Caux lies between.
# Not on the board, so not here: treasuries and stabilities (0), stacks and wars.
"""


def write_scenarios(board_dir: Path, out: Path) -> dict[str, str]:
    """The 1492 start and the real corner, from the board files alone; returns file -> text."""
    board = _read_board(board_dir)
    texts = {
        "eu-1492.yaml": _yaml(HEADER_1492, {"name": "Europa Universalis, 1492", "ruleset": "eu", "board": "eu",
                                            "year": 1492, "start": "start_1492"}, _scenario_doc(board, None)),
        "sample-real.yaml": _yaml(HEADER_CORNER, {"name": "The Channel and Picardie, 1492", "ruleset": "eu",
                                                  "board": "eu", "year": 1492}, _scenario_doc(board, set(CORNER))),
    }
    if out is not None:
        for file, text in texts.items():
            (out / file).write_text(text, encoding="utf-8")
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="folder of referential.json and europe.geo.json")
    parser.add_argument("--out", type=Path, required=True, help="board folder to write (ledger/rules/eu/board)")
    parser.add_argument("--scenarios", type=Path, help="also write eu-1492.yaml and sample-real.yaml here")
    args = parser.parse_args(argv)
    try:
        board = build(args.source)
    except BoardImportError as e:
        print(f"import_board: {e}", file=sys.stderr)
        return 1
    write(board, args.out, args.source)
    geo = board["geometry"]
    print(f"provinces {len(board['provinces'])}, rotw provinces {len(board['rotw']['provinces'])} "
          f"in {len(board['rotw']['regions'])} regions, seas {len(board['seas'])}, "
          f"trade zones {len(board['trade_zones'])}, borders {len(board['borders'])}, countries {len(board['countries'])}; polygons: "
          f"{len(geo['provinces'])} provinces, {len(geo['seas'])} seas, {len(geo['rotw'])} rotw, "
          f"not drawn {', '.join(geo['not_drawn'])} -> {args.out}")
    if args.scenarios:
        for file in write_scenarios(args.out, args.scenarios):
            print(f"scenario {args.scenarios / file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
