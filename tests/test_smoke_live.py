from __future__ import annotations

import httpx


def test_live_server_serves_home_page(live_server_proc):
    response = httpx.get(live_server_proc.url + "/", timeout=10)
    assert response.status_code == 200
    assert "Messages Playground" in response.text
    assert 'data-profile="simulator"' in response.text
