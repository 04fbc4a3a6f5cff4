"""Alerts: what the alert watcher told the team (chat, email), to which target (scheme and host only), and what is
failing - read from the alert state in the cache folder, so every replica shows the same, whichever process
sends (rlmon.alerts.panel)."""

from __future__ import annotations

import streamlit as st

from rlmon.alerts.panel import AlertsPanel, alerts_panel, sent_table, targets_table
from rlmon.app import alerts, guards, live, state, tables
from rlmon.text import t

app = state.app_state()
lang = state.lang()
settings = app.settings


def failing(panel: AlertsPanel) -> None:
    st.markdown(f"#### {t('alerts_failing', lang)}")
    if not panel.failing:
        st.success(t("alerts_all_ok", lang), icon=":material/check_circle:")
    for text in panel.failing:
        st.error(guards.escape_markdown(text), icon=":material/error:")


def targets(panel: AlertsPanel) -> None:
    st.markdown(f"#### {t('alerts_targets', lang)}")
    if not panel.targets:
        st.caption(t("alerts_no_targets", lang))
        return
    tables.show_table(
        targets_table(panel), hide_index=True, width="stretch", key="alerts_targets",
        column_config={
            "target": st.column_config.TextColumn(t("col_alert_target", lang)),
            "state": st.column_config.TextColumn(t("col_alert_state", lang), width="small"),
            "last": st.column_config.TextColumn(t("col_alert_last", lang), width="small"),
            "waiting": st.column_config.NumberColumn(t("col_alert_waiting", lang), width="small"),
            "origin": st.column_config.TextColumn(t("col_alert_origin", lang)),
        },
    )  # fmt: skip


def sent(panel: AlertsPanel) -> None:
    st.markdown(f"#### {t('alerts_sent', lang, count=panel.sent_count)}")
    if not panel.sent:
        st.caption(t("alerts_none_sent", lang))
        return
    tables.show_table(
        sent_table(panel), hide_index=True, width="stretch", key="alerts_sent",
        column_config={
            "at": st.column_config.TextColumn(t("col_alert_time", lang), width="small"),
            "what": st.column_config.TextColumn(t("col_alert_what", lang), width="large"),
            "severity": st.column_config.TextColumn(t("col_alert_severity", lang), width="small"),
            "target": st.column_config.TextColumn(t("col_alert_target", lang)),
            "root": st.column_config.TextColumn(t("col_alert_root", lang)),
        },
    )  # fmt: skip


def body() -> None:
    panel = alerts_panel(settings.cache_dir, configured=alerts.configured_targets(settings), lang=lang)
    st.info(guards.escape_markdown(panel.sender), icon=":material/notifications:")
    if not panel.configured:
        st.caption(t("alerts_not_configured", lang))
    failing(panel)
    targets(panel)
    sent(panel)


st.markdown(f"## {t('alerts_title', lang)}")
st.caption(t("alerts_intro", lang))
live.live_fragment(body, app, key="alerts_live")
