"""Who may enter when sign-in is on: the allow-list rule, pure.

The lists come from the settings ``allowed_emails`` and ``allowed_domains`` (:mod:`rlmon.settings` reads them
with :func:`normalize_email` and :func:`normalize_domain`); the address comes from the sign-in provider's
``email`` claim (``rlmon.app.signin`` hands it over). The rule:

* both lists empty: everyone who can sign in with the provider enters;
* else an address enters when it is on ``allowed_emails`` or its domain matches an entry of ``allowed_domains``;
* letters compare without case (``Alice@Team.Example`` is ``alice@team.example``);
* ``team.example`` matches that domain only, not ``eng.team.example`` (a subdomain is often another mail system:
  a contractor's, a lab's); ``*.team.example`` matches every subdomain of it, and not ``team.example`` itself;
* the domain is what follows the last ``@``, so ``alice@team.example@evil.example`` is of ``evil.example``;
* an address the provider marks unverified (``email_verified`` false) matches nothing, and a sign-in without an
  address enters only when both lists are empty.

>>> is_allowed("Alice@Team.Example", emails=(), domains=("team.example",))
True
>>> is_allowed("bob@eng.team.example", emails=(), domains=("team.example",))
False
>>> is_allowed("bob@eng.team.example", emails=(), domains=("*.team.example",))
True
>>> is_allowed(None, emails=(), domains=())
True
"""

from __future__ import annotations

import re

__all__ = ["is_allowed", "normalize_domain", "normalize_email"]

_WILDCARD = "*."
# letters of any script, digits, hyphens; no spaces, "@", "/", ":" or other characters a domain cannot hold
_LABEL = re.compile(r"^[^\s@/\\:*.,;<>\"'()\[\]]+$")


def normalize_domain(text: str) -> str:
    """A domain of ``allowed_domains`` as compared: lower case, without a leading ``@`` or a trailing dot.

    Raises
    ------
    ValueError
        ``text`` is not a domain (an empty label, a space, an ``@`` inside, a ``*`` other than a leading ``*.``).

    >>> normalize_domain(" @Team.Example. ")
    'team.example'
    >>> normalize_domain("*.Team.Example")
    '*.team.example'
    """
    domain = text.strip().lower().removeprefix("@").removesuffix(".")
    wildcard = domain.startswith(_WILDCARD)
    labels = domain.removeprefix(_WILDCARD).split(".")
    if not all(_LABEL.match(label) for label in labels):
        raise ValueError(f"{text.strip()!r} is not a domain (like team.example, or *.team.example for its subdomains)")
    return (_WILDCARD if wildcard else "") + ".".join(labels)


def normalize_email(text: str) -> str:
    """An address of ``allowed_emails`` as compared: lower case, its domain as :func:`normalize_domain` writes it.

    Raises
    ------
    ValueError
        ``text`` is not ``name@domain``.

    >>> normalize_email(" Alice@Team.Example ")
    'alice@team.example'
    """
    local, at, domain = text.strip().lower().rpartition("@")
    if not at or not local or any(char.isspace() for char in local):
        raise ValueError(f"{text.strip()!r} is not an email address (like alice@team.example)")
    try:
        normalized_domain = normalize_domain(domain)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not an email address (like alice@team.example)") from None
    if normalized_domain.startswith(_WILDCARD):
        raise ValueError(f"{text.strip()!r} is not an email address (a * belongs in allowed_domains)")
    return f"{local}@{normalized_domain}"


def _domain_matches(domain: str, entry: str) -> bool:
    if entry.startswith(_WILDCARD):
        return domain.endswith(entry[1:])  # ".team.example": a subdomain, never the domain itself
    return domain == entry


def is_allowed(
    email: object, *, emails: tuple[str, ...], domains: tuple[str, ...], email_verified: object = None
) -> bool:
    """True when a person signed in with ``email`` may enter (the rule is in this module's docstring).

    Parameters
    ----------
    email
        The provider's ``email`` claim as received (a string, or anything else when the provider sent something
        odd, which matches nothing).
    emails, domains
        The normalized settings ``allowed_emails`` and ``allowed_domains``.
    email_verified
        The provider's ``email_verified`` claim: ``False`` (or ``"false"``) makes the address match nothing;
        absent (``None``), as some providers send it, the address counts as the provider's word.
    """
    if not emails and not domains:
        return True
    if not isinstance(email, str) or email_verified is False or str(email_verified).lower() == "false":
        return False
    try:
        address = normalize_email(email)
    except ValueError:
        return False
    domain = address.rpartition("@")[2]
    return address in emails or any(_domain_matches(domain, entry) for entry in domains)
