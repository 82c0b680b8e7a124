"""Exchequer phase: exceptional taxes (E1) and the exchequer test (E2).

Sources: TABLES.md "Exchequer (sheet A) and the Administrative Actions
table" and "Economic Record Sheet"; BAMGames/europa-universalis-rules
rules/engBudget.tex ("Exceptional taxes", "Exchequer test", "International
Loans", "Budget"). Tables: ``tables/exchequer.toml``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.rules.core import (
    DiceSource,
    Effect,
    Modifier,
    Ruling,
    RulesError,
    Step,
    TableCell,
    clamp,
    load_table,
)
from ledger.rules.eu import EU
from ledger.rules.eu.vocabularies import CountryCode
from ledger.rules.eu.ers import pct_down

PACKAGE = "ledger.rules.eu"
SECTION_TAXES = "engBudget.tex §Exceptional taxes (TABLES.md ERS A11–A12)"
SECTION_TEST = "engBudget.tex §Exchequer test"
SECTION_ILOAN = "engBudget.tex §International Loans"
SECTION_BUDGET = "engBudget.tex §Budget (ERS A19–A24)"

Result = Literal["F*", "F", "1/2", "1/2*", "S", "S*"]
RESULT_TEXT = {"F*": "F★", "F": "F", "1/2": "½", "1/2*": "½★", "S": "S", "S*": "S★"}


def _tables() -> dict:
    return load_table(PACKAGE, "exchequer.toml")


# --------------------------------------------------------------------------- tables


def administrative_actions(modified_roll: int, stability: int) -> tuple[Result, TableCell]:
    """Read the Administrative Actions table: modified die (row) × stability (column)."""
    table = _tables()["administrative_actions"]
    columns: list[int] = table["columns"]
    if stability not in columns:
        raise RulesError(
            f"stability {stability} has no column in the Administrative Actions table",
            field="stability",
        )
    row = clamp(modified_roll, table["row_min"], table["row_max"])
    result = table["rows"][str(row)][columns.index(stability)]
    label = f"≤{row}" if row == table["row_min"] else f"≥{row}" if row == table["row_max"] else str(row)
    cell = TableCell(
        table="Administrative Actions",
        row=label,
        column=f"STAB {stability:+d}" if stability else "STAB 0",
        value=RESULT_TEXT[result],
    )
    return result, cell


def exchequer_percentages(result: Result) -> dict[str, int]:
    """The Exchequer test table row: regular / prestige / national loan / international loan."""
    table = _tables()["exchequer"]
    return dict(zip(table["columns"], table["results"][result], strict=True))


# --------------------------------------------------------------------------- E1


class ExceptionalTaxesInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode = Field(description="Country levying the taxes")
    adm: int = Field(ge=0, le=9, description="ADM of the monarch at the Administrative phase")
    stability: int = Field(ge=-3, le=3, description="STAB at the Administrative phase")
    taxes_planned: bool = Field(
        default=True,
        description="Taxes were planned at the Administrative phase (ERS B39 written)",
    )


def exceptional_taxes_modifier(adm: int, stability: int) -> int:
    """ERS B39 / A11: ADM + 3 × STAB."""
    return adm + _tables()["exceptional_taxes"]["stability_factor"] * stability


@EU.procedure(
    "E1",
    title="Exceptional taxes",
    seed="engBudget.tex §Exceptional taxes; TABLES.md ERS A12",
    inputs=ExceptionalTaxesInputs,
)
def resolve_exceptional_taxes(inputs: ExceptionalTaxesInputs, dice: DiceSource) -> Ruling:
    """E1: A12 = (1d10 + ADM + 3 × STAB) × 10 ducats, possibly negative, cannot be refused."""
    if not inputs.taxes_planned:
        # engBudget.tex: taxes not planned at the Administrative phase cannot be raised now.
        raise RulesError(
            "exceptional taxes must be planned at the Administrative phase (ERS B39)",
            field="taxes_planned",
            rule="eu:E1",
        )
    factor = _tables()["exceptional_taxes"]
    mods = []
    if inputs.adm:
        mods.append(Modifier(value=inputs.adm, reason="ADM of the monarch", rule="eu:E1", section=SECTION_TAXES))
    if inputs.stability:
        mods.append(
            Modifier(
                value=factor["stability_factor"] * inputs.stability,
                reason=f"3 × STAB ({inputs.stability:+d})",
                rule="eu:E1",
                section=SECTION_TAXES,
            )
        )
    die = dice.roll("exceptional taxes")
    total = die.total + sum(m.value for m in mods)
    amount = total * factor["ducats_factor"]
    return EU.ruling(
        "E1",
        inputs,
        modifiers=tuple(mods),
        dice=(die,),
        total=total,
        outcome={
            "modifier_b39": exceptional_taxes_modifier(inputs.adm, inputs.stability),
            "taxes": amount,
            "negative": amount < 0,
        },
        effects=(
            Effect(kind="ducats", country=inputs.country, ers_line="A12", amount=amount,
                   detail={"reason": "exceptional taxes"}),
        ),
        summary=f"{inputs.country}: exceptional taxes ({die.total} {total - die.total:+d}) × 10 = {amount} ducats on A12",
    )


# --------------------------------------------------------------------------- E2


class ExchequerInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    country: CountryCode
    stability: int = Field(ge=-4, le=4, description="STAB column of the Administrative Actions table")
    gross_income: int = Field(ge=0, description="ERS A14 (= B25)")
    completely_at_peace: bool = Field(
        description="No war (civil and overseas included), no limited or foreign intervention"
    )
    national_loans: int = Field(default=0, ge=0, description="National loans outstanding (ducats), ERS C5")
    international_loans: int = Field(
        default=0, ge=0, description="Ongoing international loans (count, partly refunded ones included)"
    )
    bankruptcies_last_5_turns: int = Field(default=0, ge=0)
    broken_loan_treaties_last_5_turns: int = Field(default=0, ge=0)
    spain_expulsions: bool = Field(default=False, description="Spain has declared a policy of expulsions")
    half_with_fti: bool = Field(
        default=False,
        description="Ruleset option: resolve ½ with a second die ≤ FTI (S) or F (DECISIONS.md E2)",
    )
    fti: int | None = Field(default=None, ge=0, le=10, description="FTI, needed when half_with_fti")
    international_loan_test: bool = Field(default=False, description="Roll the International Loans test too")
    international_money: int | None = Field(
        default=None, ge=150, le=350, description="Money available to this country's international loans"
    )
    stock_exchange: bool = Field(default=False, description="Holland/England with their Stock Exchange")
    expenses: int | None = Field(default=None, ge=0, description="ERS A19 (= B48), to fill the budget")
    from_prestige: int | None = Field(default=None, ge=0, description="ERS A21")
    from_national_loan: int | None = Field(default=None, ge=0, description="ERS A22")
    from_international_loan: int | None = Field(default=None, ge=0, description="ERS A23")

    @model_validator(mode="after")
    def _consistent(self) -> ExchequerInputs:
        if self.half_with_fti and self.fti is None:
            raise ValueError("fti is required when half_with_fti is set")
        if self.international_loan_test and self.international_money is None:
            raise ValueError("international_money is required for the International Loans test")
        if self.expenses is None and any(
            v is not None for v in (self.from_prestige, self.from_national_loan, self.from_international_loan)
        ):
            raise ValueError("expenses (A19) is required to fill A21–A23")
        if self.from_international_loan and not self.international_loan_test:
            raise ValueError("from_international_loan needs the International Loans test (A18)")
        return self


def _loan_modifiers(inputs: ExchequerInputs, rule: str, section: str, international: bool) -> list[Modifier]:
    m = _tables()["exchequer"]["modifiers"]
    mods: list[Modifier] = []
    if inputs.completely_at_peace:
        mods.append(Modifier(value=m["completely_at_peace"], reason="completely at peace", rule=rule, section=section))
    hundreds = inputs.national_loans // 100
    if hundreds:
        mods.append(
            Modifier(
                value=m["per_100_ducats_of_national_loan"] * hundreds,
                reason=f"{inputs.national_loans} ducats of national loans ({hundreds} × 100)",
                rule=rule,
                section=section,
            )
        )
    if inputs.international_loans:
        mods.append(
            Modifier(
                value=m["per_international_loan"] * inputs.international_loans,
                reason=f"{inputs.international_loans} ongoing international loan(s)",
                rule=rule,
                section=section,
            )
        )
    if inputs.bankruptcies_last_5_turns:
        mods.append(
            Modifier(
                value=m["per_bankruptcy_last_5_turns"] * inputs.bankruptcies_last_5_turns,
                reason=f"{inputs.bankruptcies_last_5_turns} bankruptcy(ies) in the last 5 turns",
                rule=rule,
                section=section,
            )
        )
    if inputs.broken_loan_treaties_last_5_turns:
        mods.append(
            Modifier(
                value=m["per_broken_loan_treaty_last_5_turns"] * inputs.broken_loan_treaties_last_5_turns,
                reason=f"{inputs.broken_loan_treaties_last_5_turns} loan treaty(ies) broken in the last 5 turns",
                rule=rule,
                section=section,
            )
        )
    if international and inputs.stock_exchange:
        mods.append(
            Modifier(value=m["stock_exchange_international_only"], reason="Stock Exchange", rule=rule, section=section)
        )
    return mods


def budget(
    gross_income: int,
    percentages: dict[str, int],
    expenses: int,
    max_international_loan: int = 0,
    from_prestige: int = 0,
    from_national_loan: int = 0,
    from_international_loan: int = 0,
) -> dict[str, int]:
    """ERS A15–A17 and A20–A26 for given choices (engBudget.tex §Budget).

    A15–A17 are percentages of A14 rounded down; A21 ≤ min(A16, A20),
    A22 ≤ A17, A23 ≤ A18, all non-negative.
    """
    a15 = pct_down(gross_income, percentages["regular"])
    a16 = pct_down(gross_income, percentages["prestige"])
    a17 = pct_down(gross_income, percentages["national_loan"])
    a20 = expenses - a15
    limits = {
        "A21": ("from_prestige", from_prestige, max(0, min(a16, a20))),
        "A22": ("from_national_loan", from_national_loan, a17),
        "A23": ("from_international_loan", from_international_loan, max_international_loan),
    }
    for line, (name, value, limit) in limits.items():
        if value > limit:
            raise RulesError(f"{line} ({name}) may be at most {limit}, not {value}", field=name, rule="eu:E2")
    a24 = from_prestige + from_national_loan + from_international_loan - a20
    return {
        "A15": a15,
        "A16": a16,
        "A17": a17,
        "A18": max_international_loan,
        "A19": expenses,
        "A20": a20,
        "A21": from_prestige,
        "A22": from_national_loan,
        "A23": from_international_loan,
        "A24": a24,
        "A26": a16 - from_prestige,
    }


@EU.procedure(
    "E2",
    title="Exchequer test",
    seed="engBudget.tex §Exchequer test, §International Loans, §Budget; TABLES.md Administrative Actions",
    inputs=ExchequerInputs,
    options=("half_with_fti",),
)
def resolve_exchequer(inputs: ExchequerInputs, dice: DiceSource) -> Ruling:
    """E2: the exchequer test gives the percentages of A14 for A15–A17.

    Optional steps: ½ resolved by FTI (ruleset option), the International
    Loans test (A18, a separate die), and the budget lines A20–A24 when the
    expenses and the player's choices are given.
    """
    steps: list[Step] = []
    mods = _loan_modifiers(inputs, "eu:E2", SECTION_TEST, international=False)
    die = dice.roll("exchequer test")
    total = die.total + sum(m.value for m in mods)
    result, cell = administrative_actions(total, inputs.stability)
    steps.append(
        Step(name="exchequer test", modifiers=tuple(mods), dice=(die,), total=total, table_cell=cell,
             outcome={"result": RESULT_TEXT[result]})
    )
    if result == "1/2" and inputs.half_with_fti:
        assert inputs.fti is not None
        second = dice.roll("exchequer ½: die against FTI")
        result = "S" if second.total <= inputs.fti else "F"
        steps.append(
            Step(name="½ against FTI", dice=(second,), total=second.total,
                 outcome={"fti": inputs.fti, "result": RESULT_TEXT[result]})
        )

    pcts = exchequer_percentages(result)
    bonus = _tables()["exchequer"]["national_loan_bonus"]
    national = pcts["national_loan"]
    if not inputs.completely_at_peace:
        national += bonus["not_completely_at_peace"]
    if inputs.spain_expulsions:
        national += bonus["spain_expulsions"]
    percentages = {"regular": pcts["regular"], "prestige": pcts["prestige"], "national_loan": national}

    max_iloan = 0
    iloan_result = None
    if inputs.international_loan_test:
        assert inputs.international_money is not None
        imods = _loan_modifiers(inputs, "eu:E2", SECTION_ILOAN, international=True)
        idie = dice.roll("international loans test")
        itotal = idie.total + sum(m.value for m in imods)
        iloan_result, icell = administrative_actions(itotal, inputs.stability)
        ipct = exchequer_percentages(iloan_result)["international_loan"]
        max_iloan = pct_down(inputs.international_money, ipct)
        steps.append(
            Step(name="international loans test", modifiers=tuple(imods), dice=(idie,), total=itotal,
                 table_cell=icell,
                 outcome={"result": RESULT_TEXT[iloan_result], "percent": ipct, "A18": max_iloan})
        )

    lines = {
        "A15": pct_down(inputs.gross_income, percentages["regular"]),
        "A16": pct_down(inputs.gross_income, percentages["prestige"]),
        "A17": pct_down(inputs.gross_income, percentages["national_loan"]),
    }
    if inputs.expenses is not None:
        lines = budget(
            inputs.gross_income,
            percentages,
            inputs.expenses,
            max_iloan,
            inputs.from_prestige or 0,
            inputs.from_national_loan or 0,
            inputs.from_international_loan or 0,
        )
        lines["A21_max"] = max(0, min(lines["A16"], lines["A20"]))
        steps.append(Step(name="budget", outcome={k: v for k, v in lines.items()}))
    elif inputs.international_loan_test:
        lines["A18"] = max_iloan

    effects = [
        Effect(kind="ers_entry", country=inputs.country, ers_line="A15_pct", amount=percentages["regular"]),
        Effect(kind="ers_entry", country=inputs.country, ers_line="A16_pct", amount=percentages["prestige"]),
        Effect(kind="ers_entry", country=inputs.country, ers_line="A17_pct", amount=percentages["national_loan"]),
    ]
    if inputs.international_loan_test:
        effects.append(Effect(kind="ers_entry", country=inputs.country, ers_line="A18", amount=max_iloan))
    if inputs.expenses is not None:
        for line, value in (("A21", inputs.from_prestige), ("A22", inputs.from_national_loan),
                            ("A23", inputs.from_international_loan)):
            if value is not None:
                effects.append(Effect(kind="ers_entry", country=inputs.country, ers_line=line, amount=value))

    outcome = {
        "result": RESULT_TEXT[result],
        "percentages": percentages,
        "lines": lines,
    }
    if iloan_result is not None:
        outcome["international_loan_result"] = RESULT_TEXT[iloan_result]
    return EU.ruling(
        "E2",
        inputs,
        steps=tuple(steps),
        outcome=outcome,
        effects=tuple(effects),
        summary=(
            f"{inputs.country}: exchequer {RESULT_TEXT[result]} → regular {percentages['regular']}% "
            f"({lines['A15']}), prestige {percentages['prestige']}% ({lines['A16']}), "
            f"national loan {percentages['national_loan']}% ({lines['A17']})"
        ),
    )
