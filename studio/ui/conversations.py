"""The Chat tab's saved conversations: the store the browser keeps (Gradio's BrowserState, in localStorage),
export to Markdown and JSON, import from JSON. Plain data, no Gradio: a message holds its text as typed
(`studio.ui.chat` escapes it for the chat window) and a reply may carry its latency line as "stats".

The store is {"current": id or None, "conversations": [{"id", "created", "messages": [{"role", "content",
"stats"?}]}]}, newest conversation first. The browser sends it back with every event, so it is checked like
an import: whatever does not fit is dropped, never trusted."""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timezone

FORMAT = "transformer-studio-chat"  # the "format" of an exported JSON file
MAX_CONVERSATIONS = 100
MAX_MESSAGES = 1000  # per conversation
MAX_CHARS = 20_000  # per message
MAX_STATS_CHARS = 500
MAX_IMPORT_BYTES = 1024 * 1024  # 1 MB as the page counts
# localStorage holds about 5 million characters per site; the store is kept encrypted in base64 (4/3 of its
# UTF-8 size), beside the settings and Gradio's own entries
STORE_BUDGET_BYTES = 2_500_000
TITLE_CHARS = 40
_ID = re.compile(r"[0-9a-f]{1,32}")


class ConversationError(ValueError):
    """A conversation that cannot be imported or saved; the message says why, for the user."""


def empty_store() -> dict:
    return {"current": None, "conversations": []}


