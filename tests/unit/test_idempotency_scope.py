"""Whose Idempotency-Keys a key is looked up among (``ledger.application.idempotency_scope``)."""

from __future__ import annotations

from uuid import UUID

from hypothesis import given, strategies as st

from ledger.application import idempotency_scope
from ledger.domain.actors import Actor

CID = UUID(int=16)
names = st.text(min_size=1, max_size=20)
roles = st.sampled_from(["gm", "player", "observer", "admin"])
countries = st.one_of(st.none(), st.sampled_from(["ENG", "FRA"]))
token_ids = st.text(alphabet="0123456789abcdef", min_size=16, max_size=16)


@given(names, names, roles, roles, countries, countries, token_ids, token_ids)
def test_two_tokens_never_share_a_scope_whatever_their_holders_are_called(
        name_a, name_b, role_a, role_b, country_a, country_b, token_a, token_b):
    a = idempotency_scope(CID, Actor(name_a, role_a, country_a, token_a))
    b = idempotency_scope(CID, Actor(name_b, role_b, country_b, token_b))
    assert (a == b) == (token_a == token_b)


@given(names, roles, countries, token_ids, names, roles, countries)
def test_a_token_never_shares_a_scope_with_a_caller_without_one(name, role, country, token, other, other_role,
                                                                other_country):
    assert idempotency_scope(CID, Actor(name, role, country, token)) != idempotency_scope(
        CID, Actor(other, other_role, other_country))


def test_callers_without_a_token_are_scoped_by_role_and_name():
    assert idempotency_scope(CID, Actor("gina", "admin")) == idempotency_scope(CID, Actor("gina", "admin"))
    assert idempotency_scope(CID, Actor("gina", "admin")) != idempotency_scope(CID, Actor("gina", "gm"))
    assert idempotency_scope(CID, Actor("gina", "gm")) != idempotency_scope(UUID(int=17), Actor("gina", "gm"))
