"""The pages' rows escape with ``api.web.html.esc``: it must write what the templates' autoescape writes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup, escape

from api.web.html import esc


@given(st.text() | st.integers() | st.floats(allow_nan=False) | st.none() | st.booleans()
       | st.text().map(Markup) | st.lists(st.text(max_size=4), max_size=3))
def test_a_value_is_escaped_as_the_templates_escape_it(value):
    assert esc(value) == str(escape(value))


def test_markup_passes_as_it_is_and_text_is_escaped():
    assert esc(Markup("<b>x</b>")) == "<b>x</b>"
    assert esc("Tom & <Jerry> \"'") == "Tom &amp; &lt;Jerry&gt; &#34;&#39;"
