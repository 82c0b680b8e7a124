"""The web pages' Jinja environment (api/web/jinja.py) reads ``a.b`` of a dict straight from its items: the
same page as the stock environment renders, for every kind of name."""

from __future__ import annotations

import jinja2
from hypothesis import given, strategies as st

from api.web.jinja import Environment

TEMPLATE = "{{ d.value }}|{{ d.items is callable }}|{{ d.missing is defined }}|{{ o.real }}|{{ d.keys | default('-') }}"


def test_a_dicts_key_read_as_an_attribute_renders_as_with_the_stock_environment():
    page = {"d": {"value": "<b>7</b>", "items": "an item named items"}, "o": 3}
    stock = jinja2.Environment(autoescape=True).from_string(TEMPLATE).render(page)
    fast = Environment(autoescape=True).from_string(TEMPLATE).render(page)
    assert fast == stock
    assert fast.startswith("&lt;b&gt;7&lt;/b&gt;|True|False|3|")  # escaped; d.items is still the method


@given(st.dictionaries(st.sampled_from(["value", "items", "get", "keys", "x_1", "copy", "name"]),
                       st.integers() | st.text(max_size=5), max_size=7),
       st.sampled_from(["value", "items", "get", "keys", "x_1", "copy", "name", "absent"]))
def test_any_name_of_any_dict_reads_the_same_as_the_stock_environment(d, name):
    text = "{{ d.%s }}" % name
    assert Environment().from_string(text).render(d=d) == jinja2.Environment().from_string(text).render(d=d)
