"""The watcher: at every refresh, the log roots read as the app reads them (discovery, the per-log cache, the
experiments, their signals), the new events found, and the messages sent.

One refresh (:meth:`Watcher.cycle`):

1. The lease (:mod:`rlmon.alerts.lease`): a process that does not hold its cache folder's lease does nothing
   else (another process sends). A process with no target it can send to (its URLs refused, no root's
   ``rlmon.toml`` with one) does not take the lease, so it never keeps one that has targets from sending. Every
   process writes a note of its own (:mod:`rlmon.alerts.peers`): its targets and what it cannot use, which the
   Alerts page shows whichever process sends; one whose targets are not the sender's says so (alerts go to the
   sender's targets only). A dry run takes no lease and writes nothing.
2. The roots: ``s3://`` roots synced into their mirrors; discovery; every experiment read through the log cache
   (an experiment whose files did not change is not read again, unless its status depends on the clock) and its
   signals found; its events listed (:func:`rlmon.alerts.events.experiment_events`).
3. The events not seen before are sent when the root's rules want them (:mod:`rlmon.alerts.rules`). The first
   refresh of a root sends nothing: what is there already is history (the log says how much); an experiment that
   appears later with files older than that first refresh is history too. A stall is told once until the run
   logs again, which is told too (and arms the stall again). More than ``alert_digest_count`` messages about a
   root within ``alert_digest_s`` become one digest.
4. Delivery: each target's messages in order; a target that fails is tried again after a wait that doubles
   (from ``refresh_s`` up to ``alert_retry_max_s``), its messages kept in the state (:mod:`rlmon.alerts.state`)
   meanwhile, restarts included. A target failing never stops the watcher, nor the other targets.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlmon.alerts.delivery import check_targets, send
from rlmon.alerts.events import AlertEvent, experiment_events, resumed_event
from rlmon.alerts.lease import Lease
from rlmon.alerts.peers import read_notes, remove_note, write_note
from rlmon.alerts.rules import AlertRules, rules_for
from rlmon.alerts.state import (
    OUTBOX_KEPT,
    Outgoing,
    RootState,
    SentRecord,
    TargetHealth,
    read_state,
    write_state,
)
from rlmon.alerts.targets import Target, scrub
from rlmon.alerts.wording import AlertMessage, digest_message, event_message, event_title
from rlmon.analysis.signals import Signal, detect_signals
from rlmon.errors import CatalogError, RlmonError
from rlmon.logs.cache import LogCache
from rlmon.logs.lines import file_identity
from rlmon.roots import ObjectRoot
from rlmon.runs.experiment import Experiment
from rlmon.runs.loading import load_experiment
from rlmon.settings import Settings
from rlmon.sources.discovery import Catalog, ExperimentRef, discover_experiments
from rlmon.sources.objstore import RootSyncer, public_paths
from rlmon.sources.rlmon_toml import AlertsTable
from rlmon.text.display import public_text
from rlmon.text.messages import t

__all__ = ["LOG", "CycleReport", "Watcher", "lease_seconds"]

LOG = logging.getLogger("rlmon.alerts")

_CLOCK_STATUSES = frozenset({"running", "stalled", "not started"})
UNKNOWN_TARGET_KEPT_S = 7 * 24 * 3600.0
"""How long messages wait for a target that is not configured now (its rlmon.toml out of reach, or removed)."""
"""Statuses that change with time alone (a quiet log becomes stalled): read again at every refresh."""


def lease_seconds(refresh_s: float) -> float:
    """How long a lease holds without renewal: three refreshes, and at least a minute (a cold read of a big root
    takes a while, and the lease is renewed between experiments)."""
    return max(60.0, 3.0 * refresh_s)


@dataclass
class CycleReport:
    """What one refresh did."""

    sending: bool
    """This process holds the lease (or is a dry run)."""
    events: int = 0
    """New events that the rules wanted."""
    queued: int = 0
    """Messages queued (one per target each)."""
    delivered: int = 0
    failed: int = 0
    printed: list[AlertMessage] = field(default_factory=list)
    """A dry run's messages."""


@dataclass
class _Memo:
    identity: tuple[Any, ...]
    status: str
    signals: list[Signal]
    events: list[AlertEvent]


