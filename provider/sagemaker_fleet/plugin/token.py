"""Airflow 3.0: the Fleet view's pages opened in a plain browser tab, behind Airflow's own auth.

Airflow 3.0's UI moves the JWT it gets at login from the ``_token`` cookie into the browser's ``localStorage`` (and
deletes the cookie), and its API reads the ``Authorization`` header only: a browser opening ``/sagemaker-fleet/…``
sends no credentials. So on 3.0 a page the app refuses (401, 403) comes back as a small page that copies the UI's
token into a cookie for the view's path only and loads the page again once; :class:`CookieBearer` hands that
cookie to Airflow's own checks (``requires_access_dag``, ``get_user``) as the ``Authorization`` header. Every route
still asks Airflow who the caller is and what they may read. From 3.1 the UI keeps the cookie and Airflow reads it
(:data:`sagemaker_fleet.compat.UI_TOKEN_IN_LOCAL_STORAGE`): none of this is installed.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import TYPE_CHECKING, Any

from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import HTMLResponse, Response
from starlette.exceptions import HTTPException

from sagemaker_fleet.compat import JWT_COOKIE, UI_TOKEN_STORAGE_KEY
from sagemaker_fleet.fleetview.page import CSP

if TYPE_CHECKING:
    from fastapi import FastAPI, Request

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: The ``sessionStorage`` key that remembers which token the page already tried (no reload loop).
TRIED_KEY = "sagemaker-fleet-token"

SIGN_IN_SCRIPT = """
(function () {
  var html = document.documentElement;
  var prefix = html.getAttribute('data-prefix');
  var path = location.pathname;
  var at = path.indexOf(prefix);
  var scope = at >= 0 ? path.slice(0, at + prefix.length) : prefix;
  var token = null, tried = null;
  try { token = window.localStorage.getItem(html.getAttribute('data-key')); } catch (e) {}
  try { tried = window.sessionStorage.getItem(html.getAttribute('data-tried')); } catch (e) {}
  if (token && token !== tried) {
    try { window.sessionStorage.setItem(html.getAttribute('data-tried'), token); } catch (e) {}
    document.cookie = html.getAttribute('data-cookie') + '=' + token + '; path=' + scope + '; SameSite=Strict' +
      (location.protocol === 'https:' ? '; Secure' : '');
    location.reload();
    return;
  }
  var link = document.getElementById('airflow');
  link.href = (at >= 0 ? path.slice(0, at) : '') + '/';
  document.getElementById('sign-in').hidden = false;
})();
"""


def sign_in_page(prefix: str, status_code: int, detail: str) -> str:
    """The page a refused page request gets on Airflow 3.0 (see the module docstring)."""
    from sagemaker_fleet.cost.svg import esc

    attrs = {
        "data-prefix": prefix,
        "data-key": UI_TOKEN_STORAGE_KEY,
        "data-tried": TRIED_KEY,
        "data-cookie": JWT_COOKIE,
    }
    attributes = " ".join(f'{name}="{esc(value)}"' for name, value in attrs.items())
    return (
        f'<!doctype html><html lang="en" {attributes}><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}"><title>SageMaker Fleet view</title></head>'
        f'<body><p id="sign-in" hidden>Airflow refused this page ({status_code}: {esc(detail)}). Sign in to '
        '<a id="airflow" href="/">Airflow</a> as a user who may read this DAG, then open this page again.</p>'
        "<noscript>The Fleet view needs JavaScript to use your Airflow login.</noscript>"
        f"<script>{SIGN_IN_SCRIPT}</script></body></html>"
    )


def _cookie(headers: list[tuple[bytes, bytes]], name: str) -> str | None:
    for key, value in headers:
        if key != b"cookie":
            continue
        try:
            jar = SimpleCookie(value.decode("latin-1"))
        except CookieError:
            continue
        if name in jar and jar[name].value:
            return jar[name].value
    return None


class CookieBearer:
    """ASGI middleware: a request without an ``Authorization`` header but with the view's token cookie gets the
    cookie's token as ``Authorization: Bearer …`` (what Airflow 3.0's checks read)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers: list[tuple[bytes, bytes]] = list(scope.get("headers") or [])
            if not any(key == b"authorization" for key, _ in headers):
                token = _cookie(headers, JWT_COOKIE)
                if token:
                    scope = dict(scope)
                    scope["headers"] = [*headers, (b"authorization", f"Bearer {token}".encode("latin-1"))]
        await self.app(scope, receive, send)


def install(app: FastAPI, prefix: str) -> None:
    """Read the token cookie and answer refused page requests with :func:`sign_in_page` (the JSON routes under
    ``/api/`` keep Airflow's JSON answers)."""
    app.add_middleware(CookieBearer)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        path = request.url.path
        page = path[path.find(prefix) + len(prefix) :] if prefix and prefix in path else path
        if request.method != "GET" or exc.status_code not in (401, 403) or page.startswith("/api/"):
            return await http_exception_handler(request, exc)
        detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        page_html = sign_in_page(prefix, exc.status_code, detail)
        return HTMLResponse(page_html, exc.status_code, headers=dict(exc.headers or {}))

    app.add_exception_handler(HTTPException, refused)
