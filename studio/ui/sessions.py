"""Gradio's server kept lean: memory that stays flat however many API calls come, and a queue that polls
gently and keeps no summary of its traffic (`lighten_queue`).

Gradio keeps a `SessionState` per session hash, and each holds the configuration of every component of the
app (~0.8 MiB for this one). A browser tab is one session, but a call to the plain HTTP API (curl, scripts,
`POST /gradio_api/call/translate`) comes without one, and each gets a new hash. Gradio keeps up to 10,000
sessions (its `state_session_capacity`), so a shared server's memory grew ~0.25–0.8 MiB with every such
request towards ~8 GB (measured: `benchmarks/load_test.py`'s memory run). This app keeps nothing in its
sessions (chat history and settings live in the browser), so a session that holds only the defaults can be
forgotten: the next event of its hash, if any, starts an identical one. Sessions with state, with a component
changed by a handler (e.g. the alternatives list), or with an event in flight are kept.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import datetime
import functools
import sys
import threading
import time
import weakref

SWEEP_EVERY_S = 1.0
IDLE_S = 2.0  # a session used this recently is kept (an event between its steps is not yet listed as pending)


def forget_default_sessions(app, idle_s: float = IDLE_S) -> int:
    """Forget the sessions of `app` (a launched gr.Blocks) that hold nothing but the defaults and have been
    idle for `idle_s`; returns how many were forgotten."""
    holder = app.state_holder
    defaults = app.default_config.blocks
    pending = app._queue.pending_event_ids_session
    now = datetime.datetime.now()
    forgotten = 0
    with holder.lock:
        for session_hash, session in list(holder.session_data.items()):
            if not one_shot(session_hash):
                continue
            used = holder.time_last_used.get(session_hash)
            # no time yet: Gradio is making it (it stamps the time just after): not idle
            if used is None or (now - used).total_seconds() < idle_s or pending.get(session_hash):
                continue
            blocks = session.blocks_config.blocks
            if session.state_data or len(blocks) != len(defaults) or any(
                    blocks.get(key) is not block for key, block in defaults.items()):
                continue
            del holder.session_data[session_hash]
            holder.time_last_used.pop(session_hash, None)
            forgotten += 1
    return forgotten


def one_shot(session_hash: str) -> bool:
    """Whether a session was made for one API call that came without a session (Gradio then uses the event's
    id, 32 hex digits). A browser tab's session also holds what its streamed outputs are diffed against, so
    browser (and gradio_client) sessions are left to Gradio."""
    return len(session_hash) == 32 and all(c in "0123456789abcdef" for c in session_hash)


def keep_sessions_lean(app, every_s: float = SWEEP_EVERY_S, idle_s: float = IDLE_S) -> threading.Thread:
    """Run `forget_default_sessions` every `every_s` seconds while `app` is alive (start it before
    `app.launch`, which blocks: the sweep begins once the app is launched)."""
    ref = weakref.ref(app)  # the thread ends once the app is gone

    def sweep():
        while True:
            time.sleep(every_s)
            app = ref()
            if app is None:
                return
            if getattr(app, "_queue", None) is None or not hasattr(app, "state_holder"):
                del app  # no strong reference while sleeping
                continue  # not launched yet
            try:
                if forget_default_sessions(app, idle_s):
                    _return_freed_memory()
            except Exception:  # noqa: BLE001 - a Gradio without these internals: keep serving, as Gradio would
                return
            del app

    thread = threading.Thread(target=sweep, name="forget-default-sessions", daemon=True)
    thread.start()
    return thread


@functools.cache
def _malloc_trim():
    """glibc's malloc_trim, or None (not glibc). Found once: find_library runs `ldconfig -p`."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def _return_freed_memory() -> None:
    """Hand the heap's free pages back to the system (glibc keeps them otherwise, and RSS would not show
    that the forgotten sessions are gone)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


# Gradio's queue looks for new events every millisecond while it has none or all its workers are busy (progress:
# every 10 ms while events run): an idle app took 4.5% of a core here, all day. Every 10 ms (progress: 50 ms):
# 2.1%. An event that finds the queue waiting starts up to 10 ms later (5 ms on average; a model's answer takes
# hundreds); events queued together still start one right after another.
QUEUE_POLL_S, PROGRESS_POLL_S = 0.01, 0.05


# Gradio's queue also summarised its traffic after every event, for a monitoring page (off: `launch`), in a pandas
# table of up to its last 10,000 events: 3 to 11 ms of CPU per event here, more as the events served grow. It keeps
# one event's record and never summarises it.
NO_TRAFFIC_SUMMARY = {"ANAYLTICS_CACHE_FREQUENCY": sys.maxsize, "ANALYTICS_MAX_EVENTS": 1}  # (sic: Gradio's spelling)


def lighten_queue(app) -> None:
    """The queue of `app` (after `app.queue()`) polls gently for new events and progress, and keeps no summary of
    its traffic. A Gradio without these internals does as it does."""
    queue = getattr(app, "_queue", None)
    for setting, seconds in (("sleep_when_free", QUEUE_POLL_S), ("progress_update_sleep_when_free", PROGRESS_POLL_S)):
        if hasattr(queue, setting):
            setattr(queue, setting, max(getattr(queue, setting), seconds))  # never faster than Gradio's own
    for setting, value in NO_TRAFFIC_SUMMARY.items():
        if hasattr(queue, setting):
            setattr(queue, setting, value)