@dataclass(frozen=True)
class _RootPlan:
    key: str
    """The root as given (a folder's absolute path, an ``s3://`` URL): the state's key."""
    label: str
    folder: Path | None
    """The folder discovery walks (an object root's mirror); None when it cannot be read now."""


class Watcher:
    """Watches log roots and sends alerts (see the module docstring).

    Parameters
    ----------
    roots
        Log roots: folders and ``s3://`` prefixes.
    settings
        Thresholds (stall, signals), ``refresh_s``, the alert settings, ``language``, ``public_url``.
    cache
        The per-log cache (with a folder: the alert state and the lease live in it).
    targets
        Checked targets (:func:`rlmon.alerts.delivery.check_targets`) every root's messages go to; a root's
        ``rlmon.toml`` may add its own.
    syncer
        Syncs ``s3://`` roots (the app passes its own; one is made when None).
    dry_run
        Print the messages (``printer``) instead of sending them; take no lease, write no state.
    clock
        Seconds since the epoch.
    standing_problems
        Problems found before it started (targets apprise refused), kept among the state's problems.
    """

    def __init__(
        self,
        roots: Sequence[Path | ObjectRoot],
        *,
        settings: Settings,
        cache: LogCache,
        targets: Sequence[Target] = (),
        syncer: RootSyncer | None = None,
        dry_run: bool = False,
        printer: Callable[[str], None] = print,
        clock: Callable[[], float] = time.time,
        standing_problems: Sequence[str] = (),
    ) -> None:
        if cache.cache_dir is None:
            raise RlmonError("the alert watcher needs a cache folder (its state and lease are kept there)")
        self.cache_dir: Path = cache.cache_dir
        self.roots = tuple(roots)
        self.settings = settings
        self.cache = cache
        self.targets = tuple(targets)
        self.dry_run = dry_run
        self._printer = printer
        self._standing = tuple(standing_problems)
        self._clock = clock
        self._syncer = syncer
        self.lease = Lease(self.cache_dir, stale_s=lease_seconds(settings.refresh_s), clock=clock)
        self.state = read_state(self.cache_dir)
        self._memo: dict[tuple[str, str], _Memo] = {}
        self._said: set[str] = set()
        self._toml_targets: dict[str, tuple[tuple[str, ...], tuple[Target, ...], tuple[str, ...]]] = {}
        """Root -> (its rlmon.toml's target URLs, the good ones, a problem for each bad one)."""
        self._was_sending = False
        self._lock = threading.Lock()
        self._paths = public_paths(self.cache_dir, self.roots)
        """Mirror folders -> their s3:// URLs: what problems and logs name."""

    # ------------------------------------------------------------------------------------------ the loop

    def run(self, stop: threading.Event) -> None:
        """Refresh every ``refresh_s`` seconds until ``stop`` is set; then release the lease. A refresh that
        fails is logged and the next one comes as usual."""
        try:
            while not stop.is_set():
                started = time.monotonic()
                try:
                    self.cycle()
                except Exception:  # the watcher must outlive whatever one refresh meets
                    LOG.exception("alert watcher: a refresh failed; the next one follows")
                stop.wait(max(0.0, self.settings.refresh_s - (time.monotonic() - started)))
        finally:
            self.close()

    def close(self) -> None:
        """Release the lease (another process may send at once) and remove this process's note."""
        with self._lock:
            self.lease.release()
            if not self.dry_run:
                remove_note(self.cache_dir)

    def cycle(self) -> CycleReport:
        """One refresh (see the module docstring)."""
        with self._lock:
            return self._cycle()

    def _cycle(self) -> CycleReport:
        now = self._clock()
        problems: list[str] = list(self._standing)
        looked: tuple[list[_RootPlan], Catalog] | None = None
        if not self.dry_run and not self.targets:
            # only a root's rlmon.toml can give this process a target: without one it leaves the lease alone
            looked = self._look(problems)
            if not self._root_targets_work(*looked, problems):
                self._stand_aside(now, problems)
                return CycleReport(sending=False)
        if not self.dry_run:
            if not self.lease.hold():
                self._note_waiting(now)
                return CycleReport(sending=False)
            if not self._was_sending:
                # another process may have sent meanwhile: its state is the one to go on from
                self.state = read_state(self.cache_dir)
                self.state.sender = {"pid": os.getpid(), "host": socket.gethostname(), "since": now}
                self._was_sending = True
                LOG.info("this process sends the alerts of %s (lease taken)", self.cache_dir)
        report = CycleReport(sending=True)
        if self.lease.problem:
            problems.append(self.lease.problem)
        plans, catalog = looked or self._look(problems)
        by_root: dict[str, list[ExperimentRef]] = {}
        folder_to_key = {str(plan.folder): plan.key for plan in plans if plan.folder is not None}
        for ref in catalog.experiments:
            by_root.setdefault(folder_to_key.get(str(ref.root), str(ref.root)), []).append(ref)
        labels = {plan.key: plan.label for plan in plans}
        for plan in plans:
            if plan.folder is None:
                continue
            config = catalog.root_configs.get(str(plan.folder))
            table = config.alerts if config is not None else None
            rules = rules_for(self.settings, table)
            targets = (*self.targets, *self._root_targets(plan, table, config.path if config else None, problems))
            events = self._root_events(plan.key, labels[plan.key], by_root.get(plan.key, []), rules, now)
            report.events += len(events)
            if events:
                self._queue(plan.key, labels[plan.key], events, targets, now, report)
        for problem in catalog.problems:
            if "rlmon.toml" in problem and "[alerts]" in problem:
                problems.append(problem)
        if not self.dry_run and not self.lease.hold():  # the read took long: still the sender?
            self._was_sending = False
            return CycleReport(sending=False)
        self._deliver(now, report)
        self._set_problems(problems)
        self._save(now)
        self._write_note(now, sending=True, problems=())  # its problems are in the state
        return report

    def _look(self, problems: list[str]) -> tuple[list[_RootPlan], Catalog]:
        """The roots (synced) and what discovery finds in them."""
        plans = self._resolve(problems)
        return plans, self._discover(plans, problems)

    def _root_targets_work(self, plans: Sequence[_RootPlan], catalog: Catalog, problems: list[str]) -> bool:
        """Whether a root's ``rlmon.toml`` lists a target apprise can send to (a problem for each bad one)."""
        for plan in plans:
            config = catalog.root_configs.get(str(plan.folder)) if plan.folder is not None else None
            table = config.alerts if config is not None else None
            path = config.path if config is not None else None
            if table is not None and table.targets and self._root_targets(plan, table, path, problems):
                return True
        return False

    def _stand_aside(self, now: float, problems: Sequence[str]) -> None:
        """No target this process can send to: it leaves the lease to a process that has one, and says why."""
        if self.lease.held:
            self.lease.release()
        self._was_sending = False
        problem = (
            f"this process has no working alert target, so it sends nothing and leaves the alerts of {self.cache_dir} "
            "to a process that has one"
        )
        self._say("no working target", problem, level=logging.WARNING)
        self._write_note(now, sending=False, problems=(*dict.fromkeys(problems), problem))

    def has_root_targets(self) -> bool:
        """Whether a root's ``rlmon.toml`` lists alert targets (looked at now)."""
        problems: list[str] = []
        catalog = self._discover(self._resolve(problems), problems)
        return any(config.alerts is not None and config.alerts.targets for config in catalog.root_configs.values())

    # ------------------------------------------------------------------------------------------ roots

    def _resolve(self, problems: list[str]) -> list[_RootPlan]:
        plans: list[_RootPlan] = []
        for root in self.roots:
            if not isinstance(root, ObjectRoot):
                folder = Path(os.path.abspath(root))
                if not folder.is_dir():
                    problems.append(f"{root}: log root does not exist or is not a folder")
                    plans.append(_RootPlan(str(folder), str(root), None))
                else:
                    plans.append(_RootPlan(str(folder), str(root), folder))
                continue
            if self._syncer is None:
                self._syncer = RootSyncer(self.cache_dir, refresh_s=0)
            result = self._syncer.sync(root)
            if result.error is not None:
                problems.append(f"{root.url}: {result.error.reason}")
            plans.append(_RootPlan(root.url, root.url, result.mirror if result.usable else None))
        return plans

    def _discover(self, plans: Sequence[_RootPlan], problems: list[str]) -> Catalog:
        folders = [plan.folder for plan in plans if plan.folder is not None]
        try:
            return discover_experiments(folders)
        except CatalogError as error:  # a root vanished between the look and the walk: the next refresh retries
            problems.append(error.describe())
            return Catalog(roots=tuple(folders), experiments=())

    def _root_targets(
        self, plan: _RootPlan, table: AlertsTable | None, config_path: str | None, problems: list[str]
    ) -> tuple[Target, ...]:
        """The targets a root's ``rlmon.toml`` adds (checked when the list changes; a bad one is a problem)."""
        urls: tuple[str, ...] = table.targets if table is not None else ()
        known = self._toml_targets.get(plan.key)
        if known is None or known[0] != urls:
            good: list[Target] = []
            bad: list[str] = []
            if table is not None and urls:
                line = f":{table.targets_line}" if table.targets_line else ""
                good, bad = check_targets(urls, f"{config_path or plan.label}{line}")
            known = self._toml_targets[plan.key] = (urls, tuple(good), tuple(bad))
        problems.extend(known[2])
        return known[1]

    # ------------------------------------------------------------------------------------------ events

    def _experiment_events(self, ref: ExperimentRef, now: float) -> tuple[str, list[AlertEvent], Experiment | None]:
        """(status, events, the experiment when it was read now else None) of one experiment."""
        key = (str(ref.root), ref.id)
        identity = (tuple(file_identity(item.path) for item in ref.files), ref.overrides)
        memo = self._memo.get(key)
        if memo is not None and memo.identity == identity and memo.status not in _CLOCK_STATUSES:
            return memo.status, memo.events, None
        experiment = load_experiment(ref, self.cache, now=now, settings=self.settings)
        same_files = memo is not None and memo.identity == identity
        if same_files and memo is not None and memo.status == experiment.status and experiment.status != "not started":
            signals = memo.signals
        else:
            signals = detect_signals(experiment, settings=self.settings)
        events = experiment_events(experiment, signals, relative=ref.relative)
        self._memo[key] = _Memo(identity=identity, status=experiment.status, signals=signals, events=events)
        if not self.dry_run:
            self.lease.hold()  # a long read: keep the lease fresh between experiments
        return experiment.status, events, experiment

    def _root_events(
        self, root_key: str, label: str, refs: Sequence[ExperimentRef], rules: AlertRules, now: float
    ) -> list[AlertEvent]:
        """The new events of one root that its rules want; every event found is marked seen."""
        state = self.state.roots.get(root_key)
        first = state is None
        if state is None:
            state = self.state.roots[root_key] = RootState(label=label, since=now)
        state.label = label
        wanted: list[AlertEvent] = []
        history: list[AlertEvent] = []
        for ref in refs:
            try:
                status, events, experiment = self._experiment_events(ref, now)
            except RlmonError as error:
                self._say(f"unreadable {ref.path}", f"{error.describe()}; its alerts wait until it can be read")
                continue
            # an experiment that appears with files older than the root's first start is history too (a copied run)
            old = first or (
                ref.id not in state.known and ref.last_modified is not None and ref.last_modified < state.since
            )
            state.known.setdefault(ref.id, now)
            stall = next((event for event in events if event.kind == "stalled"), None)
            told = state.stalls.get(ref.id)
            if stall is not None and told is None:
                if old:
                    state.stalls[ref.id] = ""
                    history.append(stall)
                elif rules.wants(stall):
                    state.stalls[ref.id] = stall.key
                    wanted.append(stall)
                else:
                    state.stalls[ref.id] = ""
            elif stall is None and told is not None and status != "crashed":
                del state.stalls[ref.id]
                if told and experiment is not None:
                    resumed = resumed_event(experiment, relative=ref.relative, stalled_key=told)
                    if rules.wants(resumed):
                        wanted.append(resumed)
            elif stall is None and told is not None:
                del state.stalls[ref.id]  # it crashed: the crash is told
            for event in events:
                if event.kind == "stalled" or event.key in state.seen:
                    continue
                state.seen[event.key] = now
                if old:
                    history.append(event)
                elif rules.wants(event):
                    wanted.append(event)
        if first:
            self._say(
                f"history {root_key}",
                f"first start on {label}: {len(history)} event(s) already in its logs are not sent, only what "
                "happens from now on",
            )
        if self.dry_run:
            for event in history:
                severity = t(f"severity_{event.severity}", self.settings.language)
                self._printer(f"not sent (already in the logs at the first start): [{severity}] "
                              f"{event_title(event, self.settings.language)}")  # fmt: skip
        return wanted

    # ------------------------------------------------------------------------------------------ messages

    def _queue(
        self,
        root_key: str,
        label: str,
        events: Sequence[AlertEvent],
        targets: Sequence[Target],
        now: float,
        report: CycleReport,
    ) -> None:
        settings = self.settings
        state = self.state.roots[root_key]
        window = settings.alert_digest_s
        state.recent = [moment for moment in state.recent if now - moment < window]
        lang = settings.language
        if len(state.recent) + len(events) > settings.alert_digest_count:
            messages = [
                digest_message(events, root=label, lang=lang, public_url=settings.public_url,
                               limit=settings.alert_digest_count, window_s=window)
            ]  # fmt: skip
            groups = [list(events)]
        else:
            messages = [event_message(event, lang=lang, public_url=settings.public_url) for event in events]
            groups = [[event] for event in events]
        state.recent.extend(now for _ in messages)
        for message, group in zip(messages, groups, strict=True):
            for event in group:
                LOG.info("alert: %s", event_title(event, "en"))
            if self.dry_run:
                shown = ", ".join(target.shown for target in targets) or "(no target)"
                self._printer(f"--- would send to {shown}\n{message.title}\n{message.body}\n")
                report.printed.append(message)
                continue
            for target in targets:
                self.state.targets.setdefault(target.id, TargetHealth(shown=target.shown, origin=target.origin))
                self.state.outbox.append(
                    Outgoing(
                        id=uuid.uuid4().hex,
                        target=target.id,
                        shown=target.shown,
                        root=label,
                        title=message.title,
                        body=message.body,
                        severity=message.severity,
                        kinds=sorted({event.kind for event in group}),
                        experiments=sorted({event.experiment for event in group}),
                        queued_at=now,
                    )
                )
                report.queued += 1
            if not targets:
                self._say(f"no target {root_key}", f"{label}: no alert target is configured; nothing is sent")

    def _deliver(self, now: float, report: CycleReport) -> None:
        """Each target's waiting messages, in order, until one fails (the rest wait for its next try)."""
        if self.dry_run or not self.state.outbox:
            return
        targets = {target.id: target for target in self._all_targets()}
        waiting: dict[str, list[Outgoing]] = {}
        for item in self.state.outbox:
            waiting.setdefault(item.target, []).append(item)
        kept: dict[str, list[Outgoing]] = {}
        for target_id, items in waiting.items():
            target = targets.get(target_id)
            if target is None:
                # its root's rlmon.toml may be out of reach for now: kept a while, not tried
                fresh = [item for item in items if now - item.queued_at < UNKNOWN_TARGET_KEPT_S]
                if len(fresh) < len(items):
                    LOG.warning("%d message(s) for %s dropped: that target has not been configured for a week",
                                len(items) - len(fresh), items[0].shown)  # fmt: skip
                kept[target_id] = fresh
                continue
            if len(items) > OUTBOX_KEPT:
                LOG.warning("%s: %d messages waiting; the oldest %d are dropped", target.shown, len(items),
                            len(items) - OUTBOX_KEPT)  # fmt: skip
                items = items[-OUTBOX_KEPT:]
            kept[target_id] = items
            health = self.state.targets.setdefault(target_id, TargetHealth(shown=target.shown, origin=target.origin))
            health.shown, health.origin = target.shown, target.origin
            if now < health.next_try_at:
                continue
            while kept[target_id]:
                if not self.lease.hold():  # sending takes a while: stop at once if another process took over
                    return
                item = kept[target_id][0]
                if not self._send(target, health, item, now, report):
                    break
                kept[target_id].pop(0)
                # written down at once: a restart does not send it again (targets not tried yet keep all theirs)
                self.state.outbox = [item for key, items in waiting.items() for item in kept.get(key, items)]
                self._save(now)
        self.state.outbox = [item for key, items in waiting.items() for item in kept.get(key, items)]

    def _send(self, target: Target, health: TargetHealth, item: Outgoing, now: float, report: CycleReport) -> bool:
        """Try one message; True when the target took it (a failure sets when to try again)."""
        result = send(target, title=item.title, body=item.body, severity=item.severity)
        if result.ok:
            report.delivered += 1
            when = self._clock()
            if health.failing_since is not None:
                LOG.info("%s (%s) takes messages again", target.shown, target.origin)
            health.last_sent_at, health.failing_since, health.last_error = when, None, None
            health.failures, health.next_try_at = 0, 0.0
            self.state.record_sent(
                SentRecord(at=when, target=target.shown, title=item.title, severity=item.severity, kinds=item.kinds,
                           experiments=item.experiments, root=item.root, queued_at=item.queued_at)
            )  # fmt: skip
            LOG.info("sent to %s (%s): %s", target.shown, target.origin, item.title)
            return True
        report.failed += 1
        item.tries += 1
        health.failures += 1
        health.failing_since = health.failing_since or now
        health.last_error = scrub(result.reason or "not delivered", self._all_targets())
        wait_s = min(self.settings.alert_retry_max_s, self.settings.refresh_s * 2 ** (health.failures - 1))
        health.next_try_at = now + wait_s
        waiting = sum(1 for other in self.state.outbox if other.target == item.target)
        LOG.warning("%s (%s) failing: %s; %d message(s) kept, next try in %.0f s", target.shown, target.origin,
                    health.last_error.rstrip("."), waiting, wait_s)  # fmt: skip
        return False

    def _all_targets(self) -> Iterable[Target]:
        yield from self.targets
        for _, good, _ in self._toml_targets.values():
            yield from good

    # ------------------------------------------------------------------------------------------ upkeep

    def _set_problems(self, problems: Sequence[str]) -> None:
        for problem in problems:
            self._say("problem " + problem, public_text(problem, self._paths), level=logging.WARNING)
        self.state.problems = [
            public_text(scrub(problem, self._all_targets()), self._paths) for problem in dict.fromkeys(problems)
        ]

    def _save(self, now: float) -> None:
        if self.dry_run:
            return
        try:
            write_state(self.cache_dir, self.state, now=now)
        except OSError as error:
            self._say("state unwritable", f"the alert state cannot be written to {self.cache_dir}: "
                      f"{error.strerror or error}; events may be sent again after a restart",
                      level=logging.WARNING)  # fmt: skip

    def _note_waiting(self, now: float) -> None:
        if self._was_sending:
            self._was_sending = False
        holder = self.lease.holder() or {}
        if self.lease.problem:
            self._say("lease problem", self.lease.problem, level=logging.WARNING)
            return
        pid, host = holder.get("pid", "?"), holder.get("host", "?")
        self._say(
            f"waiting {host}:{pid}",
            f"another process (pid {pid} on {host}) sends the alerts of {self.cache_dir}; this one takes over if it "
            "stops",
        )
        problems = list(self._standing)
        sender = next((note for note in read_notes(self.cache_dir, now=now) if (note.pid, note.host) == (pid, host)),
                      None)  # fmt: skip
        if sender is not None:
            theirs = {target_id for target_id, _ in sender.targets}
            left_out = [target for target in self.targets if target.id not in theirs]
            if left_out:
                problem = (
                    f"the alert targets {', '.join(target.shown + ' (' + target.origin + ')' for target in left_out)} "
                    f"of this process get nothing while pid {pid} on {host} sends the alerts of {self.cache_dir} to "
                    "its own "
                    f"({', '.join(shown for _, shown in sender.targets) or 'none'}): give every process on one cache "
                    "folder the same targets"
                )
                self._say(f"left out {host}:{pid}", problem, level=logging.WARNING)
                problems.append(problem)
        self._write_note(now, sending=False, problems=tuple(problems))

    def _write_note(self, now: float, *, sending: bool, problems: Sequence[str]) -> None:
        """This process's note (:mod:`rlmon.alerts.peers`): what the Alerts page and the other watchers read."""
        if self.dry_run:
            return
        try:
            write_note(
                self.cache_dir,
                sending=sending,
                targets=tuple((target.id, target.shown) for target in self.targets),
                problems=tuple(public_text(scrub(problem, self._all_targets()), self._paths) for problem in problems),
                stale_s=self.lease.stale_s,
                now=now,
            )
        except OSError:
            return  # the lease says so (the cache folder cannot be written)

    def _say(self, key: str, text: str, *, level: int = logging.INFO) -> None:
        """Log ``text`` once per ``key`` (a state that lasts is said when it begins, not at every refresh)."""
        if key in self._said:
            return
        self._said.add(key)
        LOG.log(level, "%s", text)
