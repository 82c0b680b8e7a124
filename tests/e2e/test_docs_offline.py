"""``/docs`` and ``/redoc`` load nothing from another site: every script and style is served by the app.

(tests/browser/test_ers_and_docs.py renders /docs in Chromium with every outside request aborted.)
"""

from __future__ import annotations

import re

from tests.e2e.test_access import make_client


def test_the_api_reference_pages_load_only_local_files(settings, ledger):
    with make_client(settings, ledger) as client:
        for page in ("/docs", "/redoc"):
            html = client.get(page).text
            urls = re.findall(r"""(?:src|href)=["']([^"']+)["']|url: *['"]([^'"]+)['"]""", html)
            found = [a or b for a, b in urls]
            assert found and all(u.startswith("/") for u in found), (page, found)
            for u in found:
                r = client.get(u)
                assert r.status_code == 200 and len(r.content) > 1000 or u.endswith(".json"), (page, u)
        bundle = client.get("/docs/static/swagger-ui-bundle.js").text
        assert '"5.' in bundle[:500_000]  # Swagger UI 5: it reads the OpenAPI 3.1 FastAPI writes
        assert client.get("/openapi.json").json()["openapi"].startswith("3.1")
