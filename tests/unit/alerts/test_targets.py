"""Target URLs hold secrets: what rlmon shows of them (scheme and host), what it scrubs from text, and which URLs
apprise takes."""

from __future__ import annotations

import pytest

from rlmon.alerts.delivery import check_targets
from rlmon.alerts.targets import make_target, redact_url, scrub


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("json://127.0.0.1:8080/hook/T0KEN", "json://127.0.0.1"),
        ("jsons://user:pa55@alerts.example.com/api?token=T0KEN", "jsons://alerts.example.com"),
        ("mailtos://rlmon:pa55@smtp.example.com:587?to=team@example.com", "mailtos://smtp.example.com"),
        ("mailto://mailgw:2525?to=team@example.com", "mailto://mailgw"),  # an intranet host without a dot
        ("json://[::1]:8080/hook", "json://::1"),
        # services whose "host" is a token: hidden
        ("tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/-100123", "tgram://…"),
        ("feishu://a1b2c3d4-e5f6/", "feishu://…"),
        ("dingtalk://T0KEN1234/", "dingtalk://…"),
        ("wecombot://BOTKEY1234", "wecombot://…"),
        ("slack://TA0000/BB0000/CCCCCCCCCC/#general", "slack://…"),
        ("discord://4174216298/JHMHI8qBe7bk2ZwO5U711o3dV_js", "discord://…"),
        # a domain-like token is a host only with an alphabetic top-level label
        ("ntfy://ntfy.example.org/topic", "ntfy://ntfy.example.org"),
        ("not a url", "…"),
    ],
)
def test_a_target_shows_its_scheme_and_host_only(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_scrub_removes_every_secret_part_of_the_targets() -> None:
    hook = make_target("json://bot:pa55word@hooks.example.com/services/T0KEN/B0T?key=K3YVALUE", "test")
    text = "403 from hooks.example.com for /services/T0KEN/B0T (key K3YVALUE, user bot, password pa55word)"
    # every path part may be a secret (a webhook key), and so may the user name
    assert scrub(text, [hook]) == "403 from hooks.example.com for /…/…/… (key …, user …, password …)"
    assert scrub("POST json://bot:pa55word@hooks.example.com/services/T0KEN/B0T?key=K3YVALUE", [hook]) == "POST …"
    telegram = make_target("tgram://123456789:AAHdqTcvCH1vGWJ/-100123", "test")
    assert scrub("Failed to send Telegram notification to 123456789: chat -100123", [telegram]) == (
        "Failed to send Telegram notification to …: chat …"
    )


def test_a_target_has_a_fingerprint_and_no_url_in_its_repr() -> None:
    first = make_target("json://hooks.example.com/T0KEN", "RLMON_ALERT_TARGETS")
    second = make_target("json://hooks.example.com/OTHER", "RLMON_ALERT_TARGETS")
    assert first.shown == second.shown and first.id != second.id
    assert len(first.id) == 16
    assert "T0KEN" not in repr(first)


def test_check_targets_keeps_good_urls_and_says_what_is_wrong_with_the_others() -> None:
    good, problems = check_targets(
        [
            "json://127.0.0.1:9/hook",
            "nosuch://alerts.example.com/T0KEN",
            "tgram://",
            "mailto://smtp.example.com?from=rlmon@example.com&to=team@example.com",
        ],
        "--notify",
    )
    assert [target.shown for target in good] == ["json://127.0.0.1", "mailto://smtp.example.com"]
    assert problems == [
        "alert target 2 of --notify (nosuch://alerts.example.com) is not a URL apprise can send to: unknown scheme "
        "'nosuch' (docs/alerts.md lists the forms)",
        "alert target 3 of --notify (tgram://…) is not a URL apprise can send to: its parts do not fit that "
        "service's URL form (docs/alerts.md lists the forms)",
    ]
