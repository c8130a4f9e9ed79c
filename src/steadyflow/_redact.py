"""``redact_url``: the one way a URL we were given is shown in logs, reprs and errors.

Store URLs (Redis, SQL) carry credentials in several forms: userinfo
(``redis://user:secret@host``, ``redis://secret@host``) and query parameters
(``?password=...``, ``?username=...``, which redis-py and the SQL drivers
accept). Every place that names a URL goes through this function, so no
form is forgotten in one of them.

Masked: a password in userinfo (the user name stays, to tell accounts
apart); a userinfo without a password whole (it may be a token); any query
parameter whose name is ``user``/``username`` or contains ``pass``, ``pwd``,
``secret``, ``token``, ``key``, ``auth``, ``credential`` or ``sig``.
Masking more than needed is preferred to showing a secret.
"""

from __future__ import annotations

__all__ = ["MASK", "redact_url"]

MASK = "***"

_SECRET_PARTS = ("pass", "pwd", "secret", "token", "key", "auth", "credential", "sig")
_USER_NAMES = ("user", "username")


def _is_secret(name: str) -> bool:
    lowered = name.lower()
    return lowered in _USER_NAMES or any(part in lowered for part in _SECRET_PARTS)


def _redact_query(query: str) -> str:
    pairs: list[str] = []
    for pair in query.split("&"):
        name, eq, _ = pair.partition("=")
        pairs.append(f"{name}={MASK}" if eq and _is_secret(name) else pair)
    return "&".join(pairs)


def _split_userinfo(rest: str) -> tuple[str, str]:
    """``rest`` (after ``://``) as (userinfo, the remainder); userinfo "" when none.

    A ``rest`` starting with ``/`` has no authority (``sqlite:///a@b.db``).
    Else the userinfo ends at the last ``@`` before the query, or before the
    first ``=`` when a password holds an unescaped ``?``: an ambiguous URL
    is read the way that shows less.
    """
    if rest.startswith("/"):
        return "", rest
    head = rest.partition("?")[0]
    at = head.rfind("@")
    if at < 0:
        equals = rest.find("=")
        at = rest.rfind("@", 0, equals if equals >= 0 else len(rest))
    if at < 0:
        return "", rest
    return rest[:at], rest[at + 1 :]


def _masked_userinfo(userinfo: str) -> str:
    user, colon, _ = userinfo.partition(":")
    return f"{user}:{MASK}" if colon and user and "/" not in user else MASK


def redact_url(url: str) -> str:
    """``url`` with every credential masked (see the module docstring); safe to log."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    userinfo, rest = _split_userinfo(rest) if sep else ("", rest)
    head, question, query = rest.partition("?")
    shown = f"{_masked_userinfo(userinfo)}@{head}" if userinfo else head
    if question:
        shown += "?" + _redact_query(query)
    return f"{scheme}{sep}{shown}"