def new_conversation() -> dict:
    return {"id": uuid.uuid4().hex[:12], "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "messages": []}


def title(conversation: dict) -> str:
    """The first message, on one line, cut at TITLE_CHARS."""
    first = next((m["content"] for m in conversation["messages"] if m["role"] == "user"), "")
    words = " ".join(first.split())
    return (words if len(words) <= TITLE_CHARS else words[:TITLE_CHARS - 1] + "…") or "New conversation"


def current(store: dict) -> dict | None:
    return next((c for c in store["conversations"] if c["id"] == store["current"]), None)


def choices(store: dict) -> list[tuple[str, str]]:
    """(title, id) of every conversation (newest first), for the list to switch between them; a title that
    an older conversation has already gets a number ("안녕 (2)"), so an import is told from its original."""
    seen: dict[str, int] = {}
    labelled = []
    for conversation in reversed(store["conversations"]):
        name = title(conversation)
        seen[name] = seen.get(name, 0) + 1
        labelled.append((name if seen[name] == 1 else f"{name} ({seen[name]})", conversation["id"]))
    return labelled[::-1]


def reply_stats(conversation: dict | None) -> list[str]:
    """The stats of each reply, in order ("" where a reply has none)."""
    messages = conversation["messages"] if conversation else []
    return [m.get("stats", "") for m in messages if m["role"] == "assistant"]


def checked_messages(messages) -> list[dict]:
    """`messages` as stored, or ConversationError naming the first message that does not fit. They alternate
    user, assistant, as the chat makes them (each reply's stats are drawn beside the nth reply)."""
    if not isinstance(messages, list):
        raise ConversationError('it has no "messages" list')
    if len(messages) > MAX_MESSAGES:
        raise ConversationError(f"it has {len(messages):,} messages; the limit is {MAX_MESSAGES:,}")
    checked = []
    for number, message in enumerate(messages, start=1):
        expected = "user" if number % 2 else "assistant"
        if not isinstance(message, dict):
            raise ConversationError(f'message {number} is not an object with "role" and "content"')
        role, content = message.get("role"), message.get("content")
        if role != expected:
            raise ConversationError(f"message {number} has the role {str(role)[:20]!r} where {expected!r} was "
                                    "expected (messages alternate user, assistant, starting with user)")
        if not isinstance(content, str):
            raise ConversationError(f'message {number} has no text "content"')
        if len(content) > MAX_CHARS:
            raise ConversationError(f"message {number} is {len(content):,} characters long; "
                                    f"the limit is {MAX_CHARS:,}")
        stats = message.get("stats")
        extra = {"stats": stats[:MAX_STATS_CHARS]} if role == "assistant" and isinstance(stats, str) and stats else {}
        checked.append({"role": role, "content": content, **extra})
    return checked


def checked_conversation(value) -> dict:
    """A conversation out of parsed JSON (an export of this app, or a bare list of messages)."""
    if isinstance(value, list):
        value = {"messages": value}
    if not isinstance(value, dict):
        raise ConversationError('expected a JSON object with a "messages" list')
    if value.get("format", FORMAT) != FORMAT:
        raise ConversationError(f"its format is {str(value.get('format'))[:40]!r}, not {FORMAT!r}")
    conversation = new_conversation()
    conversation["messages"] = checked_messages(value.get("messages"))
    if isinstance(value.get("id"), str) and _ID.fullmatch(value["id"]):
        conversation["id"] = value["id"]
    if isinstance(value.get("created"), str) and 0 < len(value["created"]) <= 40:
        conversation["created"] = value["created"]
    return conversation


def checked_store(value) -> dict:
    """The store as the browser sent it; a malformed conversation (a damaged or edited localStorage entry)
    is dropped rather than breaking the tab."""
    if not isinstance(value, dict) or not isinstance(value.get("conversations"), list):
        return empty_store()
    conversations, ids = [], set()
    for item in value["conversations"][:MAX_CONVERSATIONS]:
        try:
            conversation = checked_conversation(item)
        except ConversationError:
            continue
        if conversation["id"] not in ids:
            conversations.append(conversation)
            ids.add(conversation["id"])
    selected = value.get("current")
    if selected not in ids:
        selected = conversations[0]["id"] if conversations else None
    return {"current": selected, "conversations": conversations}


def check_size(store: dict) -> dict:
    size = len(json.dumps(store, ensure_ascii=False).encode())
    if size > STORE_BUDGET_BYTES:
        raise ConversationError(f"The conversations would take {size / 1e6:.1f} MB of this browser's storage; "
                                f"it keeps {STORE_BUDGET_BYTES / 1e6:.1f} MB. Export and delete old conversations "
                                "first: this change is not saved.")
    return store


def with_new(store: dict) -> dict:
    """A new, empty conversation first in the list and current (the current one, if it is still empty)."""
    selected = current(store)
    if selected is not None and not selected["messages"]:
        return store
    if len(store["conversations"]) >= MAX_CONVERSATIONS:
        raise ConversationError(f"{MAX_CONVERSATIONS} conversations are saved, the most this page keeps: "
                                "delete one first.")
    conversation = new_conversation()
    return {"current": conversation["id"], "conversations": [conversation, *store["conversations"]]}


def switched(store: dict, conversation_id) -> dict:
    if not any(c["id"] == conversation_id for c in store["conversations"]):
        raise ConversationError("That conversation is not saved any more (deleted in another tab?).")
    return {**store, "current": conversation_id}


def deleted(store: dict, conversation_id) -> dict:
    """The store without that conversation; the next one in the list becomes current."""
    ids = [c["id"] for c in store["conversations"]]
    if conversation_id not in ids:
        return store
    remaining = [c for c in store["conversations"] if c["id"] != conversation_id]
    selected = store["current"]
    if selected == conversation_id:
        selected = remaining[min(ids.index(conversation_id), len(remaining) - 1)]["id"] if remaining else None
    return {"current": selected, "conversations": remaining}


def recorded(store: dict, messages: list[dict], stats: str = "") -> dict:
    """The store with the current conversation (a new one if there is none) holding `messages`, what the chat
    window now shows, as typed. Replies keep their stats as long as they and everything before them are
    unchanged; `stats` goes to the last message if it is a reply."""
    messages = checked_messages(messages)
    conversation = current(store)
    conversations = store["conversations"]
    if conversation is None:
        conversation = new_conversation()
        conversations = [conversation, *conversations]
    unchanged = True
    for old, new in zip(conversation["messages"], messages):
        unchanged = unchanged and (old["role"], old["content"]) == (new["role"], new["content"])
        if not unchanged:
            break
        if "stats" in old:
            new["stats"] = old["stats"]
    if stats and messages and messages[-1]["role"] == "assistant":
        messages[-1]["stats"] = stats[:MAX_STATS_CHARS]
    updated = {**conversation, "messages": messages}
    return check_size({"current": updated["id"],
                       "conversations": [updated if c["id"] == updated["id"] else c for c in conversations]})


def with_imported(store: dict, conversation: dict) -> dict:
    """The store with `conversation` added first (under a new id: never in place of a saved one) and current."""
    if len(store["conversations"]) >= MAX_CONVERSATIONS:
        raise ConversationError(f"{MAX_CONVERSATIONS} conversations are saved, the most this page keeps: "
                                "delete one first.")
    conversation = {**conversation, "id": new_conversation()["id"]}
    return check_size({"current": conversation["id"], "conversations": [conversation, *store["conversations"]]})


def parse_export(data: bytes, name: str) -> dict:
    """The conversation in an exported JSON file, or ConversationError naming the file and what is wrong."""
    def refused(why: str) -> ConversationError:
        return ConversationError(f"Cannot import {name}: {why}.")

    if len(data) > MAX_IMPORT_BYTES:
        raise refused(f"it is larger than {MAX_IMPORT_BYTES / 1e6:.0f} MB, the most a conversation file may be")
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise refused(f"it is not UTF-8 text (byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise refused(f"it is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except (ValueError, RecursionError) as error:  # e.g. a number too long to read, or arrays nested too deep
        raise refused(f"it is not JSON this app can read ({str(error)[:80] or 'nested too deeply'})") from None
    try:
        conversation = checked_conversation(value)
    except ConversationError as error:
        raise refused(str(error)) from None
    if not conversation["messages"]:
        raise refused("it has no messages")
    return conversation


def to_json(conversation: dict) -> str:
    return json.dumps({"format": FORMAT, "version": 1, "title": title(conversation),
                       "created": conversation["created"], "messages": conversation["messages"]},
                      ensure_ascii=False, indent=2) + "\n"


def to_markdown(conversation: dict) -> str:
    """The conversation to read: each message under its speaker, each reply's stats in italics below it."""
    lines = [f"# {title(conversation)}", "", f"Transformer Studio chat, started {conversation['created']}."]
    for message in conversation["messages"]:
        lines += ["", f"**{'You' if message['role'] == 'user' else 'Bot'}:**", "", message["content"]]
        if message.get("stats"):  # the latency line, then any warnings, on one line
            lines += ["", "*" + " · ".join(message["stats"].split("\n\n")) + "*"]
    return "\n".join(lines) + "\n"


def export_name(conversation: dict, suffix: str) -> str:
    """chat-2025-01-31T09-30-00.md: the conversation's start, safe in any file system."""
    stamp = re.sub(r"[^0-9A-Za-z]+", "-", conversation["created"][:19]).strip("-") or conversation["id"]
    return f"chat-{stamp}.{suffix}"
