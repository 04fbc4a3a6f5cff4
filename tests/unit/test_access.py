"""The allow-list rule (rlmon.access): who may enter when sign-in is on."""

from __future__ import annotations

import pytest

from rlmon.access import is_allowed, normalize_domain, normalize_email

EMAILS = ("carol@partner.example",)
DOMAINS = ("team.example", "*.lab.example")


@pytest.mark.parametrize(
    ("email", "allowed"),
    [
        ("alice@team.example", True),
        ("ALICE@Team.EXAMPLE", True),  # case never matters
        (" alice@team.example ", True),
        ("carol@partner.example", True),  # on the address list
        ("Carol@Partner.Example", True),
        ("dave@partner.example", False),  # the address list names people, not their domain
        ("bob@eng.team.example", False),  # team.example is that domain only
        ("bob@lab.example", False),  # *.lab.example: subdomains, not the domain itself
        ("bob@x.lab.example", True),
        ("bob@deep.x.lab.example", True),
        ("mallory@team.example.evil.example", False),  # ends elsewhere
        ("mallory@evilteam.example", False),  # a suffix is not a domain
        ("mallory@notlab.example", False),
        ("alice@team.example@evil.example", False),  # the domain is after the last @
        ("team.example", False),  # no address
        ("", False),
        (None, False),  # no email claim
        (42, False),
    ],
)
def test_the_rule(email: object, allowed: bool) -> None:
    assert is_allowed(email, emails=EMAILS, domains=DOMAINS) is allowed


def test_empty_lists_let_in_everyone_who_signed_in() -> None:
    assert is_allowed("anyone@anywhere.example", emails=(), domains=())
    assert is_allowed(None, emails=(), domains=())
    assert is_allowed("x@y.example", emails=(), domains=(), email_verified=False)


def test_an_unverified_address_matches_nothing() -> None:
    assert not is_allowed("alice@team.example", emails=(), domains=DOMAINS, email_verified=False)
    assert not is_allowed("carol@partner.example", emails=EMAILS, domains=(), email_verified="false")
    assert is_allowed("alice@team.example", emails=(), domains=DOMAINS, email_verified=True)
    assert is_allowed("alice@team.example", emails=(), domains=DOMAINS, email_verified=None)


def test_normalized_forms() -> None:
    assert normalize_email(" Alice@Team.Example. ") == "alice@team.example"
    assert normalize_domain("@Team.Example") == "team.example"
    assert normalize_domain("*.Lab.Example.") == "*.lab.example"
    assert normalize_domain("实验室.example") == "实验室.example"


@pytest.mark.parametrize("text", ["alice", "alice@", "@team.example", "a@b..c", "a@*.team.example", "a@b/c"])
def test_not_an_address(text: str) -> None:
    with pytest.raises(ValueError, match="not an email address"):
        normalize_email(text)


@pytest.mark.parametrize("text", ["", "*", "*.", "a..b", "a@b.c", "http://team.example", "te*m.example", "a b"])
def test_not_a_domain(text: str) -> None:
    with pytest.raises(ValueError, match="not a domain"):
        normalize_domain(text)
